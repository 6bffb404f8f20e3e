// The sinks' delivery loop (docs/decisions.md P209-P214): runs in every process whose ROLE includes the
// worker, any number at once. A worker claims a due sink (FOR UPDATE SKIP LOCKED, a lease as the webhook
// dispatcher's), reads the records after its positions, and sends a batch when it holds SINK_BATCH_SIZE records
// or its oldest has waited SINK_BATCH_AGE, with no transaction open. Only the collector's acknowledgement moves
// the positions (at least once): a worker that dies mid-batch leaves them, and the next claim, once the lease
// expired, sends the same records with the same ids. One worker holds a sink at a time, so its batches go in
// order. A failed batch is sent again from the same position on the webhooks' retry schedule (its last delay
// repeating: a stream skips nothing), and a sink whose batches have all failed for WEBHOOK_DISABLE_AFTER is
// disabled, audited and logged as a webhook endpoint is (P83).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { type ClaimIncident, claimIncident } from '../events/claim-incident.js';
import { nextRetryDelay } from '../events/retry-schedule.js';
import type { Metrics } from '../http/metrics.js';
import { recordAudit } from '../storage/audit.js';
import type { Db } from '../storage/db.js';
import { createHttpTransport } from './http.js';
import { lastPositions, type PositionedRecord, readRecords, type SinkSelection } from './records.js';
import { createSyslogTransport } from './syslog.js';
import type { SendOutcome, SinkTransport } from './transport.js';

export interface SinkWorkerOptions {
  /** SINK_BATCH_SIZE: the most records a batch holds; a full batch is sent at once. */
  batchSize: number;
  /** SINK_BATCH_AGE: a batch that is not full is sent once its oldest record is this old. */
  batchAgeMs: number;
  retryDelaysMs: readonly number[];
  /** WEBHOOK_TIMEOUT: the collector's time to acknowledge a batch. */
  timeoutMs: number;
  /** WEBHOOK_DISABLE_AFTER; 0 never disables. */
  disableAfterMs: number;
  allowInsecure: boolean;
  /** The sending machine's name (HEC `host`, syslog HOSTNAME). */
  hostname: string;
  /** Sinks delivered at once by this process. */
  concurrency?: number;
  /** How often the worker looks for due sinks. */
  pollIntervalMs?: number;
  /** How long past WEBHOOK_TIMEOUT a claim stays leased before another worker may take it over. */
  leaseMarginMs?: number;
  /** How long a sink's transport (its connection) is kept after its last batch, for the next claim. */
  transportIdleMs?: number;
  logger: Logger;
  metrics?: Pick<Metrics, 'sinkBatches' | 'sinkRecords' | 'sinkBatchDuration' | 'sinkLag' | 'sinkDisabled'>;
}

/** A sink as claimed: its target and what it reads. */
interface ClaimedSink extends SinkSelection {
  id: string;
  claim_token: string;
  /** When its settings last changed: a kept transport of another version is not used again. */
  version: string;
  kind: 'http' | 'syslog';
  url: string | null;
  hec: boolean;
  host: string | null;
  port: number | null;
  ca: string | null;
  server_name: string | null;
  credential: string | null;
  failures: number;
}

const CLAIM_SQL = `
  with due as (
    select workspace_id, id from sinks
     where enabled and due_at <= now() and (claim_token is null or lease_expires_at <= now())
     order by due_at
     limit $1
     for update skip locked)
  update sinks s
     set claim_token = $2, lease_expires_at = clock_timestamp() + $3 * interval '1 millisecond'
    from due
   where s.workspace_id = due.workspace_id and s.id = due.id
  returning s.workspace_id, s.id, s.claim_token, iso(s.updated_at) as version, s.kind, s.sources, s.event_types,
            s.format, s.url, s.hec,
            s.host, s.port, s.ca, s.server_name, s.credential, s.failures,
            case when s.audit_id is null then null
                 else json_build_object('at', iso(s.audit_at), 'id', s.audit_id) end as audit,
            case when s.event_id is null then null
                 else json_build_object('at', iso(s.event_at), 'id', s.event_id) end as event`;

