// Risks (risk-data-api.md "Risks", scope risks:read for all): GET /risks, GET /risks/{id}/treatments,
// GET /risk-scores, GET /risk-matrix, GET /risk-acceptances. One SQL round trip per request; rows are
// serialized to JSON inside PostgreSQL, without whitespace between tokens (P124).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { invalidRequest, notFound } from '../../contract/errors.js';
import { fieldFilters, listRoute } from '../../http/list.js';
import { collectionSchema, LimitParam, type PageMeta, renderPage, USD } from '../../http/pagination.js';
import { type RouteDef, route } from '../../http/route.js';
import { DateTime, StringEnum } from '../../schema/fields.js';
import {
  CyberMatrixRow,
  OrganizationalMatrixRow,
  Risk,
  RiskAcceptance,
  RiskAcceptanceStatus,
  RiskBand,
  RiskMatrixRow,
  RiskMatrixScope,
  RiskScorePoint,
  RiskScores,
  RiskTreatment,
  WORKSPACE_BAND_SQL,
} from './schema.js';

const TAG = 'Risks';
const SCOPE = 'risks:read';

/** Meta of the collections answered in one response: never a next page (risk-data-api.md "Limits"). */
const ONE_RESPONSE: PageMeta = { hasMore: false, nextCursor: null };

// ------------------------------------------------------------------------------------------- GET /risks

const listRisks = listRoute({
  url: '/risks',
  operationId: 'listRisks',
  scope: SCOPE,
  tag: TAG,
  summary: 'List risks, newest first',
  description: '`score` (likelihood × impact) and `band` are computed when read.',
  currency: true,
  list: {
    resource: Risk,
    order: { column: 'created_at', direction: 'desc' },
    filters: {
      ...fieldFilters(Risk, ['risk_type', 'status', 'category', 'source_domain', 'supplier_id']),
    },
  },
});

// ---------------------------------------------------------------------------- GET /risks/{id}/treatments

const listTreatments = route({
  method: 'GET',
  url: '/risks/:id/treatments',
  operationId: 'listRiskTreatments',
  scope: SCOPE,
  tag: TAG,
  summary: 'List every treatment of a risk, newest first, in one response',
  description:
    // Decision 40: an unpaged collection refuses the paging parameters.
    'Not paged: takes no query parameter, so `limit` and `cursor` are rejected with 400. ' +
    'A risk without treatments gives an empty `data` with `meta.feature_status` `not_configured`.',
  responses: {
    200: {
      description: 'The treatments.',
      schema: collectionSchema(RiskTreatment.schema, { currency: true }),
    },
  },
  async handler(ctx, { params }) {
    // One row per treatment, or a single row with j null when the risk has none; no row: no such risk here.
    const rows = await ctx.tenant.query<{ j: string | null }>(
      `select x.j from risks r
         left join lateral (
           select ${RiskTreatment.json('t', { pii: false })} as j, t.created_at, t.id from risk_treatments t
            where t.workspace_id = r.workspace_id and t.risk_id = r.id) x on true
        where r.workspace_id = $ws and r.id = $1
        order by x.created_at desc, x.id desc`,
      [params.id],
    );
    if (rows.length === 0) throw notFound('risk');
    const items = rows.flatMap((row) => (row.j === null ? [] : [row.j]));
    const meta: PageMeta =
      items.length > 0
        ? ONE_RESPONSE
        : {
            ...ONE_RESPONSE,
            featureStatus: 'not_configured',
            message: 'No treatment has been planned for this risk yet.',
          };
    return { status: 200, body: renderPage(items, meta, USD) };
  },
});

// ---------------------------------------------------------------------------------------- GET /risk-scores

const scoresQuery = Type.Object(
  {
    limit: Type.Optional(LimitParam),
    from: Type.Optional({ ...DateTime, description: 'Inclusive. Default: 90 days before `to`.' }),
    to: Type.Optional({ ...DateTime, description: 'Inclusive. Default: now.' }),
  },
  { additionalProperties: false },
);

const getRiskScores = route({
  method: 'GET',
  url: '/risk-scores',
  operationId: 'getRiskScores',
  scope: SCOPE,
  tag: TAG,
  summary: "The workspace's current risk score and its history",
  description:
    // Decisions 36 (the window's bounds are inclusive) and 40 (no cursor on an unpaged collection).
    '`data` holds exactly one element. `history` holds the points with `from` ≤ at ≤ `to`; when more fall ' +
    'in the window than `limit`, the most recent `limit` points, oldest first. Not paged: `cursor` is ' +
    'rejected, `has_more` is false and `next_cursor` null. `from` after `to` is a 400. ' +
    '`current` is the latest point at or before now, whatever the window; null when there is none, with ' +
    '`meta.feature_status` `not_configured`.',
  query: scoresQuery,
  responses: { 200: { description: 'The score series.', schema: collectionSchema(RiskScores) } },
  async handler(ctx, { query: q }) {
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
  },
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

const getRiskMatrix = route({
  method: 'GET',
  url: '/risk-matrix',
  operationId: 'getRiskMatrix',
  scope: SCOPE,
  tag: TAG,
  summary: 'Risk matrix rows of the open risks, highest score first',
  description:
    // Decisions 37 (the scope of a row), 15 (limit per scope) and 40 (no cursor), and risk-data-api.md "Limits".
    'One row per risk whose status is not `closed`; `scope` is `cyber` when its `source_domain` is `cyber`, ' +
    'else `organizational`. Rows are ordered by `score` descending, then `code`. `limit` applies per scope: ' +
    'without `scope`, up to `limit` rows of each scope, merged in that order. Not cursor-paged: `cursor` is ' +
    'rejected and `has_more` is always false; a scope that returns `limit` rows may have more, seen with a ' +
    'larger `limit` (at most 200).',
  query: Type.Object(
    {
      limit: Type.Optional({ ...LimitParam, description: 'Rows per scope, 1 to 200 (default 50).' }),
      scope: Type.Optional(StringEnum(RiskMatrixScope, 'Omit for both scopes.')),
      risk_band: Type.Optional(StringEnum(RiskBand)),
    },
    { additionalProperties: false },
  ),
  responses: {
    200: { description: 'The matrix rows.', schema: collectionSchema(RiskMatrixRow, { currency: true }) },
  },
  async handler(ctx, { query: q }) {
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
  },
});

// ----------------------------------------------------------------------------------- GET /risk-acceptances

const listAcceptances = listRoute({
  url: '/risk-acceptances',
  operationId: 'listRiskAcceptances',
  scope: SCOPE,
  tag: TAG,
  summary: 'List risk acceptance letters, newest first',
  description:
    '`valid_on=T` returns the letters in force at T: status `active` and `valid_from` ≤ T < `valid_until`.',
  currency: true,
  list: {
    resource: RiskAcceptance,
    order: { column: 'created_at', direction: 'desc' },
    filters: {
      status: { schema: StringEnum(RiskAcceptanceStatus), where: 't.status = ?' },
      valid_on: {
        schema: { ...DateTime, description: 'Letters in force at this instant.' },
        // '[)': valid_from inclusive, valid_until exclusive (a letter always ends after it starts).
        where: "(t.status = 'active' and tstzrange(t.valid_from, t.valid_until, '[)') @> ?::timestamptz)",
      },
    },
  },
});

export const risksRoutes: RouteDef[] = [
  listRisks,
  listTreatments,
  getRiskScores,
  getRiskMatrix,
  listAcceptances,
];
