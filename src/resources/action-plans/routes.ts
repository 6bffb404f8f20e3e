// GET /action-plans, GET /action-plans/{id}/items, PATCH /action-plan-items/{id}
// (risk-data-api.md "Action plans"; decisions 12, 16-18, 35, 38, 40, 43).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { notFound } from '../../contract/errors.js';
import { listRoute } from '../../http/list.js';
import { collectionSchema, LimitParam, renderPage } from '../../http/pagination.js';
import { type RouteDef, route } from '../../http/route.js';
import { StringEnum, Uuid } from '../../schema/fields.js';
import {
  ActionPlan,
  ActionPlanItem,
  ActionPlanItemStatus,
  FINISHED_ITEM_STATUSES,
  ItemStatusChange,
} from './schema.js';
import { changeItemStatus } from './status.js';

const TAG = 'Action plans';

const listActionPlans = listRoute({
  url: '/action-plans',
  operationId: 'listActionPlans',
  scope: 'action-plans:read',
  tag: TAG,
  summary: 'List action plans, newest first',
  description: 'Each plan carries `item_count`, the number of its items.',
  list: {
    resource: ActionPlan,
    // decision 12: newest first by created_at, then id.
    order: { column: 'created_at', direction: 'desc' },
    filters: {
      supplier_id: { schema: Uuid, where: 't.supplier_id = ?::uuid' },
      status: {
        schema: Type.String({ minLength: 1, maxLength: 50, description: 'Exact match, e.g. open.' }),
        where: 't.status = ?',
      },
    },
  },
});

/**
 * Overdue (decision 18): due before today in UTC and not finished. Never null (an item without a due date
 * is not overdue), so `overdue=false` is exactly its complement (decision 35).
 */
const OVERDUE_SQL = `(t.due_date is not null and t.due_date < (now() at time zone 'UTC')::date
  and t.status not in (${FINISHED_ITEM_STATUSES.map((status) => `'${status}'`).join(', ')}))`;

// No cursor parameter: the items of a plan are not cursor-paged (decision 40), so `cursor` is an unknown
// parameter and gets 400.
const ItemsQuery = Type.Object(
  {
    limit: Type.Optional(LimitParam),
    status: Type.Optional(
      StringEnum(ActionPlanItemStatus, 'Exact match on the stored status (`overdue` as set by the service).'),
    ),
    overdue: Type.Optional(
      Type.Boolean({
        description:
          'true: due before today (UTC) and neither completed, not_applicable nor rejected; false: the others.',
      }),
    ),
  },
  { additionalProperties: false },
);

const itemsPage = collectionSchema(ActionPlanItem.schema);

const listActionPlanItems = route({
  method: 'GET',
  url: '/action-plans/:id/items',
  operationId: 'listActionPlanItems',
  scope: 'action-plans:read',
  tag: TAG,
  summary: 'List the items of an action plan, newest first',
  description:
    'Newest first by `created_at`, then `id`. Not cursor-paged: `has_more` is true when `limit` cut rows ' +
    '(the newest are kept), `next_cursor` is always null; a larger `limit` (at most 200) shows the rest. Each ' +
    'item carries the code and title of its own control, or null.',
  query: ItemsQuery,
  responses: {
    200: { description: 'The items of the plan.', schema: itemsPage },
    404: { description: 'No such action plan in this workspace.' },
  },
  async handler(ctx, { params, query: q }) {
    const values: unknown[] = [params.id];
    const where = ['t.workspace_id = $ws', 't.action_plan_id = p.id'];
    if (q.status !== undefined) {
      values.push(q.status);
      where.push(`t.status = $${values.length}`);
    }
    if (q.overdue !== undefined) {
      values.push(q.overdue);
      where.push(`${OVERDUE_SQL} = $${values.length}::boolean`);
    }
    values.push(q.limit + 1);
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
          limit $${values.length}
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
  },
});

const patchActionPlanItem = route({
  method: 'PATCH',
  url: '/action-plan-items/:id',
  operationId: 'updateActionPlanItemStatus',
  scope: 'action-plans:write',
  tag: TAG,
  summary: 'Change the status of an action plan item',
  description:
    'Accepted statuses: pending, in_progress, completed, not_applicable, rejected (`overdue` is set by the ' +
    'service: 422). Any accepted status may follow any other. An actual change is attributed to the human ' +
    'who created the key, appended to `history` with the note, and emits `action_plan_item.status_changed`; ' +
    '`completed_at` is set on entering `completed` and cleared on leaving it. The same status returns 200, ' +
    'adds the note (if any) to the history and emits nothing.',
  body: ItemStatusChange,
  responses: {
    200: { description: 'The updated item.', schema: ActionPlanItem.schema },
    404: { description: 'No such item in this workspace.' },
    422: { description: 'Invalid status or note.' },
  },
  async handler(ctx, { params, body: input }) {
    const item = await changeItemStatus(
      ctx.tenant,
      ctx.events,
      params.id,
      { status: input.status, note: input.note ?? null, actorId: ctx.key.createdBy },
      ctx.audit,
    );
    if (item === null) throw notFound('action plan item');
    return { status: 200, body: item };
  },
});

export const actionPlansRoutes: RouteDef[] = [listActionPlans, listActionPlanItems, patchActionPlanItem];
