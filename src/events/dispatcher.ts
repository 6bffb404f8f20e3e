// The webhook dispatcher (decisions 21-24): runs in every process whose ROLE includes the worker, any number
// at once. It claims due attempts in a short transaction (FOR UPDATE SKIP LOCKED, so two dispatchers never
// claim the same row), sends them with no transaction open, and records each outcome in another short
// transaction that also schedules the retry. A claim is a lease: if its worker dies, the attempt becomes
// claimable again when the lease expires and is sent again (at-least-once; the event_id does not change).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { signatureHeader } from '../../sdk/src/signing.js';
import type { Metrics } from '../http/metrics.js';
import type { Db, Queryable } from '../storage/db.js';
import type { DeliveryStatus } from './delivery-status.js';
import { DELIVERY_CHANNEL } from './outbox.js';
import { nextRetryDelay } from './retry-schedule.js';
import type { AttemptOutcome, Sender } from './sender.js';

export interface DispatcherOptions {
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  /** Attempts in flight at once in this process. */
  concurrency?: number;
  /** Poll for due retries (and as a fallback for lost notifications). */
  pollIntervalMs?: number;
  /** How long past WEBHOOK_TIMEOUT a claim stays leased before another worker may take it over. */
  leaseMarginMs?: number;
  logger: Logger;
  metrics?: Pick<Metrics, 'webhookAttempts' | 'webhookLag' | 'webhookQueue'>;
}

export interface ClaimedAttempt {
  workspace_id: string;
  id: string;
  /** This claim's lease: the outcome is only recorded while the attempt still carries it. */
  claim_token: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  replay: boolean;
  /** The event's occurred_at, in epoch milliseconds (for the lag metric). */
  occurred_ms: number;
  url: string;
  payload: string;
  secrets: string[];
}

const CLAIM_SQL = `
  with due as (
    select d.workspace_id, d.id
      from webhook_deliveries d
      join webhook_endpoints e on e.workspace_id = d.workspace_id and e.id = d.endpoint_id and e.enabled
     where (d.status = 'pending' and d.attempted_at <= now())
        or (d.status = 'delivering' and d.lease_expires_at <= now())
     order by d.attempted_at, d.id
     limit $1
     for update of d skip locked)
  update webhook_deliveries d
     set status = 'delivering', attempted_at = clock_timestamp(), updated_at = clock_timestamp(),
         claim_token = $2, lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond'
    from due, events ev, webhook_endpoints e
   where d.workspace_id = due.workspace_id and d.id = due.id
     and ev.workspace_id = d.workspace_id and ev.id = d.event_id
     and e.workspace_id = d.workspace_id and e.id = d.endpoint_id
  returning d.workspace_id, d.id, d.claim_token, d.endpoint_id, d.event_id, d.event_type, d.attempt, d.replay,
            (extract(epoch from ev.occurred_at) * 1000)::float8 as occurred_ms, e.url, ev.payload,
            array_remove(array[e.signing_secret,
              case when e.previous_secret_expires_at > now() then e.previous_signing_secret end], null)
              as secrets`;

type Claim = Pick<ClaimedAttempt, 'workspace_id' | 'id' | 'claim_token' | 'attempt' | 'replay'>;

/** Ends a claimed attempt with its outcome; false when the claim had lost its lease. */
async function finish(
  q: Queryable,
  attempt: Claim,
  status: DeliveryStatus,
  outcome: AttemptOutcome,
  retryDelayMs: number | null,
): Promise<boolean> {
  const updated = await q.query(
    `update webhook_deliveries
        set status = $4, response_status = $5, response_body = $6, error = $7,
            next_retry_at = case when $8::integer is null then null
                                 else clock_timestamp() + $8 * interval '1 millisecond' end,
            claim_token = null, lease_expires_at = null, updated_at = clock_timestamp()
      where workspace_id = $1 and id = $2 and claim_token = $3 and status = 'delivering'
      returning 1`,
    [
      attempt.workspace_id,
      attempt.id,
      attempt.claim_token,
      status,
      outcome.responseStatus,
      outcome.responseBody,
      outcome.error,
      retryDelayMs,
    ],
  );
  return updated.length > 0;
}

const QUEUE_DEPTH_INTERVAL_MS = 5_000;
const QUEUE_DEPTH_SQL = `
  select case when status = 'delivering' then 'delivering'
              when attempted_at <= now() then 'due' else 'scheduled' end as state, count(*)::int as n
    from webhook_deliveries where status in ('pending', 'delivering') group by 1`;

