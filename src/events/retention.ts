// EVENT_RETENTION (P175): the worker deletes events older than the retention, with their delivery attempts (and
// the sinks' delivery log rows of that age, P214), in
// small batches, so that no statement holds many locks or runs long and the dispatchers' claims are never kept
// waiting. Inside the window nothing changes: every event stays in GET /v1/events and every attempt in the
// delivery log. Any number of workers may prune at once: each batch locks the events it deletes (SKIP LOCKED).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { Logger } from 'pino';
import type { Db } from '../storage/db.js';

/** Events one statement deletes. */
export const PRUNE_BATCH = 500;
/** How often a worker looks for expired events. */
export const PRUNE_INTERVAL_MS = 600_000;

// One batch: the oldest expired events (any workspace), their attempts, then the events, in one statement
// (one transaction). The attempts go first: each references its event.
const PRUNE_SQL = `
  with expired as (
    select workspace_id, id from events
     where occurred_at < clock_timestamp() - $1 * interval '1 millisecond'
     order by occurred_at
     limit $2
     for update skip locked),
  attempts as (
    delete from webhook_deliveries d using expired x
     where d.workspace_id = x.workspace_id and d.event_id = x.id
    returning 1),
  gone as (
    delete from events e using expired x
     where e.workspace_id = x.workspace_id and e.id = x.id
    returning 1)
  select (select count(*) from gone)::int as events, (select count(*) from attempts)::int as attempts`;

// The sinks' delivery log (migration 0022) is kept as long as the events: the oldest rows, a batch a statement.
const PRUNE_SINK_DELIVERIES_SQL = `
  with expired as (
    select workspace_id, id from sink_deliveries
     where created_at < clock_timestamp() - $1 * interval '1 millisecond'
     order by created_at
     limit $2
     for update skip locked)
  delete from sink_deliveries d using expired x
   where d.workspace_id = x.workspace_id and d.id = x.id
  returning 1`;

/** Deletes the sinks' delivery log rows older than `retentionMs`, `batch` a statement; returns how many. */
export async function pruneSinkDeliveries(
  db: Db,
  retentionMs: number,
  options: { batch?: number; signal?: AbortSignal } = {},
): Promise<number> {
  const batch = options.batch ?? PRUNE_BATCH;
  let total = 0;
  while (!options.signal?.aborted) {
    const deleted = (await db.query(PRUNE_SINK_DELIVERIES_SQL, [retentionMs, batch])).length;
    total += deleted;
    if (deleted < batch) break;
  }
  return total;
}

export interface Pruned {
  events: number;
  attempts: number;
}

/**
 * Deletes the events older than `retentionMs` and their delivery attempts, `batch` events a statement, until
 * none is left or `signal` aborts. Returns what was deleted.
 */
export async function pruneEvents(
  db: Db,
  retentionMs: number,
  options: { batch?: number; signal?: AbortSignal } = {},
): Promise<Pruned> {
  const batch = options.batch ?? PRUNE_BATCH;
  const total: Pruned = { events: 0, attempts: 0 };
  while (!options.signal?.aborted) {
    // A statement of its own: a transaction per batch, so the locks of one batch end with it.
    const [row] = await db.query<Pruned>(PRUNE_SQL, [retentionMs, batch]);
    total.events += row?.events ?? 0;
    total.attempts += row?.attempts ?? 0;
    if ((row?.events ?? 0) < batch) break;
  }
  return total;
}

/** Prunes now and every PRUNE_INTERVAL_MS until stopped; failures are logged and retried at the next turn. */
export function startEventPruner(
  db: Db,
  retentionMs: number,
  logger: Logger,
  intervalMs = PRUNE_INTERVAL_MS,
): { stop: () => Promise<void> } {
  const abort = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  const turn = () => {
    running = Promise.all([
      pruneEvents(db, retentionMs, { signal: abort.signal }),
      pruneSinkDeliveries(db, retentionMs, { signal: abort.signal }),
    ]).then(
      ([pruned, sinkDeliveries]) => {
        if (pruned.events > 0 || sinkDeliveries > 0)
          logger.info(
            { ...pruned, sink_deliveries: sinkDeliveries },
            'expired events deleted (EVENT_RETENTION)',
          );
      },
      (error: Error) => {
        if (!abort.signal.aborted) logger.warn({ err: error.message }, 'pruning expired events failed');
      },
    );
  };
  turn();
  const timer = setInterval(turn, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      abort.abort();
      await running;
    },
  };
}
