// POST /admin/action-plan-items/{id}/status (management-api.md, contract in lifecycle.ts): a status change
// made by a user of the workspace in the web application. Same rules and event as the public PATCH: both call
// changeItemStatus.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { notFound, validationFailed } from '../../contract/errors.js';
import type { OperatorHandlers } from '../../http/operator.js';
import type { actionPlansLifecycle } from './lifecycle.js';
import { changeItemStatus } from './status.js';

export const actionPlansAdmin: OperatorHandlers<typeof actionPlansLifecycle> = {
  setActionPlanItemStatus: (ctx, { params: { id }, body: input }) =>
    ctx.write(
      // Item ids are unique per workspace; prefer the copy in the user's workspace should two workspaces hold
      // the same imported id.
      { table: 'action_plan_items', id, what: 'action plan item', member: input.user_id },
      async ({ tenant, events, audit }) => {
        const user = await tenant.query('select 1 from users where workspace_id = $ws and id = $1', [
          input.user_id,
        ]);
        if (user.length === 0)
          throw validationFailed({ user_id: 'is not a user of the workspace of this item' });
        const item = await changeItemStatus(
          tenant,
          events,
          id,
          { status: input.status, note: input.note ?? null, actorId: input.user_id },
          (action, target, metadata) => audit(action, target, { ...metadata, via: 'management_api' }),
        );
        if (item === null) throw notFound('action plan item');
        return item;
      },
      // Attributed to the user who made the change, like an API write to the key's creator (decision 26).
      { type: 'user', id: input.user_id },
    ),
};
