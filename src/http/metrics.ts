// Prometheus metrics of one process, served at /metrics on the management listener. Counters of events are
// incremented where the event happens; gauges of state (database pool, rate limiter) are read from their
// sources at scrape time, once `observe` has named them.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../storage/db.js';
import { packageVersion } from '../version.js';
import { LIMITER_MODES, type RateLimiter } from './rate-limit.js';

export interface MetricSources {
  db: Db;
  limiter: RateLimiter;
}

export interface Metrics {
  registry: Registry;
  // HTTP, both listeners (http/server.ts). `route` is the route pattern, never the raw URL.
  requests: Counter<'listener' | 'method' | 'route' | 'status'>;
  latency: Histogram<'listener' | 'method' | 'route'>;
  // Rate limits (http/server.ts, from the decision http/route.ts took): 429s by the bucket that refused them.
  rateLimited: Counter<'bucket'>;
  // Webhook delivery (events/dispatcher.ts): attempts by outcome and event type (both bounded lists; endpoint
  // ids are not, so they are in the log lines instead), how long each took, the lag to a first attempt, and
  // the queue of the whole fleet, which each worker refreshes every few seconds (a scrape never waits on the
  // database). Test events (P81) are not counted.
  webhookAttempts: Counter<'outcome' | 'event_type'>;
  webhookAttemptDuration: Histogram<'outcome' | 'event_type'>;
  webhookDisabled: Counter;
  webhookLag: Histogram;
  webhookQueue: Gauge<'state'>;
  // Sinks (sinks/worker.ts): batches and their records by outcome (delivered, failed) and kind (http, syslog),
  // how long each send took, each delivered record's lag from its instant to its acknowledgement, and the sinks
  // disabled. Sink ids are not labels (unbounded): they are in the log lines and the delivery log.
  sinkBatches: Counter<'outcome' | 'kind'>;
  sinkRecords: Counter<'outcome' | 'kind'>;
  sinkBatchDuration: Histogram<'outcome' | 'kind'>;
  sinkLag: Histogram;
  sinkDisabled: Counter;
  /** Names the database and limiter whose state the gauges report (createServices). */
  observe(sources: MetricSources): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tprm_' });
  // prom-client names three gauges `…_total`, a suffix Prometheus keeps for counters (promtool refuses it);
  // the same counts stay available, by type, in tprm_nodejs_active_handles, _requests and _resources.
  for (const name of ['active_handles_total', 'active_requests_total', 'active_resources_total'])
    registry.removeSingleMetric(`tprm_nodejs_${name}`);
  let sources: MetricSources | undefined;
  const registers = [registry];
  // Which build answers (Prometheus's `_info` convention): joins any series by version during a rollout.
  new Gauge({
    name: 'tprm_build_info',
    help: 'The version of tprm-api this process runs (always 1).',
    labelNames: ['version'],
    registers,
  }).set({ version: packageVersion() }, 1);

  // Database pool.
  new Gauge({
    name: 'tprm_db_pool_connections',
    help: 'Open database connections by state (the embedded store has one session).',
    labelNames: ['state'],
    registers,
    collect() {
      if (!sources) return;
      const { total, idle } = sources.db.poolStats();
      this.set({ state: 'idle' }, idle);
      this.set({ state: 'busy' }, total - idle);
    },
  });
  new Gauge({
    name: 'tprm_db_pool_waiting',
    help: 'Queries and transactions waiting for a database connection.',
    registers,
    collect() {
      if (sources) this.set(sources.db.poolStats().waiting);
    },
  });
  new Gauge({
    name: 'tprm_db_pool_max_connections',
    help: 'Size limit of the database connection pool.',
    registers,
    collect() {
      if (sources) this.set(sources.db.poolStats().max);
    },
  });

