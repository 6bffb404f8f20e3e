// The webhook dispatcher (decisions 21-24): runs in every process whose ROLE includes the worker, any number
// at once. It claims due attempts in a short transaction (FOR UPDATE SKIP LOCKED, so two dispatchers never
// claim the same row), sends them with no transaction open, and records each outcome in another short
// transaction that also schedules the retry. A claim is a lease: if its worker dies, the attempt becomes
// claimable again when the lease expires and is sent again (at-least-once; the event_id does not change).
// Recording an outcome also keeps the endpoint's failing state, which disables an endpoint whose attempts have
// all failed for WEBHOOK_DISABLE_AFTER (P83), and logs and counts the attempt (P82).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { signatureHeader } from '../../sdk/src/signing.js';
import type { Metrics } from '../http/metrics.js';
import type { DeliveryStatus } from '../schema/fields.js';
import { recordAudit } from '../storage/audit.js';
import type { Db, Queryable } from '../storage/db.js';
import { type ClaimIncident, claimIncident } from './claim-incident.js';
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
  /** WEBHOOK_DISABLE_AFTER: an endpoint failing for this long is disabled; 0 never disables (P83). */
  disableAfterMs?: number;
  logger: Logger;
  metrics?: Pick<
    Metrics,
    'webhookAttempts' | 'webhookAttemptDuration' | 'webhookDisabled' | 'webhookLag' | 'webhookQueue'
  >;
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
  /** A test event (P81): one attempt, never counted, no effect on the endpoint's failing state. */
  test: boolean;
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
            ev.test, (extract(epoch from ev.occurred_at) * 1000)::float8 as occurred_ms, e.url, ev.payload,
            array_remove(array[e.signing_secret,
              case when e.previous_secret_expires_at > now() then e.previous_signing_secret end], null)
              as secrets`;

type Claim = Pick<
  ClaimedAttempt,
  'workspace_id' | 'id' | 'claim_token' | 'endpoint_id' | 'event_id' | 'attempt' | 'replay' | 'test'
>;

/** What the receiver did and how long the attempt took, from the start of the request to its outcome. */
type Result = AttemptOutcome & { durationMs: number };

/** Ends a claimed attempt with its outcome; false when the claim had lost its lease. */
async function finish(
  q: Queryable,
  attempt: Claim,
  status: DeliveryStatus,
  result: Result,
  retryDelayMs: number | null,
): Promise<boolean> {
  const updated = await q.query(
    `update webhook_deliveries
        set status = $4, response_status = $5, response_body = $6, error = $7,
            next_retry_at = case when $8::integer is null then null
                                 else clock_timestamp() + $8 * interval '1 millisecond' end,
            duration_ms = $9, claim_token = null, lease_expires_at = null, updated_at = clock_timestamp()
      where workspace_id = $1 and id = $2 and claim_token = $3 and status = 'delivering'
      returning 1`,
    [
      attempt.workspace_id,
      attempt.id,
      attempt.claim_token,
      status,
      result.responseStatus,
      result.responseBody,
      result.error,
      retryDelayMs,
      result.durationMs,
    ],
  );
  return updated.length > 0;
}

/**
 * A replay's outcome is known: the event's earlier `exhausted` attempt to this endpoint becomes `failed`, so
 * that `exhausted` marks only an event's latest attempt, and none once a replay delivered it (P84).
 */
const SUPERSEDE_EXHAUSTED = `
  update webhook_deliveries p set status = 'failed', updated_at = clock_timestamp()
    from done
   where done.replay and p.workspace_id = done.workspace_id and p.endpoint_id = done.endpoint_id
     and p.event_id = done.event_id and p.attempt < done.attempt and p.status = 'exhausted'`;

const QUEUE_DEPTH_INTERVAL_MS = 5_000;
/** The states of the queue gauge: a pending attempt of a disabled endpoint waits for it, it is not late (P108). */
const QUEUE_STATES = ['due', 'scheduled', 'paused', 'delivering'] as const;
const QUEUE_DEPTH_SQL = `
  select case when d.status = 'delivering' then 'delivering'
              when not e.enabled then 'paused'
              when d.attempted_at <= now() then 'due' else 'scheduled' end as state, count(*)::int as n
    from webhook_deliveries d
    left join webhook_endpoints e on e.workspace_id = d.workspace_id and e.id = d.endpoint_id
   where d.status in ('pending', 'delivering') group by 1`;

/**
 * 2xx outcomes recorded together: those that finish within a few milliseconds of each other share one
 * statement (at hundreds of deliveries a second, one commit each would be the bottleneck).
 */
class DeliveredBatch {
  private items: { attempt: Claim; result: Result; settle: (recorded: boolean | Error) => void }[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Db,
    private readonly maxSize: number,
    private readonly maxWaitMs = 5,
  ) {}

  /** Resolves false when the claim had lost its lease. */
  record(attempt: Claim, result: Result): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.items.push({
        attempt,
        result,
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
      // One statement: the attempts, their endpoints' failing state (a delivery ends a run of failures,
      // P83; a test's does not) and the attempts a delivered replay supersedes (P84).
      const rows = await this.db.query<{ id: string }>(
        `with done as (
           update webhook_deliveries d
              set status = 'delivered', response_status = v.response_status, response_body = v.response_body,
                  error = null, next_retry_at = null, duration_ms = v.duration_ms, claim_token = null,
                  lease_expires_at = null, updated_at = clock_timestamp()
             from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::integer[], $5::text[], $6::integer[],
                         $7::boolean[])
                    as v(workspace_id, id, claim_token, response_status, response_body, duration_ms, test)
            where d.workspace_id = v.workspace_id and d.id = v.id and d.claim_token = v.claim_token
              and d.status = 'delivering'
            returning d.workspace_id, d.id, d.endpoint_id, d.event_id, d.attempt, d.replay, v.test),
         healthy as (
           update webhook_endpoints e set failing_since = null
             from done
            where not done.test and e.workspace_id = done.workspace_id and e.id = done.endpoint_id
              and e.failing_since is not null),
         superseded as (${SUPERSEDE_EXHAUSTED})
         select id from done`,
        [
          batch.map((item) => item.attempt.workspace_id),
          batch.map((item) => item.attempt.id),
          batch.map((item) => item.attempt.claim_token),
          batch.map((item) => item.result.responseStatus),
          batch.map((item) => item.result.responseBody),
          batch.map((item) => item.result.durationMs),
          batch.map((item) => item.attempt.test),
        ],
      );
      const recorded = new Set(rows.map((row) => row.id));
      for (const item of batch) item.settle(recorded.has(item.attempt.id));
    } catch (error) {
      for (const item of batch) item.settle(error as Error);
    }
  }
}

/** A failed attempt as recorded: its final status, and the endpoint's run of failures if it was disabled. */
interface Failure {
  status: DeliveryStatus;
  /** When the endpoint's failures began, if this failure disabled it (P83). */
  disabledFailingSince: string | null;
}

/**
 * Records a failed attempt and, with a retry left, the next attempt, in one transaction, with the endpoint's
 * failing state: the first failure of a run marks when it began, and a failure `disableAfterMs` or more
 * after that disables the endpoint (P83). Null when this claim had lost its lease (the worker that took the
 * attempt over records it).
 */
function recordFailure(
  db: Db,
  attempt: Claim,
  result: Result,
  options: { retryDelaysMs: readonly number[]; disableAfterMs: number },
): Promise<Failure | null> {
  return db.transaction(async (tx) => {
    // A manual replay or a test is one attempt; a deleted endpoint gets no retry. The endpoint's row stays
    // locked until commit: a deletion running now either waits and then drops the retry scheduled here with
    // the other pending attempts, or commits first and is seen here.
    const [endpoint] = await tx.query(
      'select 1 from webhook_endpoints where workspace_id = $1 and id = $2 for no key update',
      [attempt.workspace_id, attempt.endpoint_id],
    );
    const delay =
      attempt.replay || attempt.test || !endpoint
        ? null
        : nextRetryDelay(attempt.attempt, options.retryDelaysMs);
    const status: DeliveryStatus = delay === null ? 'exhausted' : 'failed';
    if (!(await finish(tx, attempt, status, result, delay))) return null;
    if (status === 'failed') {
      await tx.query(
        `insert into webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, attempt, status, attempted_at)
         select workspace_id, gen_random_uuid(), endpoint_id, event_id, event_type, attempt + 1, 'pending', next_retry_at
           from webhook_deliveries where workspace_id = $1 and id = $2
         on conflict do nothing`,
        [attempt.workspace_id, attempt.id],
      );
    }
    if (attempt.replay) {
      await tx.query(
        `with done as (select $1::uuid as workspace_id, $2::uuid as endpoint_id, $3::uuid as event_id,
                              $4::integer as attempt, true as replay)
         ${SUPERSEDE_EXHAUSTED}`,
        [attempt.workspace_id, attempt.endpoint_id, attempt.event_id, attempt.attempt],
      );
    }
    if (attempt.test) return { status, disabledFailingSince: null };
    // Written once per run of failures, not at each one.
    await tx.query(
      `update webhook_endpoints set failing_since = clock_timestamp()
        where workspace_id = $1 and id = $2 and failing_since is null`,
      [attempt.workspace_id, attempt.endpoint_id],
    );
    if (options.disableAfterMs <= 0) return { status, disabledFailingSince: null };
    const [disabled] = await tx.query<{ failing_since: string }>(
      `update webhook_endpoints set enabled = false, updated_at = clock_timestamp()
        where workspace_id = $1 and id = $2 and enabled
          and failing_since <= clock_timestamp() - $3 * interval '1 millisecond'
        returning iso(failing_since) as failing_since`,
      [attempt.workspace_id, attempt.endpoint_id, options.disableAfterMs],
    );
    if (disabled) {
      await recordAudit(tx, {
        workspaceId: attempt.workspace_id,
        actorType: 'system',
        actorId: null,
        requestId: null,
        action: 'webhook_endpoint.disabled',
        targetType: 'webhook_endpoint',
        targetId: attempt.endpoint_id,
        metadata: {
          reason: 'failing',
          failing_since: disabled.failing_since,
          disable_after_ms: options.disableAfterMs,
        },
      });
    }
    return { status, disabledFailingSince: disabled?.failing_since ?? null };
  });
}

export class Dispatcher {
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private readonly claims: ClaimIncident;
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;
  private woken = false;
  private backlog = false;
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
    this.claims = claimIncident(options.logger, 'webhook dispatcher', 'attempts');
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
          this.claims.succeeded();
        } catch (error) {
          this.claims.failed(error);
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
      for (const state of QUEUE_STATES) {
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
    const result: Result = { ...outcome, durationMs: Date.now() - startedMs };
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
      if (outcome.delivered) {
        if (await this.delivered.record(attempt, result)) this.count(attempt, 'delivered', result, startedMs);
        return;
      }
      const failure = await recordFailure(this.db, attempt, result, {
        retryDelaysMs: this.options.retryDelaysMs,
        disableAfterMs: this.options.disableAfterMs ?? 0,
      });
      if (!failure) return;
      this.count(attempt, failure.status, result, startedMs);
      this.logFailure(attempt, failure, result);
    } catch (error) {
      // The lease expires and another claim sends the attempt again: nothing is lost.
      this.options.logger.warn(
        { err: (error as Error).message, delivery_id: attempt.id },
        'webhook dispatcher: could not record an attempt; it will be retried when its lease expires',
      );
    }
  }

  /** The metrics of a recorded attempt; a test event is not counted (P81). */
  private count(attempt: ClaimedAttempt, outcome: DeliveryStatus, result: Result, startedMs: number): void {
    const metrics = this.options.metrics;
    if (!metrics || attempt.test) return;
    const labels = { outcome, event_type: attempt.event_type };
    metrics.webhookAttempts.inc(labels);
    metrics.webhookAttemptDuration.observe(labels, result.durationMs / 1000);
    if (attempt.attempt === 1) metrics.webhookLag.observe((startedMs - attempt.occurred_ms) / 1000);
  }

  /**
   * A warn line for each failed attempt, an error line when no retry is left and when the endpoint gets
   * disabled (P82, P83). Ids, the attempt, the status or kind of failure: never the URL (its query may hold
   * the receiver's token) nor a secret.
   */
  private logFailure(attempt: ClaimedAttempt, failure: Failure, result: Result): void {
    const fields = {
      workspace_id: attempt.workspace_id,
      endpoint_id: attempt.endpoint_id,
      event_id: attempt.event_id,
      delivery_id: attempt.id,
      event_type: attempt.event_type,
      attempt: attempt.attempt,
      response_status: result.responseStatus,
      error_class: result.errorClass,
      duration_ms: result.durationMs,
      ...(attempt.test ? { test: true } : {}),
    };
    const logger = this.options.logger;
    // A test is one attempt that an operator is watching: its failure is no incident.
    if (attempt.test) logger.warn(fields, 'webhook test attempt failed');
    else if (failure.status === 'exhausted')
      logger.error(fields, 'webhook delivery exhausted: no retry left');
    else logger.warn(fields, 'webhook attempt failed; a retry is scheduled');
    if (failure.disabledFailingSince) {
      this.options.metrics?.webhookDisabled.inc();
      logger.error(
        {
          workspace_id: attempt.workspace_id,
          endpoint_id: attempt.endpoint_id,
          failing_since: failure.disabledFailingSince,
          disable_after_ms: this.options.disableAfterMs,
        },
        'webhook endpoint disabled: its deliveries have all failed for WEBHOOK_DISABLE_AFTER',
      );
    }
  }
}
