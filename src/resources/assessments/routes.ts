// The handlers of the assessments' operations (operations.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { notFound, validationFailed } from '../../contract/errors.js';
import { handleGet, handleList, NEWEST_FIRST, readOne, UPDATED_SINCE_SQL } from '../../http/list.js';
import { filterConditions, renderPage, sqlParameters } from '../../http/pagination.js';
import { handle, type Route } from '../../http/route.js';
import type { TenantDb } from '../../storage/tenant.js';
import {
  createAssessment,
  getAssessment,
  listAssessmentGaps,
  listAssessments,
  quotaExceeded,
} from './operations.js';
import { Assessment, expiresAtSql, Gap } from './schema.js';

/** One assessment as JSON (also used by the admin status action). */
export const readAssessment = (q: TenantDb, id: string) => readOne(q, Assessment, id);

const INSERTED = Assessment.columnList(
  'id',
  'supplier_id',
  'assessment_type',
  'status',
  'vendor_profile',
  'deadline',
  'validity_days',
);

const create = handle(createAssessment, async (ctx, { body: input }) => {
  const supplierType = input.assessment_type === 'supplier';
  // Decision 3: a uuid in a body that is not in the workspace is a bad field (422), not a 404. The deadline
  // is compared by PostgreSQL, which reads every instant the schema accepts (JavaScript cannot parse a leap
  // second such as 2016-12-31T23:59:60Z, which made any such deadline look future).
  const checking = ctx.tenant.query<{ found: boolean; vendor_profile: string | null; past: boolean }>(
    `select s.id is not null as found, s.vendor_profile, coalesce($2::timestamptz <= now(), false) as past
         from (values (1)) one left join suppliers s on s.workspace_id = $ws and s.id = $1`,
    [input.supplier_id, input.deadline ?? null],
  );
  // Decision 11, in the same round trip (pipeline mode). Creates of one workspace queue on its row lock;
  // the usage is counted by the next statement, whose snapshot is taken once the lock is held, so it sees
  // the assessment of the create that went before. (Counted in the locking statement itself, the count
  // kept the snapshot taken before the wait, and concurrent creates overspent the quota: P71.) NO KEY
  // UPDATE does not block the other writes of the workspace, whose foreign keys only share the row.
  const counting = supplierType
    ? Promise.all([
        ctx.tenant.query('select 1 from workspaces where id = $ws for no key update'),
        ctx.tenant.query<{ quota: number; used: number }>(
          `select w.assessment_quota as quota,
                    (select count(*)::int from assessments a
                      where a.workspace_id = w.id and a.via_api and a.assessment_type = 'supplier') as used
               from workspaces w where w.id = $ws`,
        ),
      ])
    : null;
  const [[check], counted] = await Promise.all([checking, counting]);
  const supplier = check?.found ? check : null;
  const fields: Record<string, string> = {};
  if (!supplier) fields.supplier_id = 'does not match a supplier of this workspace';
  if (check?.past) fields.deadline = 'must be in the future';
  if (!supplier || Object.keys(fields).length > 0) throw validationFailed(fields);
  const [, [usage] = []] = counted ?? [];
  if (usage && usage.used >= usage.quota) throw quotaExceeded(usage.quota);

  const id = randomUUID();
  await ctx.tenant.query(
    `insert into assessments (workspace_id, via_api, ${INSERTED})
       values ($ws, true, $1, $2, $3, $4, $5, $6::timestamptz, $7)`,
    [
      id,
      input.supplier_id,
      input.assessment_type,
      Assessment.fields.status.initial,
      supplier.vendor_profile,
      input.deadline ?? null,
      input.validity_days ?? Assessment.fields.validity_days.initial,
    ],
  );
  await ctx.audit(
    'assessment.created',
    { type: 'assessment', id },
    { supplier_id: input.supplier_id, assessment_type: input.assessment_type },
  );
  // Opt-in (P177).
  await ctx.events('assessment.created', {
    assessment_id: id,
    supplier_id: input.supplier_id,
    assessment_type: input.assessment_type,
  });
  return { status: 201, body: (await readAssessment(ctx.tenant, id)) ?? '' };
});

const listGaps = handle(listAssessmentGaps, async (ctx, { params, query }) => {
  const { values, bind } = sqlParameters([params.id]);
  const where = [
    't.workspace_id = a.workspace_id',
    't.assessment_id = a.id',
    ...filterConditions({ severity: 't.severity = ?', updated_since: UPDATED_SINCE_SQL }, query, bind),
  ];
  // One round trip: no row means no such assessment in this workspace (404); otherwise `items` holds the
  // gaps already serialized, in byte order of the code (decision 38), whatever the database collation.
  const rows = await ctx.tenant.query<{ items: string | null }>(
    `select (select string_agg(${Gap.json('t', { pii: ctx.hasScope('evidence:read') })}, ','
                                 order by t.control_code collate "C", t.id)
                 from gaps t
                where ${where.join(' and ')}) as items
         from assessments a
        where a.workspace_id = $ws and a.id = $1`,
    values,
  );
  const [row] = rows;
  if (!row) throw notFound('assessment');
  return {
    status: 200,
    body: renderPage(row.items ? [row.items] : [], { hasMore: false, nextCursor: null }),
  };
});

export const assessmentsRoutes: Route[] = [
  handleList(listAssessments, {
    order: NEWEST_FIRST,
    where: {
      expires_before: `${expiresAtSql('t')} < ?::timestamptz`,
    },
  }),
  create,
  handleGet(getAssessment),
  listGaps,
];
