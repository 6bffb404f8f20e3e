// Fixed-window rate limiter (decisions 19, 20, 29, 39).
//
// A request is counted against several buckets at once (second, minute, hour, and for PDFs an extra hour
// bucket). All buckets are checked and incremented in one atomic step: a rejected request (429) counts
// nothing, and two concurrent requests can never both take the last slot. The in-memory limiter gets
// atomicity from running synchronously; the Redis limiter from a single Lua script, so the limits hold
// across every instance of the service.
//
// Time comes from the caller's clock (`now`), never from Redis TIME: the instance names the window (the
// window index is part of the key) and passes the TTL, so the script declares every key it touches (as Redis
// Cluster requires) and tests can step a clock to each window's last and first millisecond on both limiters.
// The price is that instances must keep their clocks in sync (NTP): a request within the skew of a boundary
// may be counted in the neighbouring window (docs/operations.md).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.

import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis as RedisClient } from 'ioredis';
import type { Logger } from 'pino';
import { EXPORTS_PER_HOUR, WEBHOOK_TESTS_PER_MINUTE } from '../contract/limits.js';

export interface Bucket {
  name: string;
  limit: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** The bucket the headers describe; on a 429, the exhausted one that resets last. */
  bucket: string;
  limit: number;
  remaining: number;
  resetSeconds: number;
  retryAfterSeconds: number | null;
}

export const LIMITER_MODES = ['memory', 'redis', 'redis-fallback'] as const;

export interface RateLimiter {
  consume(key: string, buckets: readonly Bucket[]): Promise<RateDecision>;
  /** The decision `consume` would take, counting nothing. */
  peek(key: string, buckets: readonly Bucket[]): Promise<RateDecision>;
  /** Undo one counted request in the current windows (e.g. the key turned out to be invalid). */
  refund(key: string, buckets: readonly Bucket[]): Promise<void>;
  /** `redis-fallback`: Redis is configured but failing, and limits are per process until it answers. */
  readonly mode: (typeof LIMITER_MODES)[number];
  /** For metrics: Redis outages begun, and decisions taken in process memory because of them. */
  readonly fallback: { readonly outages: number; readonly decisions: number };
  close(): Promise<void>;
}