/** Gives the sink back, due at `dueInMs` from now (its batch's age limit, or the next poll). */
const RELEASE_SQL = `
  update sinks set claim_token = null, lease_expires_at = null,
                   due_at = clock_timestamp() + $4 * interval '1 millisecond'
   where workspace_id = $1 and id = $2 and claim_token = $3`;

// The positions move to the batch's last records, the run of failures ends and the lease is renewed, with the
// batch's row of the delivery log, in one statement; nothing when the claim had lost its lease, or was ended by
// a change of the sink (its settings, a pause: the management API clears the claim) or the sink is disabled.
// The worker then stops: the next claim reads the settings as they are now (P238).
const DELIVERED_SQL = `
  with moved as (
    update sinks
       set audit_at = coalesce($4::timestamptz, audit_at), audit_id = coalesce($5::uuid, audit_id),
           event_at = coalesce($6::timestamptz, event_at), event_id = coalesce($7::uuid, event_id),
           failures = 0, failing_since = null,
           lease_expires_at = clock_timestamp() + $8 * interval '1 millisecond'
     where workspace_id = $1 and id = $2 and claim_token = $3 and enabled
    returning workspace_id, id)
  insert into sink_deliveries (workspace_id, id, sink_id, first_id, last_id, count, attempt, outcome, status,
                               duration_ms)
  select workspace_id, gen_random_uuid(), id, $9, $10, $11, $12, 'delivered', $13, $14 from moved
  returning 1`;

/** A sink's transport kept between claims, for the settings of `version`. */
interface KeptTransport {
  version: string;
  transport: SinkTransport;
  /** Claims of this process using it now. */
  users: number;
  idle: NodeJS.Timeout | undefined;
}

const TRANSPORT_IDLE_MS = 30_000;

/** The transport of a sink's target. */
function transportOf(sink: ClaimedSink, options: SinkWorkerOptions): SinkTransport {
  const common = { timeoutMs: options.timeoutMs, allowInsecure: options.allowInsecure };
  if (sink.kind === 'syslog') {
    return createSyslogTransport({
      host: sink.host as string,
      port: sink.port as number,
      ca: sink.ca ?? undefined,
      serverName: sink.server_name ?? undefined,
      appName: 'tprm-api',
      hostname: options.hostname,
      ...common,
    });
  }
  return createHttpTransport({
    url: sink.url as string,
    hec: sink.hec,
    credential: sink.credential,
    hostname: options.hostname,
    workspaceId: sink.workspace_id,
    userAgent: 'tprm-api-sinks/1',
    ...common,
  });
}

export class SinkWorker {
  private readonly concurrency: number;
  private readonly pollIntervalMs: number;
  private readonly leaseMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Each sink's transport, kept across claims while its settings are unchanged (P224, P239): a sink whose
   * batches come one claim at a time still sends them over one connection. Closed once idle, or on stop.
   */
  private readonly transports = new Map<string, KeptTransport>();
  private readonly claims: ClaimIncident;
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;

  constructor(
    private readonly db: Db,
    private readonly options: SinkWorkerOptions,
  ) {
    this.concurrency = options.concurrency ?? 16;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.leaseMs = options.timeoutMs + (options.leaseMarginMs ?? 5_000);
    this.claims = claimIncident(options.logger, 'sink worker', 'sinks');
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Stops claiming; the batches in flight end within WEBHOOK_TIMEOUT and their sinks are given back. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake?.();
    await this.loopDone;
    await Promise.all(this.inFlight);
    const kept = [...this.transports.values()];
    this.transports.clear();
    await Promise.all(kept.map((entry) => this.close(entry)));
  }

  /** The sink's kept transport for its current settings, or a new one (a stale one is closed). */
  private transportFor(sink: ClaimedSink): SinkTransport {
    const kept = this.transports.get(sink.id);
    if (kept?.version === sink.version) {
      clearTimeout(kept.idle);
      kept.users++;
      return kept.transport;
    }
    // Another version's, left by an earlier claim that has already given the sink back.
    if (kept) void this.close(kept);
    const transport = transportOf(sink, this.options);
    this.transports.set(sink.id, { version: sink.version, transport, users: 1, idle: undefined });
    return transport;
  }