/**
 * 2xx outcomes recorded together: those that finish within a few milliseconds of each other share one
 * statement (at hundreds of deliveries a second, one commit each would be the bottleneck).
 */
class DeliveredBatch {
  private items: { attempt: Claim; outcome: AttemptOutcome; settle: (recorded: boolean | Error) => void }[] =
    [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly maxSize: number,
    private readonly maxWaitMs = 5,
  ) {}

  /** Resolves false when the claim had lost its lease. */
  record(attempt: Claim, outcome: AttemptOutcome): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.items.push({
        attempt,
        outcome,
        settle: (result) => (result instanceof Error ? reject(result) : resolve(result)),
      });
      if (this.items.length >= this.maxSize) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.maxWaitMs);
    });
  }

  private async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.items.splice(0);
    if (batch.length === 0) return;
    try {
      const rows = await this.db.query<{ id: string }>(
        `update webhook_deliveries d
            set status = 'delivered', response_status = v.response_status, response_body = v.response_body,
                error = null, next_retry_at = null, claim_token = null, lease_expires_at = null,
                updated_at = clock_timestamp()
           from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::integer[], $5::text[])
                  as v(workspace_id, id, claim_token, response_status, response_body)
          where d.workspace_id = v.workspace_id and d.id = v.id and d.claim_token = v.claim_token
            and d.status = 'delivering'
          returning d.id`,
        [
          batch.map((item) => item.attempt.workspace_id),
          batch.map((item) => item.attempt.id),
          batch.map((item) => item.attempt.claim_token),
          batch.map((item) => item.outcome.responseStatus),
          batch.map((item) => item.outcome.responseBody),
        ],
      );
      const recorded = new Set(rows.map((row) => row.id));
      for (const item of batch) item.settle(recorded.has(item.attempt.id));
    } catch (error) {
      for (const item of batch) item.settle(error as Error);
    }
  }
}

/**
 * Records a failed attempt and, with a retry left, the next attempt, in one transaction. Returns the
 * attempt's final status, or null when this claim had lost its lease (the worker that took the attempt over
 * records it).
 */
function recordFailure(
  db: Db,
  attempt: Claim,
  outcome: AttemptOutcome,
  retryDelaysMs: readonly number[],
): Promise<DeliveryStatus | null> {
  return db.transaction(async (tx) => {
    // A manual replay is one attempt; a deleted endpoint gets no retry.
    const [endpoint] = await tx.query<{ present: boolean }>(
      `select exists (select 1 from webhook_endpoints e join webhook_deliveries d
                        on e.workspace_id = d.workspace_id and e.id = d.endpoint_id
                       where d.workspace_id = $1 and d.id = $2) as present`,
      [attempt.workspace_id, attempt.id],
    );
    const delay =
      attempt.replay || !endpoint?.present ? null : nextRetryDelay(attempt.attempt, retryDelaysMs);
    const status: DeliveryStatus = delay === null ? 'exhausted' : 'failed';
    if (!(await finish(tx, attempt, status, outcome, delay))) return null;
    if (status === 'failed') {
      await tx.query(
        `insert into webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, attempt, status, attempted_at)
         select workspace_id, gen_random_uuid(), endpoint_id, event_id, event_type, attempt + 1, 'pending', next_retry_at
           from webhook_deliveries where workspace_id = $1 and id = $2
         on conflict do nothing`,
        [attempt.workspace_id, attempt.id],
      );
    }
    return status;
  });
}