export interface MemoryRateLimiter extends RateLimiter {
  /** Number of live counters, so tests can prove stale windows are pruned. */
  readonly size: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Per workspace, from the spec's Limits table. */
export const WORKSPACE_BUCKETS: readonly Bucket[] = Object.freeze([
  { name: 'second', limit: 60, windowMs: SECOND },
  { name: 'minute', limit: 600, windowMs: MINUTE },
  { name: 'hour', limit: 5000, windowMs: HOUR },
]);

/** GET /reports/{id}/pdf counts against these as well as WORKSPACE_BUCKETS (same workspace key). The
 * name differs from 'hour' so both hour counters can live under one key. */
export const PDF_BUCKETS: readonly Bucket[] = Object.freeze([
  { name: 'pdf-hour', limit: 60, windowMs: HOUR },
]);

/** A list asked for as a stream (`application/x-ndjson`, http/export.ts) counts against these as well as
 * WORKSPACE_BUCKETS, like a PDF (P197). */
export const EXPORT_BUCKETS: readonly Bucket[] = Object.freeze([
  { name: 'export-hour', limit: EXPORTS_PER_HOUR, windowMs: HOUR },
]);

/** Per client address for requests without a valid key (decision 29). Generous enough for several
 * well-behaved clients behind one NAT, tight enough to stop key guessing from one address. */
export const ADDRESS_BUCKETS: readonly Bucket[] = Object.freeze([
  { name: 'addr-second', limit: 50, windowMs: SECOND },
  { name: 'addr-minute', limit: 1000, windowMs: MINUTE },
]);

/** Per client address, on top of ADDRESS_BUCKETS, for the API reference's files (decision P69): the page,
 * its three files and the document are 1.5 MB, so 60 a minute is 12 page loads and at most about 90 MB a
 * minute. */
export const REFERENCE_BUCKETS: readonly Bucket[] = Object.freeze([
  { name: 'addr-reference-minute', limit: 60, windowMs: MINUTE },
]);

/** Wrong or missing admin tokens per client address (decision P68). */
export const ADMIN_FAILURE_BUCKETS: readonly Bucket[] = Object.freeze([
  { name: 'admin-failures-minute', limit: 10, windowMs: MINUTE },
]);

/** Test events sent to one webhook endpoint (P107): a handful a minute to check a receiver, not a flood of
 * signed requests. */
export const WEBHOOK_TEST_BUCKETS: readonly Bucket[] = Object.freeze([
  { name: 'webhook-tests-minute', limit: WEBHOOK_TESTS_PER_MINUTE, windowMs: MINUTE },
]);

// Windows are aligned to the clock, so every instance agrees on them without coordination.
const windowIndex = (b: Bucket, nowMs: number): number => Math.floor(nowMs / b.windowMs);
const resetAt = (b: Bucket, nowMs: number): number => (windowIndex(b, nowMs) + 1) * b.windowMs;

function checkBuckets(buckets: readonly Bucket[]): void {
  if (buckets.length === 0) throw new RangeError('rate limit: at least one bucket is required');
  for (const b of buckets) {
    if (!Number.isInteger(b.limit) || b.limit < 1 || !Number.isInteger(b.windowMs) || b.windowMs < 1) {
      throw new RangeError(`rate limit: invalid bucket ${b.name}`);
    }
  }
}

/**
 * Builds the decision from the counts of each bucket (after counting when allowed, unchanged when not).
 * Headers describe the bucket with the highest used fraction, ties going to the one that resets later
 * (decisions 20, 39). Retry-After waits for the exhausted bucket that resets last, rounded up so a client
 * that obeys it is never early.
 */
function decide(
  buckets: readonly Bucket[],
  counts: readonly number[],
  allowed: boolean,
  nowMs: number,
): RateDecision {
  let pick = 0;
  let retryAfterMs = 0;
  buckets.forEach((b, i) => {
    const count = counts[i] ?? 0;
    if (!allowed && count >= b.limit) retryAfterMs = Math.max(retryAfterMs, resetAt(b, nowMs) - nowMs);
    const p = buckets[pick] as Bucket;
    // Compare count/limit by cross-multiplying: exact for integers, no float ties to worry about.
    const diff = count * p.limit - (counts[pick] ?? 0) * b.limit;
    if (diff > 0 || (diff === 0 && resetAt(b, nowMs) > resetAt(p, nowMs))) pick = i;
  });
  const b = buckets[pick] as Bucket;
  return {
    allowed,
    bucket: b.name,
    limit: b.limit,
    remaining: allowed ? Math.max(0, b.limit - (counts[pick] ?? 0)) : 0,
    resetSeconds: Math.ceil((resetAt(b, nowMs) - nowMs) / 1000),
    retryAfterSeconds: allowed ? null : Math.ceil(retryAfterMs / 1000),
  };
}

// How often (in limiter clock time) the memory limiter drops counters of past windows.
const SWEEP_INTERVAL_MS = 10 * SECOND;

export function createMemoryRateLimiter(options: { now?: () => number } = {}): MemoryRateLimiter {
  const now = options.now ?? Date.now;
  // One counter per key, bucket and window; a past window is never read again, only swept.
  const counters = new Map<string, { count: number; expiresAt: number }>();
  let nextSweepAt = 0;

  const sweep = (t: number) => {
    if (t < nextSweepAt) return;
    nextSweepAt = t + SWEEP_INTERVAL_MS;
    for (const [slot, c] of counters) if (c.expiresAt <= t) counters.delete(slot);
  };
  const slots = (key: string, buckets: readonly Bucket[], t: number) =>
    buckets.map((b) => `${key}\u0000${b.name}\u0000${windowIndex(b, t)}`);

  const count = (key: string, buckets: readonly Bucket[], counting: boolean): RateDecision => {
    checkBuckets(buckets);
    const t = now();
    sweep(t);
    const keys = slots(key, buckets, t);
    const counts = keys.map((s) => counters.get(s)?.count ?? 0);
    const allowed = buckets.every((b, i) => (counts[i] ?? 0) < b.limit);
    if (allowed && counting) {
      keys.forEach((s, i) => {
        const c = counters.get(s);
        if (c) c.count += 1;
        else counters.set(s, { count: 1, expiresAt: resetAt(buckets[i] as Bucket, t) });
        counts[i] = (counts[i] ?? 0) + 1;
      });
    }
    return decide(buckets, counts, allowed, t);
  };

  return {
    mode: 'memory',
    fallback: { outages: 0, decisions: 0 },
    get size() {
      return counters.size;
    },
    async consume(key, buckets) {
      return count(key, buckets, true);
    },
    async peek(key, buckets) {
      return count(key, buckets, false);
    },
    async refund(key, buckets) {
      checkBuckets(buckets);
      for (const s of slots(key, buckets, now())) {
        const c = counters.get(s);
        if (c && c.count > 0) c.count -= 1;
      }
    },
    async close() {
      counters.clear();
    },
  };
}

// KEYS[i]: counter of bucket i in its current window. ARGV[1]: 'consume', 'peek' or 'refund';
// ARGV[2i]: limit of bucket i; ARGV[2i+1]: TTL of its key in ms.
// Consume reads every counter first and increments only if none is exhausted: check-all-then-increment-all.
// Peek only reads. Returns {allowed, count1, count2, ...}.
const SCRIPT = `
if ARGV[1] == 'refund' then
  for _, k in ipairs(KEYS) do
    if tonumber(redis.call('GET', k) or '0') > 0 then redis.call('DECR', k) end
  end
  return {1}
end
local counts = {}
local allowed = 1
for i, k in ipairs(KEYS) do
  counts[i] = tonumber(redis.call('GET', k) or '0')
  if counts[i] >= tonumber(ARGV[2 * i]) then allowed = 0 end
end
if allowed == 1 and ARGV[1] == 'consume' then
  for i, k in ipairs(KEYS) do
    counts[i] = redis.call('INCR', k)
    if counts[i] == 1 then redis.call('PEXPIRE', k, ARGV[2 * i + 1]) end
  end
end
table.insert(counts, 1, allowed)
return counts
`;
const SCRIPT_SHA = createHash('sha1').update(SCRIPT).digest('hex');

// Keys carry the window index, so their TTL only reclaims memory. The TTL is relative (PEXPIRE, computed
// from the limiter's clock rather than Redis's) and runs a little past the window end, so an instance whose
// clock lags slightly still finds the counter of the window it believes is current.
const EXPIRY_GRACE_MS = 1000;

export interface RedisRateLimiterOptions {
  url: string;
  now?: () => number;
  /** A Redis answer slower than this counts as an outage (default 100 ms). */
  commandTimeoutMs?: number;
  /** While Redis is down, how often (real time) one request tries it again (default 1000 ms). */
  probeIntervalMs?: number;
  onIncident?: (state: 'down' | 'up', err?: unknown) => void;
}

export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const timeoutMs = options.commandTimeoutMs ?? 100;
  const probeIntervalMs = options.probeIntervalMs ?? 1000;
  const memory = createMemoryRateLimiter({ now });
  // Loaded only when Redis is configured: a process without it does not pay for the module at start-up.
  const { Redis } = createRequire(import.meta.url)('ioredis') as { Redis: typeof RedisClient };
  const client = new Redis(options.url, {
    // Fail fast instead of queueing while disconnected, and never replay a consume after a reconnect
    // (it was already answered from the fallback).
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: timeoutMs,
    connectTimeout: 1000,
    // The consumes of the requests that one turn of the event loop reads go to Redis in one write (P241):
    // under load, one system call and one wake-up of Redis serve several requests.
    enableAutoPipelining: true,
    // Keep reconnecting in the background, backing off to one attempt per second.
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
  // Connection errors are reported through onIncident when a request fails; without a listener ioredis
  // would print every reconnect failure.
  client.on('error', () => {});

  let down = false;
  let nextProbeAt = 0;
  const fallback = { outages: 0, decisions: 0 };
  let readyWait: Promise<boolean> | null = null;

  // With the offline queue off, a command sent before the (re)connection is ready fails at once. Wait for
  // readiness up to the command timeout, shared by all concurrent callers, so startup does not look like
  // an outage.
  const ready = (): Promise<boolean> => {
    if (client.status === 'ready') return Promise.resolve(true);
    if (client.status === 'end') return Promise.resolve(false);
    readyWait ??= new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        client.off('ready', onReady);
        readyWait = null;
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      client.once('ready', onReady);
    });
    return readyWait;
  };

