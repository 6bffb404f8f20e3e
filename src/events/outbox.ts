// Events are recorded in the same transaction as the change that caused them (decision 23): if the change
// commits, the event exists and will be delivered; if it rolls back, the event never existed. Every event is
// stored, also one that no endpoint subscribes to: GET /v1/events serves them all (P172). The payload is
// serialized once, here, so every delivery attempt sends the same bytes. The fan-out happens here too: one
// `pending` first attempt per endpoint that is enabled and subscribed at this moment, and a notification
// (delivered by PostgreSQL at commit) wakes the dispatchers.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import type { EventData, EventType } from '../contract/events.js';
import type { Queryable } from '../storage/db.js';

/** LISTEN/NOTIFY channel that tells dispatchers new attempts are due. */
export const DELIVERY_CHANNEL = 'tprm_webhook_attempts';

/** Records an event of the caller's workspace in the caller's write transaction (bound by the pipeline). */
export type EventRecorder = <T extends EventType>(type: T, data: EventData<T>) => Promise<string>;

/**
 * Stores an event and its payload, serialized once. A test event (P81) is stored the same way, marked, for
 * the one delivery its caller schedules: it is never fanned out.
 */
export async function storeEvent<T extends EventType>(
  tx: Queryable,
  workspaceId: string,
  type: T,
  data: EventData<T>,
  options: { test?: boolean } = {},
): Promise<{ id: string; occurredAt: string }> {
  const id = randomUUID();
  // An event of the log is stamped through the workspace's audit head, locked until commit (migration 0020,
  // P173): strictly after the workspace's last event, so GET /v1/events's order is commit order and a stored
  // cursor never passes an event that commits later. A test event is not in the log and takes no lock.
  const [row] = await tx.query<{ occurred_at: string }>(
    options.test
      ? 'select iso(clock_timestamp()) as occurred_at'
      : `update audit_heads
            set events_at = greatest(clock_timestamp(), events_at + interval '1 microsecond')
          where workspace_id = $1
        returning iso(events_at) as occurred_at`,
    options.test ? [] : [workspaceId],
  );
  if (!row) throw new Error(`Workspace ${workspaceId} has no audit chain head`);
  const occurredAt = row.occurred_at;
  const payload = JSON.stringify({
    event_id: id,
    type,
    occurred_at: occurredAt,
    organization_id: workspaceId,
    data,
  });
  await tx.query(
    'insert into events (workspace_id, id, type, occurred_at, payload, test) values ($1, $2, $3, $4::timestamptz, $5, $6)',
    [workspaceId, id, type, occurredAt, payload, options.test ?? false],
  );
  return { id, occurredAt };
}

export async function recordEvent<T extends EventType>(
  tx: Queryable,
  workspaceId: string,
  type: T,
  data: EventData<T>,
): Promise<string> {
  const { id, occurredAt } = await storeEvent(tx, workspaceId, type, data);
  // The endpoints are read, not locked: one disabled by a transaction that commits after this statement read
  // it still gets the attempt, which waits with its others until it is enabled again (P108). A lock would
  // make every write wait on the dispatcher's failures, and could deadlock with the audit entries both write.
  await tx.query(
    `with attempts as (
       insert into webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, attempt, status, attempted_at)
       select e.workspace_id, gen_random_uuid(), e.id, $2, $3, 1, 'pending', $4::timestamptz
         from webhook_endpoints e
        where e.workspace_id = $1 and e.enabled and $3 = any (e.events)
       returning 1)
     select pg_notify($5, '') from (select count(*) as n from attempts) fanned where n > 0`,
    [workspaceId, id, type, occurredAt, DELIVERY_CHANNEL],
  );
  return id;
}
