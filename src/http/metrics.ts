// Prometheus metrics of one process, served at /metrics on the management listener.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requests: Counter<'listener' | 'method' | 'route' | 'status'>;
  latency: Histogram<'listener' | 'route'>;
  rateLimited: Counter<'bucket_owner'>;
  rateLimiterFallback: Gauge;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'tprm_' });
  return {
    registry,
    requests: new Counter({
      name: 'tprm_http_requests_total',
      help: 'HTTP requests by listener, method, route and status.',
      labelNames: ['listener', 'method', 'route', 'status'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'tprm_http_request_duration_seconds',
      help: 'HTTP request duration in seconds.',
      labelNames: ['listener', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'tprm_rate_limited_total',
      help: 'Requests answered 429, by whose budget was exhausted (workspace or address).',
      labelNames: ['bucket_owner'],
      registers: [registry],
    }),
    rateLimiterFallback: new Gauge({
      name: 'tprm_rate_limiter_fallback_decisions',
      help: 'Rate-limit decisions taken in process memory because Redis was unreachable.',
      registers: [registry],
    }),
  };
}
