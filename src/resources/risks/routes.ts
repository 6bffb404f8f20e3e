// The handlers of the risks' operations (operations.ts). One SQL round trip per request; rows are
// serialized to JSON inside PostgreSQL, without whitespace between tokens (P124).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { invalidRequest, notFound } from '../../contract/errors.js';
import { handleList, NEWEST_FIRST, UPDATED_SINCE_SQL } from '../../http/list.js';
import { filterConditions, type PageMeta, renderPage, sqlParameters, USD } from '../../http/pagination.js';
import { handle, type Route } from '../../http/route.js';
import {
  getRiskMatrix,
  getRiskScores,
  listRiskAcceptances,
  listRisks,
  listRiskTreatments,
} from './operations.js';
import {
  CyberMatrixRow,
  OrganizationalMatrixRow,
  RiskMatrixScope,
  RiskScorePoint,
  RiskTreatment,
  WORKSPACE_BAND_SQL,
} from './schema.js';

/** Meta of the collections answered in one response: never a next page (risk-data-api.md "Limits"). */
const ONE_RESPONSE: PageMeta = { hasMore: false, nextCursor: null };

// ---------------------------------------------------------------------------- GET /risks/{id}/treatments

const treatments = handle(listRiskTreatments, async (ctx, { params, query: q }) => {
  const { values, bind } = sqlParameters([params.id]);
  const where = [
    't.workspace_id = r.workspace_id',
    't.risk_id = r.id',
    ...filterConditions({ updated_since: UPDATED_SINCE_SQL }, q, bind),
  ];
  // One row per treatment kept, or a single row with j null when none is; no row: no such risk here.
  // `planned`: whether the risk has any treatment, kept or not (P228).
  const rows = await ctx.tenant.query<{ j: string | null; planned: boolean }>(
    `select x.j, exists (select 1 from risk_treatments a where a.workspace_id = r.workspace_id and a.risk_id = r.id) as planned
         from risks r
         left join lateral (
           select ${RiskTreatment.json('t', { pii: false })} as j, t.created_at, t.id from risk_treatments t
            where ${where.join(' and ')}) x on true
        where r.workspace_id = $ws and r.id = $1
        order by x.created_at desc, x.id desc`,
    values,
  );
  if (rows.length === 0) throw notFound('risk');
  const items = rows.flatMap((row) => (row.j === null ? [] : [row.j]));
  const meta: PageMeta = rows[0]?.planned
    ? ONE_RESPONSE
    : {
        ...ONE_RESPONSE,
        featureStatus: 'not_configured',
        message: 'No treatment has been planned for this risk yet.',
      };
  return { status: 200, body: renderPage(items, meta, USD) };
});

// ---------------------------------------------------------------------------------------- GET /risk-scores

const scores = handle(getRiskScores, async (ctx, { query: q }) => {
  // The window is resolved in SQL so that "now" and the 90 days are the database's, to the microsecond.
  // No row comes back when the key is no longer live ($ws null), so stale credentials never see a series.
  const [row] = await ctx.tenant.query<{ inverted: boolean; current: string | null; history: string }>(
    `with win as (
         select coalesce($1::timestamptz, hi - interval '90 days') as lo, hi
           from (select coalesce($2::timestamptz, now()) as hi) w)
       select win.lo > win.hi as inverted,
              (select '{"score":' || p.score || ',"band":' || to_json(${WORKSPACE_BAND_SQL('p')}) ||
                      ',"as_of":"' || iso(p.at) || '"}'
                 from risk_score_points p
                where p.workspace_id = $ws and p.at <= now()
                order by p.at desc, p.id desc limit 1) as current,
              (select '[' || coalesce(string_agg(${RiskScorePoint.json('h', { pii: false })}, ',' order by h.at, h.id), '') || ']'
                 from (select p.* from risk_score_points p
                        where p.workspace_id = $ws and p.at between win.lo and win.hi
                        order by p.at desc, p.id desc limit $3) h) as history
         from win
        where $ws is not null`,
    [q.from ?? null, q.to ?? null, q.limit],
  );
  // Unreachable: an empty answer was confirmed against the database, which throws 401/403 for dead keys.
  if (!row) throw new Error('risk-scores returned no row for live credentials');
  if (row.inverted) throw invalidRequest('`from` must not be after `to`.', { parameter: 'from' });
  const meta: PageMeta = row.current
    ? ONE_RESPONSE
    : {
        ...ONE_RESPONSE,
        featureStatus: 'not_configured',
        message: 'No risk score has been recorded for this workspace yet.',
      };
  return {
    status: 200,
    body: renderPage([`{"current":${row.current ?? 'null'},"history":${row.history}}`], meta),
  };
});

// ---------------------------------------------------------------------------------------- GET /risk-matrix

type MatrixScope = (typeof RiskMatrixScope)[number];

/** The open (not closed) risks of one scope (decision 37), best `limit` first: score desc, then code. */
function matrixScopeSql(scope: MatrixScope, byBand: boolean): string {
  const row = scope === 'cyber' ? CyberMatrixRow : OrganizationalMatrixRow;
  // Written as the predicates of the partial indexes risks_matrix_*, so PostgreSQL walks them in order.
  const inScope = scope === 'cyber' ? "r.source_domain = 'cyber'" : "r.source_domain <> 'cyber'";
  return `(select ${row.json('r', { pii: false })} as j, r.likelihood * r.impact as s, r.code
     from risks r
    where r.workspace_id = $ws and r.status <> 'closed' and ${inScope}
      ${byBand ? 'and risk_band(r.likelihood * r.impact) = $2' : ''}
    order by r.likelihood * r.impact desc, r.code
    limit $1)`;
}

const matrix = handle(getRiskMatrix, async (ctx, { query: q }) => {
  const scopes: readonly MatrixScope[] = q.scope ? [q.scope] : RiskMatrixScope;
  const byBand = q.risk_band !== undefined;
  const rows = await ctx.tenant.query<{ j: string }>(
    `select m.j from (${scopes.map((scope) => matrixScopeSql(scope, byBand)).join(' union all ')}) m
        order by m.s desc, m.code`,
    byBand ? [q.limit, q.risk_band] : [q.limit],
  );
  return {
    status: 200,
    body: renderPage(
      rows.map((row) => row.j),
      ONE_RESPONSE,
      USD,
    ),
  };
});

export const risksRoutes: Route[] = [
  handleList(listRisks, { order: NEWEST_FIRST }),
  treatments,
  scores,
  matrix,
  handleList(listRiskAcceptances, {
    order: NEWEST_FIRST,
    where: {
      status: 't.status = ?',
      // '[)': valid_from inclusive, valid_until exclusive (a letter always ends after it starts).
      valid_on: "(t.status = 'active' and tstzrange(t.valid_from, t.valid_until, '[)') @> ?::timestamptz)",
    },
  }),
];
