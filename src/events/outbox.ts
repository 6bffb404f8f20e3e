// Events are recorded in the same transaction as the change that caused them (decision 23): if the change
// commits, the event exists and will be delivered; if it rolls back, the event never existed. The payload is
// serialized once, here, so every delivery attempt sends the same bytes.
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../storage/db.js';

export type EventType =
  | 'assessment.completed'
  | 'report.ready'
  | 'alert.created'
  | 'action_plan_item.status_changed';

export async function recordEvent(
  tx: Queryable,
  workspaceId: string,
  type: EventType,
  data: Record<string, unknown>,
): Promise<string> {
  const id = randomUUID();
  const [row] = await tx.query<{ occurred_at: string }>('select iso(clock_timestamp()) as occurred_at');
  const payload = JSON.stringify({
    event_id: id,
    type,
    occurred_at: row?.occurred_at,
    organization_id: workspaceId,
    data,
  });
  await tx.query(
    'insert into events (workspace_id, id, type, occurred_at, payload) values ($1, $2, $3, $4::timestamptz, $5)',
    [workspaceId, id, type, row?.occurred_at, payload],
  );
  return id;
}