  const report = (state: 'down' | 'up', err?: unknown) => {
    try {
      options.onIncident?.(state, err);
    } catch {
      // A failing logger must not turn into a failed request.
    }
  };

  const runScript = async (
    key: string,
    buckets: readonly Bucket[],
    op: 'consume' | 'peek' | 'refund',
    t: number,
  ) => {
    if (!(await ready())) throw new Error('Redis connection is not ready');
    // {key} is a Redis Cluster hash tag: all buckets of one key land in one slot, as the script needs.
    const keys = buckets.map((b) => `tprm:rl:{${key}}:${b.name}:${windowIndex(b, t)}`);
    const args = [op, ...buckets.flatMap((b) => [b.limit, resetAt(b, t) - t + EXPIRY_GRACE_MS])];
    try {
      return await client.evalsha(SCRIPT_SHA, keys.length, ...keys, ...args);
    } catch (err) {
      // The script cache is empty after a Redis restart or failover: EVAL runs it and caches it again.
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
      return await client.eval(SCRIPT, keys.length, ...keys, ...args);
    }
  };

  // Runs against Redis unless it is known to be down; then only one request per probe interval tries it,
  // so an outage costs at most one timeout per interval. Never throws for Redis failures.
  const withFallback = async <T>(viaRedis: () => Promise<T>, viaMemory: () => Promise<T>): Promise<T> => {
    if (down) {
      if (Date.now() < nextProbeAt) return viaMemory();
      nextProbeAt = Date.now() + probeIntervalMs;
    }
    try {
      const result = await viaRedis();
      if (down) {
        down = false;
        report('up');
      }
      return result;
    } catch (err) {
      if (!down) {
        down = true;
        fallback.outages += 1;
        nextProbeAt = Date.now() + probeIntervalMs;
        report('down', err);
      }
      return viaMemory();
    }
  };

