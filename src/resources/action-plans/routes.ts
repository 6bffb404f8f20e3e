// The handlers of the action plans' operations (operations.ts; risk-data-api.md "Action plans").
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { notFound } from '../../contract/errors.js';
import { handleGet, handleList, NEWEST_FIRST, UPDATED_SINCE_SQL } from '../../http/list.js';
import { filterConditions, renderPage, sqlParameters } from '../../http/pagination.js';
import { handle, type Route } from '../../http/route.js';
import {
  getActionPlanItem,
  listActionPlanItems,
  listActionPlans,
  updateActionPlanItemStatus,
} from './operations.js';
import { ActionPlanItem, FINISHED_ITEM_STATUSES } from './schema.js';
import { changeItemStatus } from './status.js';

/**
 * Overdue (decision 18): due before today in UTC and not finished. Never null (an item without a due date
 * is not overdue), so `overdue=false` is exactly its complement (decision 35).
 */
const OVERDUE_SQL = `(t.due_date is not null and t.due_date < (now() at time zone 'UTC')::date
  and t.status not in (${FINISHED_ITEM_STATUSES.map((status) => `'${status}'`).join(', ')}))`;

const planItems = handle(listActionPlanItems, async (ctx, { params, query: q }) => {
  const { values, bind } = sqlParameters([params.id]);
  const where = [
    't.workspace_id = $ws',
    't.action_plan_id = p.id',
    ...filterConditions(
      { status: 't.status = ?', overdue: `${OVERDUE_SQL} = ?::boolean`, updated_since: UPDATED_SINCE_SQL },
      q,
      bind,
    ),
  ];
  // One round trip: the plan row always comes back when the plan exists (j null when it has no item
  // matching), so a missing plan (404) and an empty plan (200, empty data) are told apart.
  // Decision 12: newest first by created_at, then id (index action_plan_items_plan_newest).
  const rows = await ctx.tenant.query<{ j: string | null }>(
    `select x.j from action_plans p
       left join lateral (
         select t.created_at, t.id, ${ActionPlanItem.json('t', { pii: false })} as j
           from action_plan_items t
          where ${where.join(' and ')}
          order by t.created_at desc, t.id desc
          limit ${bind(q.limit + 1)}
       ) x on true
       where p.workspace_id = $ws and p.id = $1
       order by x.created_at desc, x.id desc`,
    values,
  );
  if (rows.length === 0) throw notFound('action plan');
  const items = rows.flatMap((row) => (row.j === null ? [] : [row.j]));
  const hasMore = items.length > q.limit;
  return {
    status: 200,
    body: renderPage(hasMore ? items.slice(0, q.limit) : items, { hasMore, nextCursor: null }),
  };
});

const updateStatus = handle(updateActionPlanItemStatus, async (ctx, { params, body: input }) => {
  const item = await changeItemStatus(
    ctx.tenant,
    ctx.events,
    params.id,
    { status: input.status, note: input.note ?? null, actorId: ctx.key.createdBy },
    ctx.audit,
  );
  if (item === null) throw notFound('action plan item');
  return { status: 200, body: item };
});

export const actionPlansRoutes: Route[] = [
  handleList(listActionPlans, {
    // decision 12: newest first by created_at, then id.
    order: NEWEST_FIRST,
    where: { supplier_id: 't.supplier_id = ?::uuid', status: 't.status = ?' },
  }),
  planItems,
  handleGet(getActionPlanItem),
  updateStatus,
];
