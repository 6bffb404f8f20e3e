// The action-plan items' lifecycle action on the management listener (management-api.md): a status change
// made by a user of the workspace in the web application. Contract only; the handler is admin.ts.
import { operation, operator } from '../../contract/operation.js';
import { INVALID_FIELD, NO_RECORD, ok, REFUSED } from '../../contract/operator.js';
import { ActionPlanItem, AdminItemStatusChange } from './schema.js';

export const setActionPlanItemStatus = operation({
  id: 'setActionPlanItemStatus',
  method: 'POST',
  path: '/action-plan-items/:id/status',
  auth: operator(),
  tag: 'Lifecycle',
  summary: "Change an action plan item's status as a user of its workspace",
  description: 'Same rules and event as the public PATCH, attributed to `user_id`.',
  body: AdminItemStatusChange,
  responses: { 200: ok(ActionPlanItem.schema), 404: NO_RECORD, 409: REFUSED, 422: INVALID_FIELD },
});

export const actionPlansLifecycle = { setActionPlanItemStatus };
