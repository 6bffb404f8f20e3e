// GET /alerts and GET /insights (risk-data-api.md "Alerts and insights", "Limits"; decisions 12, 15, 35,
// 38, 40).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { fieldFilters, listRoute } from '../../http/list.js';
import { collectionSchema, renderPage } from '../../http/pagination.js';
import { type RouteDef, route } from '../../http/route.js';
import { StringEnum } from '../../schema/fields.js';
import { Alert, AlertRow, AlertScope, AlertSeverity, Insight } from './schema.js';

const TAG = 'Alerts and insights';

// No cursor parameter: /alerts is not cursor-paged (decision 40), so `cursor` is an unknown parameter (400).
const AlertsQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 200,
        default: 50,
        description: 'Rows per scope, 1 to 200 (default 50). Above 200 is rejected.',
      }),
    ),
    scope: Type.Optional(StringEnum(AlertScope, 'Omit for both scopes.')),
    severity: Type.Optional(StringEnum(AlertSeverity)),
    unresolved: Type.Optional(
      Type.Boolean({ description: 'true: alerts not resolved (resolved_at null); false: resolved alerts.' }),
    ),
  },
  { additionalProperties: false },
);

const alertsPage = collectionSchema(AlertRow);

const alertJson = Alert.json('t', { pii: false });

const listAlerts = route({
  method: 'GET',
  url: '/alerts',
  operationId: 'listAlerts',
  scope: 'alerts:read',
  tag: TAG,
  summary: 'List alerts, newest first (not cursor-paged)',
  description:
    '`limit` applies per scope: without `scope`, up to `limit` supplier alerts and up to `limit` org alerts, ' +
    'merged newest first (so up to twice `limit` rows). One response: `has_more` is always false and ' +
    '`next_cursor` null, even when `limit` left older alerts out.',
  query: AlertsQuery,
  responses: { 200: { description: 'The alerts.', schema: alertsPage } },
  async handler(ctx, { query: q }) {
    const values: unknown[] = [];
    const bind = (value: unknown) => {
      values.push(value);
      return `$${values.length}`;
    };
    const filters: string[] = [];
    if (q.severity !== undefined) filters.push(`t.severity = ${bind(q.severity)}`);
    if (q.unresolved !== undefined) filters.push(`(t.resolved_at is null) = ${bind(q.unresolved)}::boolean`);
    const limit = bind(q.limit);
    // One branch per scope, each newest first and cut at `limit` (decision 15), merged in one round trip.
    const branches = (q.scope ? [q.scope] : AlertScope).map(
      (scope) => `(select t.created_at, t.id, ${alertJson} as j from alerts t
         where ${['t.workspace_id = $ws', `t.scope = ${bind(scope)}`, ...filters].join(' and ')}
         order by t.created_at desc, t.id desc limit ${limit})`,
    );
    const rows = await ctx.tenant.query<{ j: string }>(
      `select u.j from (${branches.join(' union all ')}) u order by u.created_at desc, u.id desc`,
      values,
    );
    // risk-data-api.md "Limits": not cursor-paged, one response, has_more false.
    return {
      status: 200,
      body: renderPage(
        rows.map((row) => row.j),
        { hasMore: false, nextCursor: null },
      ),
    };
  },
});

const listInsights = listRoute({
  url: '/insights',
  operationId: 'listInsights',
  scope: 'alerts:read',
  tag: TAG,
  summary: 'List insights, newest first',
  list: {
    resource: Insight,
    // decision 12: newest first by created_at, then id.
    order: { column: 'created_at', direction: 'desc' },
    filters: {
      ...fieldFilters(Insight, ['category', 'severity']),
    },
  },
});

export const alertsRoutes: RouteDef[] = [listAlerts, listInsights];
