// GET /action-plans, GET /action-plans/{id}/items, GET and PATCH /action-plan-items/{id}: the contracts (handlers:
// routes.ts; risk-data-api.md "Action plans"; decisions 12, 16-18, 35, 38, 40, 43).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { getOperation, listOperation, updatedSinceParam } from '../../contract/list.js';
import { apiKey, operation } from '../../contract/operation.js';
import { collectionSchema, LimitParam } from '../../schema/collection.js';
import { StringEnum, Uuid } from '../../schema/fields.js';
import { ActionPlan, ActionPlanItem, ActionPlanItemStatus, ItemStatusChange } from './schema.js';

const TAG = 'Action plans';

export const listActionPlans = listOperation({
  id: 'listActionPlans',
  path: '/action-plans',
  scope: 'action-plans:read',
  tag: TAG,
  summary: 'List action plans, newest first',
  description: 'Each plan carries `item_count`, the number of its items.',
  resource: ActionPlan,
  filters: {
    supplier_id: Uuid,
    status: Type.String({ minLength: 1, maxLength: 50, description: 'Exact match, e.g. open.' }),
  },
});

export const listActionPlanItems = operation({
  id: 'listActionPlanItems',
  method: 'GET',
  path: '/action-plans/:id/items',
  auth: apiKey('action-plans:read'),
  tag: TAG,
  summary: 'List the items of an action plan, newest first',
  description:
    'Newest first by `created_at`, then `id`. Not cursor-paged: `has_more` is true when `limit` cut rows ' +
    '(the newest are kept), `next_cursor` is always null; a larger `limit` (at most 200) shows the rest. Each ' +
    'item carries the code and title of its own control, or null. `updated_since` keeps the items created or ' +
    'changed (a status, a note) at or after the instant.',
  // No cursor parameter: the items of a plan are not cursor-paged (decision 40), so `cursor` is an unknown
  // parameter and gets 400.
  query: Type.Object(
    {
      limit: Type.Optional(LimitParam),
      status: Type.Optional(
        StringEnum(
          ActionPlanItemStatus,
          'Exact match on the stored status (`overdue` as set by the service).',
        ),
      ),
      overdue: Type.Optional(
        Type.Boolean({
          description:
            'true: due before today (UTC) and neither completed, not_applicable nor rejected; false: the others.',
        }),
      ),
      updated_since: updatedSinceParam(ActionPlanItem),
    },
    { additionalProperties: false },
  ),
  responses: {
    200: { description: 'The items of the plan.', schema: collectionSchema(ActionPlanItem.schema) },
    404: { description: 'No such action plan in this workspace.' },
  },
});

// One item by id (issue 28): a receiver of `action_plan_item.status_changed` holds the item's id.
export const getActionPlanItem = getOperation({
  id: 'getActionPlanItem',
  path: '/action-plan-items/:id',
  scope: 'action-plans:read',
  tag: TAG,
  summary: 'Get one action plan item, with its history',
  resource: ActionPlanItem,
  noun: 'action plan item',
});

export const updateActionPlanItemStatus = operation({
  id: 'updateActionPlanItemStatus',
  method: 'PATCH',
  path: '/action-plan-items/:id',
  auth: apiKey('action-plans:write'),
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
});

/** In the specification's order. */
export const actionPlansOperations = [
  listActionPlans,
  listActionPlanItems,
  getActionPlanItem,
  updateActionPlanItemStatus,
];
