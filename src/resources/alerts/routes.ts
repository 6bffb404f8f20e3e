// The handlers of the alerts' and insights' operations (operations.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { handleGet, handleList, NEWEST_FIRST, UPDATED_SINCE_SQL } from '../../http/list.js';
import { filterConditions, renderPage, sqlParameters } from '../../http/pagination.js';
import { handle, type Route } from '../../http/route.js';
import { getAlert, listAlerts, listInsights } from './operations.js';
import { Alert, AlertScope } from './schema.js';

const alertJson = Alert.json('t', { pii: false });

const alerts = handle(listAlerts, async (ctx, { query: q }) => {
  const { values, bind } = sqlParameters();
  const filters = filterConditions(
    {
      severity: 't.severity = ?',
      unresolved: '(t.resolved_at is null) = ?::boolean',
      updated_since: UPDATED_SINCE_SQL,
    },
    q,
    bind,
  );
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
});

export const alertsRoutes: Route[] = [
  alerts,
  handleGet(getAlert),
  // decision 12: newest first by created_at, then id.
  handleList(listInsights, { order: NEWEST_FIRST }),
];