  // Rate limiter state. The counters live in the limiter (it must count even before a scrape); a scrape
  // copies them.
  new Gauge({
    name: 'tprm_rate_limiter_mode',
    help: 'Where rate limits are counted: 1 for the current mode (redis-fallback: Redis failing, per process).',
    labelNames: ['mode'],
    registers,
    collect() {
      if (!sources) return;
      for (const mode of LIMITER_MODES) this.set({ mode }, sources.limiter.mode === mode ? 1 : 0);
    },
  });
  new Counter({
    name: 'tprm_rate_limiter_redis_outages_total',
    help: 'Redis outages seen by the rate limiter (each one is logged once).',
    registers,
    collect() {
      if (!sources) return;
      this.reset();
      this.inc(sources.limiter.fallback.outages);
    },
  });
  new Counter({
    name: 'tprm_rate_limiter_fallback_decisions_total',
    help: 'Rate-limit decisions taken in process memory because Redis was unreachable or slow.',
    registers,
    collect() {
      if (!sources) return;
      this.reset();
      this.inc(sources.limiter.fallback.decisions);
    },
  });

  return {
    registry,
    requests: new Counter({
      name: 'tprm_http_requests_total',
      help: 'HTTP requests by listener, method, route pattern and status.',
      labelNames: ['listener', 'method', 'route', 'status'],
      registers,
    }),
    latency: new Histogram({
      name: 'tprm_http_request_duration_seconds',
      help: 'HTTP request duration in seconds, by listener, method and route pattern.',
      labelNames: ['listener', 'method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    rateLimited: new Counter({
      name: 'tprm_rate_limited_total',
      help: 'Requests answered 429, by the bucket that refused them (addr-* buckets: requests without a valid key).',
      labelNames: ['bucket'],
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'tprm_webhook_attempts_total',
      help: 'Delivery attempts made by this process, by outcome (delivered, failed, exhausted) and event type.',
      labelNames: ['outcome', 'event_type'],
      registers,
    }),
    webhookAttemptDuration: new Histogram({
      name: 'tprm_webhook_attempt_duration_seconds',
      help: 'Time from the start of a delivery attempt to its outcome, by outcome and event type.',
      labelNames: ['outcome', 'event_type'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    webhookDisabled: new Counter({
      name: 'tprm_webhook_endpoints_disabled_total',
      help: 'Endpoints this process disabled because their deliveries had all failed for WEBHOOK_DISABLE_AFTER.',
      registers,
    }),
    webhookLag: new Histogram({
      name: 'tprm_webhook_first_attempt_lag_seconds',
      help: 'Time from an event to the start of its first delivery attempt.',
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    webhookQueue: new Gauge({
      name: 'tprm_webhook_queue_depth',
      help: 'Delivery attempts of the whole fleet by state: due (pending, due now), scheduled (pending, due later), paused (pending, its endpoint disabled), delivering. Reported by workers.',
      labelNames: ['state'],
      registers,
    }),
    sinkBatches: new Counter({
      name: 'tprm_sink_batches_total',
      help: 'Batches sent to sinks by this process, by outcome (delivered, failed) and sink kind.',
      labelNames: ['outcome', 'kind'],
      registers,
    }),
    sinkRecords: new Counter({
      name: 'tprm_sink_records_total',
      help: 'Records in the batches sent to sinks by this process, by outcome and sink kind (a resent record counts again).',
      labelNames: ['outcome', 'kind'],
      registers,
    }),
    sinkBatchDuration: new Histogram({
      name: 'tprm_sink_batch_duration_seconds',
      help: "Time from the start of a batch's send to the collector's answer, by outcome and sink kind.",
      labelNames: ['outcome', 'kind'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    sinkLag: new Histogram({
      name: 'tprm_sink_lag_seconds',
      help: 'Time from a record (audit entry or event) to its acknowledgement by a sink.',
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
      registers,
    }),
    sinkDisabled: new Counter({
      name: 'tprm_sinks_disabled_total',
      help: 'Sinks this process disabled because their batches had all failed for WEBHOOK_DISABLE_AFTER.',
      registers,
    }),
    observe(next) {
      sources = next;
    },
  };
}