  const count = (key: string, buckets: readonly Bucket[], op: 'consume' | 'peek') => {
    checkBuckets(buckets);
    const t = now();
    return withFallback(
      async () => {
        const reply = (await runScript(key, buckets, op, t)) as number[];
        return decide(buckets, reply.slice(1), reply[0] === 1, t);
      },
      () => {
        fallback.decisions += 1;
        return memory[op](key, buckets);
      },
    );
  };

  return {
    get mode() {
      return down ? 'redis-fallback' : 'redis';
    },
    fallback,
    consume: (key, buckets) => count(key, buckets, 'consume'),
    peek: (key, buckets) => count(key, buckets, 'peek'),
    async refund(key, buckets) {
      checkBuckets(buckets);
      const t = now();
      await withFallback(
        async () => {
          await runScript(key, buckets, 'refund', t);
        },
        () => memory.refund(key, buckets),
      );
    },
    async close() {
      await memory.close();
      if (client.status === 'ready') {
        try {
          await client.quit();
          return;
        } catch {
          // Fall through to a hard disconnect.
        }
      }
      client.disconnect();
    },
  };
}

/**
 * The limiter of a process: shared through Redis when `redisUrl` is set, else in process memory. A Redis
 * outage is logged once when it begins (warn) and once when it ends (info); `/metrics` counts it.
 */
export function createRateLimiter(
  options: { redisUrl: string | undefined; logger: Logger } & Omit<
    RedisRateLimiterOptions,
    'url' | 'onIncident'
  >,
): RateLimiter {
  const { redisUrl, logger, ...rest } = options;
  if (!redisUrl) return createMemoryRateLimiter({ now: rest.now });
  return createRedisRateLimiter({
    ...rest,
    url: redisUrl,
    // Only the error's message: the URL (which may hold a password) is never logged.
    onIncident: (state, err) =>
      state === 'down'
        ? logger.warn(
            { event: 'rate_limiter_redis_down', err: err instanceof Error ? err.message : String(err) },
            'Redis unreachable: rate limits are per process until it is back',
          )
        : logger.info({ event: 'rate_limiter_redis_up' }, 'Redis reachable again: rate limits are shared'),
  });
}
