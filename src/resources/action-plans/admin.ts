// POST /admin/action-plan-items/{id}/status (management-api.md): a status change made by a user of the
// workspace in the web application. Same rules and event as the public PATCH: both call changeItemStatus.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.

import { notFound, validationFailed } from '../../contract/errors.js';
import { recordEvent } from '../../events/outbox.js';
import { adminRoute } from '../../management/route.js';
import { recordAudit } from '../../storage/audit.js';
import { TenantDb } from '../../storage/tenant.js';
import { ActionPlanItem, AdminItemStatusChange } from './schema.js';
import { changeItemStatus } from './status.js';

export const actionPlansAdmin = {
  setActionPlanItemStatus: adminRoute({
    method: 'POST',
    url: '/action-plan-items/:id/status',
    tag: 'Lifecycle',
    summary: "Change an action plan item's status as a user of its workspace",
    description: 'Same rules and event as the public PATCH, attributed to `user_id`.',
    status: 200,
    body: AdminItemStatusChange,
    response: ActionPlanItem.schema,
    errors: [404, 409, 422],
    handler: async ({ op }, { params, body: input }) => {
      const itemId = params.id;
      return op.db.transaction(async (tx) => {
        // Item ids are unique per workspace; prefer the copy in the user's workspace should two workspaces
        // hold the same imported id.
        const [found] = await tx.query<{ workspace_id: string; user_ok: boolean }>(
          `select i.workspace_id, (u.id is not null) as user_ok
             from action_plan_items i
             left join users u on u.workspace_id = i.workspace_id and u.id = $2
            where i.id = $1
            order by user_ok desc
            limit 1`,
          [itemId, input.user_id],
        );
        if (!found) throw notFound('action plan item');
        if (!found.user_ok)
          throw validationFailed({ user_id: 'is not a user of the workspace of this item' });
        const item = await changeItemStatus(
          TenantDb.forOperator(tx, found.workspace_id),
          (type, data) => recordEvent(tx, found.workspace_id, type, data),
          itemId,
          { status: input.status, note: input.note ?? null, actorId: input.user_id },
          // Attributed to the user who made the change, like an API write to the key's creator (decision 26).
          (action, target, metadata) =>
            recordAudit(tx, {
              workspaceId: found.workspace_id,
              action,
              actorType: 'user',
              actorId: input.user_id,
              targetType: target.type,
              targetId: target.id,
              requestId: op.requestId ?? null,
              metadata: { ...metadata, via: 'management_api' },
            }),
        );
        if (item === null) throw notFound('action plan item');
        return item;
      });
    },
  }),
};
