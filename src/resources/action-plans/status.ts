// The one implementation of an action plan item status change, shared by PATCH /action-plan-items/{id}
// (risk-data-api.md "States and transitions") and POST /admin/action-plan-items/{id}/status
// (management-api.md: "same rules and event as the public PATCH"). Decisions 16, 17, 25, 26 and 43:
//   - any accepted status may follow any other;
//   - an actual change appends a history entry, sets `completed_at` on entering `completed` (clears it on
//     leaving), records `action_plan_item.status_changed` and an audit entry, all in the caller's transaction;
//   - the same status appends a history entry only when the request carries a note, and emits only the opt-in
//     `action_plan_item.note_added` (P177).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { EventRecorder } from '../../events/outbox.js';
import type { AuditAction } from '../../storage/audit.js';
import type { TenantDb } from '../../storage/tenant.js';
import { ActionPlanItem, type ActionPlanItemStatus } from './schema.js';

type ItemStatus = (typeof ActionPlanItemStatus)[number];

export interface StatusChange {
  status: ItemStatus;
  note: string | null;
  /** The human the change is attributed to (the key's creator, or the admin request's user_id). */
  actorId: string;
}

export type AuditWriter = (
  action: AuditAction,
  target: { type: string; id: string },
  metadata: Record<string, unknown>,
) => Promise<void>;

const itemJson = ActionPlanItem.json('t', { pii: false });

/**
 * Applies `change` to the item in the transaction `tenant` and `events` are bound to.
 * Returns the item as JSON text, or null when the workspace has no such item.
 */
export async function changeItemStatus(
  tenant: TenantDb,
  events: EventRecorder,
  itemId: string,
  change: StatusChange,
  audit: AuditWriter,
): Promise<string | null> {
  // The row lock serializes concurrent changes of one item, so previous_status is the status really left.
  const [current] = await tenant.query<{ status: ItemStatus; action_plan_id: string; j: string }>(
    `select t.status, t.action_plan_id, ${itemJson} as j from action_plan_items t
      where t.workspace_id = $ws and t.id = $1 for update`,
    [itemId],
  );
  if (!current) return null;
  const changed = current.status !== change.status;
  if (!changed && change.note === null) return current.j;

  // clock_timestamp() is read after the lock, so history stays in time order under concurrent changes.
  const [updated] = await tenant.query<{ j: string }>(
    `with c as (select clock_timestamp() as at)
     update action_plan_items t
        set status = $2,
            completed_at = case when $2 <> 'completed' then null
                                when t.status = 'completed' then t.completed_at
                                else c.at end,
            history = t.history || jsonb_build_array(jsonb_build_object(
              'at', iso(c.at), 'from_status', t.status, 'to_status', $2::text,
              'note', $3::text, 'actor_id', $4::uuid)),
            updated_at = c.at
       from c
      where t.workspace_id = $ws and t.id = $1
  returning ${itemJson} as j`,
    [itemId, change.status, change.note, change.actorId],
  );
  const target = { type: 'action_plan_item', id: itemId };
  if (changed) {
    const transition = {
      action_plan_id: current.action_plan_id,
      previous_status: current.status,
      status: change.status,
    };
    // decision 25: data {action_plan_item_id, action_plan_id, previous_status, status}.
    await events('action_plan_item.status_changed', {
      action_plan_item_id: itemId,
      ...transition,
    });
    // The note itself stays in the item's history: free text is for action_plans:read, not audit:read (P72).
    await audit('action_plan_item.status_changed', target, transition);
  } else {
    // Same status with a note: the history changed, so the write is audited, but nothing is emitted.
    await audit('action_plan_item.note_added', target, {
      action_plan_id: current.action_plan_id,
      status: current.status,
    });
    // Opt-in (P177); the note itself is not in the payload (free text stays with action_plans:read).
    await events('action_plan_item.note_added', {
      action_plan_item_id: itemId,
      action_plan_id: current.action_plan_id,
      status: current.status,
    });
  }
  return updated?.j ?? null;
}