export class Dispatcher {
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;
  private woken = false;
  private backlog = false;
  private claimFailing = false;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Db,
    private readonly sender: Sender,
    private readonly options: DispatcherOptions,
  ) {
    this.concurrency = options.concurrency ?? 64;
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.leaseMs = options.timeoutMs + (options.leaseMarginMs ?? 5_000);
    this.delivered = new DeliveredBatch(db, this.concurrency);
  }

  private readonly delivered: DeliveredBatch;

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      this.unlisten = await this.db.listen(DELIVERY_CHANNEL, () => this.poke());
    } catch (error) {
      this.options.logger.warn(
        { err: (error as Error).message },
        'webhook dispatcher: LISTEN failed, polling only',
      );
    }
    this.loopDone = this.loop();
  }

  /** Wakes the loop now (a notification, or an attempt finished while the queue had more). */
  poke(): void {
    this.woken = true;
    this.wake?.();
  }

  /**
   * Stops claiming, lets attempts in flight finish for up to `graceMs`, then aborts the rest and hands them
   * back as `pending` so another worker sends them at once.
   */
  async stop(graceMs = this.options.timeoutMs): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.poke();
    await this.loopDone;
    await this.unlisten?.().catch(() => undefined);
    const pending = [...this.inFlight.values()].map((entry) => entry.done);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([Promise.all(pending), graceOver]);
    clearTimeout(timer);
    for (const entry of this.inFlight.values()) entry.abort.abort();
    await Promise.all([...this.inFlight.values()].map((entry) => entry.done));
  }

  get activeAttempts(): number {
    return this.inFlight.size;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const room = this.concurrency - this.inFlight.size;
      let claimed: ClaimedAttempt[] = [];
      if (room > 0) {
        try {
          claimed = await this.claim(room);
          if (this.claimFailing) this.options.logger.info('webhook dispatcher: claiming again');
          this.claimFailing = false;
        } catch (error) {
          // Once per incident (the database is down or restarting), not once per poll.
          if (!this.claimFailing) {
            this.options.logger.warn(
              { err: (error as Error).message },
              'webhook dispatcher: cannot claim attempts; retrying',
            );
          }
          this.claimFailing = true;
        }
        for (const attempt of claimed) this.launch(attempt);
      }
      this.backlog = room > 0 && claimed.length === room;
      if (Date.now() - this.queueMeasuredAt >= QUEUE_DEPTH_INTERVAL_MS) await this.measureQueue();
      if (this.backlog && this.running) continue;
      await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    if (this.woken || !this.running) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.pollIntervalMs);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        self.woken = false;
        resolve();
      }
      this.wake = done;
    });
  }

  private queueMeasuredAt = 0;

  private async measureQueue(): Promise<void> {
    this.queueMeasuredAt = Date.now();
    const gauge = this.options.metrics?.webhookQueue;
    if (!gauge) return;
    try {
      const rows = await this.db.query<{ state: string; n: number }>(QUEUE_DEPTH_SQL);
      for (const state of ['due', 'scheduled', 'delivering']) {
        gauge.set({ state }, rows.find((row) => row.state === state)?.n ?? 0);
      }
    } catch {
      // The claim loop reports database trouble; a stale gauge is harmless.
    }
  }

  private claim(limit: number): Promise<ClaimedAttempt[]> {
    return this.db.query<ClaimedAttempt>(CLAIM_SQL, [limit, randomUUID(), this.leaseMs]);
  }

  private launch(attempt: ClaimedAttempt): void {
    const abort = new AbortController();
    const done = this.deliver(attempt, abort.signal).finally(() => {
      this.inFlight.delete(attempt.id);
      // Claim again when half the slots are free (or none is busy), not once per finished attempt.
      if (this.inFlight.size === 0 || (this.backlog && this.inFlight.size <= this.concurrency / 2))
        this.poke();
    });
    this.inFlight.set(attempt.id, { abort, done });
  }

  private async deliver(attempt: ClaimedAttempt, signal: AbortSignal): Promise<void> {
    const body = Buffer.from(attempt.payload, 'utf8');
    // decision 28: a fresh `t` for each attempt; the body bytes never change.
    const startedMs = Date.now();
    const signature = signatureHeader(attempt.secrets, body, Math.floor(startedMs / 1000));
    const outcome = await this.sender.send(attempt.url, body, signature, signal);
    try {
      if (signal.aborted && outcome.responseStatus === null) {
        // Shut down before the receiver answered: hand the attempt back, due now, for another worker.
        await this.db.query(
          `update webhook_deliveries set status = 'pending', attempted_at = clock_timestamp(),
                  updated_at = clock_timestamp(), claim_token = null, lease_expires_at = null
            where workspace_id = $1 and id = $2 and claim_token = $3 and status = 'delivering'`,
          [attempt.workspace_id, attempt.id, attempt.claim_token],
        );
        return;
      }
      const status = outcome.delivered
        ? (await this.delivered.record(attempt, outcome))
          ? 'delivered'
          : null
        : await recordFailure(this.db, attempt, outcome, this.options.retryDelaysMs);
      const metrics = this.options.metrics;
      if (status && metrics) {
        metrics.webhookAttempts.inc({ outcome: status });
        if (attempt.attempt === 1) metrics.webhookLag.observe((startedMs - attempt.occurred_ms) / 1000);
      }
    } catch (error) {
      // The lease expires and another claim sends the attempt again: nothing is lost.
      this.options.logger.warn(
        { err: (error as Error).message, delivery_id: attempt.id },
        'webhook dispatcher: could not record an attempt; it will be retried when its lease expires',
      );
    }
  }
}
