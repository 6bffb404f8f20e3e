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
 * The stamp of an event (its `occurred_at`), as a one-row CTE `stamp (at)`. An event of the log is stamped through
 * the workspace's audit head, locked until commit (migration 0020, P173): strictly after the workspace's last
 * event, so GET /v1/events's order is commit order and a stored cursor never passes an event that commits later.
 * A test event is not in the log and takes no lock.
 */
const STAMP = {
  logged: `update audit_heads
              set events_at = greatest(clock_timestamp(), events_at + interval '1 microsecond')
            where workspace_id = $1
          returning events_at as at`,
  test: 'select clock_timestamp() as at',
};

/**
 * The endpoints enabled and subscribed to the event's type at this moment, as a one-row CTE `subscribed (ids)`.
 * They are read, not locked: one disabled by a transaction that commits after this statement read it still gets
 * the attempt, which waits with its others until it is enabled again (P108). A lock would make every write wait
 * on the dispatcher's failures, and could deadlock with the audit entries both write.
 */
const SUBSCRIBED = `subscribed as (
    select coalesce(array_agg(e.id), '{}') as ids from webhook_endpoints e
     where e.workspace_id = $1 and e.enabled and $3 = any (e.events))`;

/**
 * The fan-out: one `pending` first attempt per endpoint the event's statement found subscribed, and a
 * notification (delivered by PostgreSQL at commit) that wakes the dispatchers. A statement of its own, run only
 * when there is an endpoint: an INSERT in the event's statement cost every event about 120,000 instructions (8 %
 * of a POST /suppliers) even when it inserted nothing (P229).
 */
const FAN_OUT = `with attempts as (
    insert into webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, attempt, status, attempted_at)
    select $1, gen_random_uuid(), endpoint_id, $2, $3, 1, 'pending', $4::timestamptz
      from unnest($5::uuid[]) as endpoint_id
    returning 1)
  select pg_notify($6, '') from (select count(*) as n from attempts) fanned where n > 0`;

/** A stand-in for the instant while the payload is serialized: PostgreSQL writes the instant in its place. */
const INSTANT = '\u0000occurred_at';
const INSTANT_JSON = JSON.stringify(INSTANT);

/**
 * Stamps and stores an event in one statement, which also reads the endpoints subscribed to it when `fanOut`, so
 * a write that records one pays one statement, sent in its pipeline (P229). The payload is serialized here around
 * its instant, which PostgreSQL writes in (the same text `iso` gives everywhere), so every delivery attempt sends
 * the same bytes.
 */
async function writeEvent<T extends EventType>(
  tx: Queryable,
  workspaceId: string,
  type: T,
  data: EventData<T>,
  options: { test: boolean; fanOut: boolean },
): Promise<{ id: string; occurredAt: string }> {
  const id = randomUUID();
  const payload = JSON.stringify({
    event_id: id,
    type,
    occurred_at: INSTANT,
    organization_id: workspaceId,
    data,
  });
  // The first occurrence is the instant's: only `event_id` (a uuid) and `type` come before it.
  const at = payload.indexOf(INSTANT_JSON);
  const [row] = await tx.query<{ occurred_at: string; subscribed: string[] | null }>(
    `with stamp as materialized (${options.test ? STAMP.test : STAMP.logged}),
     event as (
       insert into events (workspace_id, id, type, occurred_at, payload, test)
       select $1::uuid, $2::uuid, $3::text, stamp.at, $4::text || '"' || iso(stamp.at) || '"' || $5::text, $6::boolean from stamp
       returning occurred_at)
     ${options.fanOut ? `, ${SUBSCRIBED}` : ''}
     select iso(event.occurred_at) as occurred_at, ${options.fanOut ? 'subscribed.ids::text[]' : 'null'} as subscribed
       from event${options.fanOut ? ', subscribed' : ''}`,
    [workspaceId, id, type, payload.slice(0, at), payload.slice(at + INSTANT_JSON.length), options.test],
  );
  if (!row) throw new Error(`Workspace ${workspaceId} has no audit chain head`);
  if (row.subscribed?.length)
    await tx.query(FAN_OUT, [workspaceId, id, type, row.occurred_at, row.subscribed, DELIVERY_CHANNEL]);
  return { id, occurredAt: row.occurred_at };
}

/**
 * Stores an event and its payload, serialized once, without fanning it out. A test event (P81) is stored the
 * same way, marked, for the one delivery its caller schedules.
 */
export function storeEvent<T extends EventType>(
  tx: Queryable,
  workspaceId: string,
  type: T,
  data: EventData<T>,
  options: { test?: boolean } = {},
): Promise<{ id: string; occurredAt: string }> {
  return writeEvent(tx, workspaceId, type, data, { test: options.test ?? false, fanOut: false });
}

/** Records an event of the log and fans it out to the endpoints subscribed to its type; gives its id. */
export async function recordEvent<T extends EventType>(
  tx: Queryable,
  workspaceId: string,
  type: T,
  data: EventData<T>,
): Promise<string> {
  return (await writeEvent(tx, workspaceId, type, data, { test: false, fanOut: true })).id;
}