  /** After a claim: the transport stays for the next one until it has been idle `transportIdleMs`. */
  private keep(sink: ClaimedSink): void {
    const kept = this.transports.get(sink.id);
    if (!kept || kept.version !== sink.version) return;
    // The sink, given back, may already be claimed again here: the idle clock starts when no claim uses it.
    if (--kept.users > 0) return;
    kept.idle = setTimeout(() => {
      if (this.transports.get(sink.id) !== kept || kept.users > 0) return;
      this.transports.delete(sink.id);
      void this.close(kept);
    }, this.options.transportIdleMs ?? TRANSPORT_IDLE_MS);
    kept.idle.unref();
  }

  private async close(kept: KeptTransport): Promise<void> {
    clearTimeout(kept.idle);
    await kept.transport.close().catch(() => undefined);
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const room = this.concurrency - this.inFlight.size;
      let claimed: ClaimedSink[] = [];
      if (room > 0) {
        try {
          claimed = await this.db.query<ClaimedSink>(CLAIM_SQL, [room, randomUUID(), this.leaseMs]);
          this.claims.succeeded();
        } catch (error) {
          this.claims.failed(error);
        }
      }
      for (const sink of claimed) {
        const done: Promise<void> = this.deliver(sink).finally(() => {
          this.inFlight.delete(done);
          this.wake?.();
        });
        this.inFlight.add(done);
      }
      if (this.running) await this.sleep();
    }
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.pollIntervalMs);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wake = null;
        resolve();
      }
      this.wake = done;
    });
  }

  /**
   * Sends the sink's batches while they are ready and this worker runs, then gives the sink back. Any failure
   * to record leaves the claim to expire: the next claim sends the same records again.
   */
  private async deliver(sink: ClaimedSink): Promise<void> {
    const transport = this.transportFor(sink);
    try {
      for (;;) {
        const records = this.running ? await readRecords(this.db, sink, this.options.batchSize) : [];
        const oldest = records[0];
        const waitMs = oldest
          ? Date.parse(oldest.time) + this.options.batchAgeMs - Date.now()
          : this.pollIntervalMs;
        if (!oldest || (records.length < this.options.batchSize && waitMs > 0)) {
          await this.db.query(RELEASE_SQL, [
            sink.workspace_id,
            sink.id,
            sink.claim_token,
            this.running ? waitMs : 0,
          ]);
          return;
        }
        const outcome = await transport.send(records);
        if (!outcome.ok) {
          await this.recordFailure(sink, records, outcome);
          return;
        }
        if (!(await this.recordDelivered(sink, records, outcome))) return;
      }
    } catch (error) {
      this.options.logger.warn(
        { err: (error as Error).message, workspace_id: sink.workspace_id, sink_id: sink.id },
        'sink worker: could not record a batch; it is sent again when the lease expires',
      );
    } finally {
      this.keep(sink);
    }
  }

  /** Moves the positions past an acknowledged batch; false when the claim had lost its lease. */
  private async recordDelivered(
    sink: ClaimedSink,
    records: readonly PositionedRecord[],
    outcome: SendOutcome,
  ): Promise<boolean> {
    const moved = lastPositions(records);
    const rows = await this.db.query(DELIVERED_SQL, [
      sink.workspace_id,
      sink.id,
      sink.claim_token,
      moved.audit?.at ?? null,
      moved.audit?.id ?? null,
      moved.event?.at ?? null,
      moved.event?.id ?? null,
      this.leaseMs,
      records[0]?.id,
      records.at(-1)?.id,
      records.length,
      sink.failures + 1,
      outcome.status,
      outcome.durationMs,
    ]);
    if (rows.length === 0) return false;
    sink.audit = moved.audit ?? sink.audit;
    sink.event = moved.event ?? sink.event;
    sink.failures = 0;
    const metrics = this.options.metrics;
    if (metrics) {
      metrics.sinkBatches.inc({ outcome: 'delivered', kind: sink.kind });
      metrics.sinkRecords.inc({ outcome: 'delivered', kind: sink.kind }, records.length);
      metrics.sinkBatchDuration.observe({ outcome: 'delivered', kind: sink.kind }, outcome.durationMs / 1000);
      const now = Date.now();
      for (const record of records) metrics.sinkLag.observe((now - Date.parse(record.time)) / 1000);
    }
    return true;
  }

  /**
   * Records a failed batch and schedules its next send, in one transaction with the sink's failing state: the
   * first failure of a run marks when it began, and a failure `disableAfterMs` or more after that disables the
   * sink (P83's rule). Logs and counts it.
   */
  private async recordFailure(
    sink: ClaimedSink,
    records: readonly PositionedRecord[],
    outcome: SendOutcome,
  ): Promise<void> {
    const { retryDelaysMs, disableAfterMs } = this.options;
    const attempt = sink.failures + 1;
    const delay = nextRetryDelay(attempt, retryDelaysMs) ?? (retryDelaysMs.at(-1) as number);
    const disabled = await this.db.transaction(async (tx) => {
      const [failed] = await tx.query(
        `update sinks set failures = failures + 1, failing_since = coalesce(failing_since, clock_timestamp()),
                          due_at = clock_timestamp() + $4 * interval '1 millisecond',
                          claim_token = null, lease_expires_at = null
          where workspace_id = $1 and id = $2 and claim_token = $3
          returning 1`,
        [sink.workspace_id, sink.id, sink.claim_token, delay],
      );
      if (!failed) return undefined;
      await tx.query(
        `insert into sink_deliveries (workspace_id, id, sink_id, first_id, last_id, count, attempt, outcome,
                                      status, error, duration_ms)
         values ($1, gen_random_uuid(), $2, $3, $4, $5, $6, 'failed', $7, $8, $9)`,
        [
          sink.workspace_id,
          sink.id,
          records[0]?.id,
          records.at(-1)?.id,
          records.length,
          attempt,
          outcome.status,
          outcome.error,
          outcome.durationMs,
        ],
      );
      if (disableAfterMs <= 0) return null;
      const [row] = await tx.query<{ failing_since: string }>(
        `update sinks set enabled = false, updated_at = clock_timestamp()
          where workspace_id = $1 and id = $2 and enabled
            and failing_since <= clock_timestamp() - $3 * interval '1 millisecond'
          returning iso(failing_since) as failing_since`,
        [sink.workspace_id, sink.id, disableAfterMs],
      );
      if (!row) return null;
      await recordAudit(tx, {
        workspaceId: sink.workspace_id,
        actorType: 'system',
        actorId: null,
        requestId: null,
        action: 'sink.disabled',
        targetType: 'sink',
        targetId: sink.id,
        metadata: { reason: 'failing', failing_since: row.failing_since, disable_after_ms: disableAfterMs },
      });
      return row.failing_since;
    });
    // The claim had lost its lease: the worker that took the sink over records its own attempt.
    if (disabled === undefined) return;
    this.options.metrics?.sinkBatches.inc({ outcome: 'failed', kind: sink.kind });
    this.options.metrics?.sinkRecords.inc({ outcome: 'failed', kind: sink.kind }, records.length);
    this.options.metrics?.sinkBatchDuration.observe(
      { outcome: 'failed', kind: sink.kind },
      outcome.durationMs / 1000,
    );
    // Ids, counts, the status and the transport's one-line error (never a credential, URL or address).
    const fields = {
      workspace_id: sink.workspace_id,
      sink_id: sink.id,
      kind: sink.kind,
      attempt,
      count: records.length,
      first_id: records[0]?.id,
      status: outcome.status,
      error: outcome.error,
      duration_ms: outcome.durationMs,
      retry_in_ms: delay,
    };
    this.options.logger.warn(fields, 'sink batch failed; it is sent again from the same position');
    if (disabled) {
      this.options.metrics?.sinkDisabled.inc();
      this.options.logger.error(
        {
          workspace_id: sink.workspace_id,
          sink_id: sink.id,
          failing_since: disabled,
          disable_after_ms: disableAfterMs,
        },
        'sink disabled: its batches have all failed for WEBHOOK_DISABLE_AFTER',
      );
    }
  }
}
