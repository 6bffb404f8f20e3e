import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net, { type AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { Redis } from 'ioredis';
import {
  ADDRESS_BUCKETS,
  type Bucket,
  createMemoryRateLimiter,
  createRateLimiter,
  createRedisRateLimiter,
  PDF_BUCKETS,
  type RateDecision,
  type RateLimiter,
  WORKSPACE_BUCKETS,
} from '../../src/http/rate-limit.js';
import { LogCapture, testLogger } from '../support/logs.js';

// The Redis tests run when TEST_REDIS_URL names a real Redis (CI sets it) and then fail, not skip, when it is
// not reachable. Without it they are reported as skipped, so `npm test` needs nothing but Node.
const SHARED_REDIS = process.env.TEST_REDIS_URL;
const REDIS_URL = SHARED_REDIS ?? 'redis://127.0.0.1:6379';
const needsRedis: { skip: string | false } = { skip: SHARED_REDIS ? false : 'TEST_REDIS_URL is not set' };
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
// Aligned to the second, the minute and the hour, so offsets from it are offsets into each window.
const BASE = Date.UTC(2030, 0, 1);

interface Clock {
  t: number;
}

interface Backend {
  name: string;
  make(now: () => number): RateLimiter;
  /** Proves the decisions came from the backend itself, not from a fallback. */
  verify(limiter: RateLimiter): void;
}

const memoryBackend: Backend = {
  name: 'memory',
  make: (now) => createMemoryRateLimiter({ now }),
  verify: (l) => assert.equal(l.mode, 'memory'),
};

const redisBackend: Backend = {
  name: 'redis',
  // A generous timeout: these tests are about semantics, a slow CI machine must not trigger the fallback.
  make: (now) => createRedisRateLimiter({ url: REDIS_URL, now, commandTimeoutMs: 2000 }),
  verify: (l) => {
    assert.equal(l.mode, 'redis', `Redis at ${REDIS_URL} did not answer`);
    assert.deepEqual(l.fallback, { outages: 0, decisions: 0 });
  },
};

const newKey = () => `test-${randomUUID()}`;

async function withLimiter(
  backend: Backend,
  fn: (l: RateLimiter, clock: Clock, key: string) => Promise<void>,
): Promise<void> {
  const clock: Clock = { t: BASE };
  const limiter = backend.make(() => clock.t);
  try {
    await fn(limiter, clock, newKey());
    backend.verify(limiter);
  } finally {
    await limiter.close();
  }
}

async function burst(l: RateLimiter, key: string, n: number, buckets: readonly Bucket[] = WORKSPACE_BUCKETS) {
  const out: RateDecision[] = [];
  for (let i = 0; i < n; i++) out.push(await l.consume(key, buckets));
  return out;
}

const allowed = (ds: RateDecision[]) => ds.filter((d) => d.allowed).length;

function behaviour(backend: Backend, options: { skip: string | false } = { skip: false }): void {
  describe(`${backend.name} limiter: window semantics`, options, () => {
    test('second bucket: 60 allowed, the 61st rejected, the next second allowed again', () =>
      withLimiter(backend, async (l, clock, key) => {
        clock.t = BASE + 250;
        const ds = await burst(l, key, 60);
        assert.equal(allowed(ds), 60);
        assert.deepEqual(ds[0], {
          allowed: true,
          bucket: 'second',
          limit: 60,
          remaining: 59,
          resetSeconds: 1,
          retryAfterSeconds: null,
        });
        assert.deepEqual(ds[59], {
          allowed: true,
          bucket: 'second',
          limit: 60,
          remaining: 0,
          resetSeconds: 1,
          retryAfterSeconds: null,
        });
        const rejected = {
          allowed: false,
          bucket: 'second',
          limit: 60,
          remaining: 0,
          resetSeconds: 1,
          retryAfterSeconds: 1,
        };
        for (const d of await burst(l, key, 5)) assert.deepEqual(d, rejected);
        clock.t = BASE + 999;
        assert.equal((await l.consume(key, WORKSPACE_BUCKETS)).allowed, false);
        clock.t = BASE + SECOND;
        // 61 of 600 in the minute is now the most used bucket; the six rejections counted nothing.
        assert.deepEqual(await l.consume(key, WORKSPACE_BUCKETS), {
          allowed: true,
          bucket: 'minute',
          limit: 600,
          remaining: 539,
          resetSeconds: 59,
          retryAfterSeconds: null,
        });
      }));

    test('minute bucket: 600 allowed, then rejected until the next minute', () =>
      withLimiter(backend, async (l, clock, key) => {
        for (let s = 0; s < 10; s++) {
          clock.t = BASE + s * SECOND;
          assert.equal(allowed(await burst(l, key, 60)), 60);
        }
        clock.t = BASE + 10_500;
        assert.deepEqual(await l.consume(key, WORKSPACE_BUCKETS), {
          allowed: false,
          bucket: 'minute',
          limit: 600,
          remaining: 0,
          resetSeconds: 50,
          retryAfterSeconds: 50,
        });
        clock.t = BASE + MINUTE - 1;
        assert.equal((await l.consume(key, WORKSPACE_BUCKETS)).retryAfterSeconds, 1);
        clock.t = BASE + MINUTE;
        assert.deepEqual(await l.consume(key, WORKSPACE_BUCKETS), {
          allowed: true,
          bucket: 'hour',
          limit: 5000,
          remaining: 4399,
          resetSeconds: 3540,
          retryAfterSeconds: null,
        });
      }));

    test('hour bucket: 5000 allowed, then rejected until the next hour', () =>
      withLimiter(backend, async (l, clock, key) => {
        let left = 5000;
        for (let m = 0; left > 0; m++) {
          for (let s = 0; s < 10 && left > 0; s++) {
            clock.t = BASE + m * MINUTE + s * SECOND;
            const n = Math.min(60, left);
            assert.equal(allowed(await burst(l, key, n)), n);
            left -= n;
          }
        }
        clock.t = BASE + 9 * MINUTE;
        assert.deepEqual(await l.consume(key, WORKSPACE_BUCKETS), {
          allowed: false,
          bucket: 'hour',
          limit: 5000,
          remaining: 0,
          resetSeconds: 3060,
          retryAfterSeconds: 3060,
        });
        clock.t = BASE + HOUR - 1;
        assert.equal((await l.consume(key, WORKSPACE_BUCKETS)).retryAfterSeconds, 1);
        clock.t = BASE + HOUR;
        assert.equal((await l.consume(key, WORKSPACE_BUCKETS)).allowed, true);
      }));

    test('a rejected request counts against no bucket', () =>
      withLimiter(backend, async (l, clock, key) => {
        const buckets = [
          { name: 'a', limit: 2, windowMs: SECOND },
          { name: 'b', limit: 4, windowMs: MINUTE },
        ];
        assert.equal(allowed(await burst(l, key, 2, buckets)), 2);
        // Only 'a' is exhausted; 'b' would reach 5 of 4 if rejections were counted there.
        const rejected = {
          allowed: false,
          bucket: 'a',
          limit: 2,
          remaining: 0,
          resetSeconds: 1,
          retryAfterSeconds: 1,
        };
        for (const d of await burst(l, key, 3, buckets)) assert.deepEqual(d, rejected);
        clock.t = BASE + SECOND;
        assert.deepEqual(await l.consume(key, buckets), {
          allowed: true,
          bucket: 'b',
          limit: 4,
          remaining: 1,
          resetSeconds: 59,
          retryAfterSeconds: null,
        });
      }));

    test('the PDF bucket is counted on top of the workspace buckets', () =>
      withLimiter(backend, async (l, clock, key) => {
        const pdf = [...WORKSPACE_BUCKETS, ...PDF_BUCKETS];
        for (const s of [0, 1]) {
          clock.t = BASE + s * SECOND;
          assert.equal(allowed(await burst(l, key, 30, pdf)), 30);
        }
        clock.t = BASE + 2 * SECOND;
        assert.deepEqual(await l.consume(key, pdf), {
          allowed: false,
          bucket: 'pdf-hour',
          limit: 60,
          remaining: 0,
          resetSeconds: 3598,
          retryAfterSeconds: 3598,
        });
        assert.equal((await l.consume(key, WORKSPACE_BUCKETS)).allowed, true);
        // Its window ends with the hour, like the workspace hour bucket's.
        clock.t = BASE + HOUR - 1;
        assert.equal((await l.consume(key, pdf)).retryAfterSeconds, 1);
        clock.t = BASE + HOUR;
        assert.equal((await l.consume(key, pdf)).allowed, true);
      }));

    test('headers describe the most used bucket', () =>
      withLimiter(backend, async (l, clock, key) => {
        const buckets = [
          { name: 'fast', limit: 10, windowMs: SECOND },
          { name: 'slow', limit: 15, windowMs: 10 * SECOND },
        ];
        const first = await burst(l, key, 9, buckets);
        assert.deepEqual(first[8], {
          allowed: true,
          bucket: 'fast',
          limit: 10,
          remaining: 1,
          resetSeconds: 1,
          retryAfterSeconds: null,
        });
        clock.t = BASE + SECOND;
        // fast 1/10, slow 10/15.
        assert.deepEqual(await l.consume(key, buckets), {
          allowed: true,
          bucket: 'slow',
          limit: 15,
          remaining: 5,
          resetSeconds: 9,
          retryAfterSeconds: null,
        });
      }));

    test('equally used buckets: the headers describe the one that resets later, in any order', () =>
      withLimiter(backend, async (l, _clock, key) => {
        const short = { name: 'short', limit: 10, windowMs: SECOND };
        const long = { name: 'long', limit: 10, windowMs: MINUTE };
        const expected = {
          allowed: true,
          bucket: 'long',
          limit: 10,
          remaining: 9,
          resetSeconds: 60,
          retryAfterSeconds: null,
        };
        assert.deepEqual(await l.consume(key, [short, long]), expected);
        assert.deepEqual(await l.consume(`${key}-2`, [long, short]), expected);
        // Both exhausted: the headers and Retry-After follow the later reset.
        const one = [
          { name: 'a', limit: 1, windowMs: SECOND },
          { name: 'b', limit: 1, windowMs: MINUTE },
        ];
        await l.consume(`${key}-3`, one);
        assert.deepEqual(await l.consume(`${key}-3`, one), {
          allowed: false,
          bucket: 'b',
          limit: 1,
          remaining: 0,
          resetSeconds: 60,
          retryAfterSeconds: 60,
        });
      }));

    test('resetSeconds is the whole seconds left in the window, rounded up', () =>
      withLimiter(backend, async (l, clock, key) => {
        const buckets = [{ name: 'm', limit: 1000, windowMs: MINUTE }];
        const cases: [number, number][] = [
          [0, 60],
          [1, 60],
          [58_000, 2],
          [58_001, 2],
          [59_001, 1],
          [59_999, 1],
          [60_000, 60],
        ];
        for (const [offset, seconds] of cases) {
          clock.t = BASE + offset;
          assert.equal((await l.consume(key, buckets)).resetSeconds, seconds, `at +${offset} ms`);
        }
      }));

    test('Retry-After is never early and waits for the exhausted bucket that resets last', () =>
      withLimiter(backend, async (l, clock, key) => {
        const one = [{ name: 'x', limit: 1, windowMs: SECOND }];
        for (const offset of [0, 1, 499, 999]) {
          const k = `${key}-${offset}`;
          clock.t = BASE + 5 * SECOND + offset;
          await l.consume(k, one);
          const d = await l.consume(k, one);
          assert.equal(d.allowed, false);
          assert.equal(d.retryAfterSeconds, 1);
          clock.t += (d.retryAfterSeconds ?? 0) * SECOND;
          assert.equal((await l.consume(k, one)).allowed, true, `obeying Retry-After at +${offset} ms`);
        }
        // 'a' (1 s) and 'b' (1 min) are exhausted, 'c' resets later but still has room.
        const buckets = [
          { name: 'a', limit: 1, windowMs: SECOND },
          { name: 'b', limit: 1, windowMs: MINUTE },
          { name: 'c', limit: 100, windowMs: HOUR },
        ];
        clock.t = BASE + 30_250;
        await l.consume(key, buckets);
        const d = await l.consume(key, buckets);
        assert.equal(d.retryAfterSeconds, 30);
        const start = clock.t;
        clock.t = start + 29_749;
        assert.equal((await l.consume(key, buckets)).allowed, false);
        clock.t = start + 30 * SECOND;
        assert.equal((await l.consume(key, buckets)).allowed, true);
      }));

    test('refund gives back one request in every bucket, never below zero', () =>
      withLimiter(backend, async (l, clock, key) => {
        assert.equal(allowed(await burst(l, key, 60)), 60);
        await l.refund(key, WORKSPACE_BUCKETS);
        assert.deepEqual(await l.consume(key, WORKSPACE_BUCKETS), {
          allowed: true,
          bucket: 'second',
          limit: 60,
          remaining: 0,
          resetSeconds: 1,
          retryAfterSeconds: null,
        });
        assert.equal((await l.consume(key, WORKSPACE_BUCKETS)).allowed, false);

        // All 60 refunded: the minute and hour buckets are back to zero too.
        const k2 = `${key}-2`;
        await burst(l, k2, 60);
        for (let i = 0; i < 60; i++) await l.refund(k2, WORKSPACE_BUCKETS);
        clock.t = BASE + SECOND;
        assert.equal((await l.consume(k2, WORKSPACE_BUCKETS)).remaining, 59);

        // Refunding what was never counted gives no credit.
        const k3 = `${key}-3`;
        for (let i = 0; i < 3; i++) await l.refund(k3, WORKSPACE_BUCKETS);
        assert.equal(allowed(await burst(l, k3, 63)), 60);
      }));

    test('peek answers what consume would, and counts nothing (the admin token throttle, decision P68)', () =>
      withLimiter(backend, async (l, clock, key) => {
        clock.t = BASE + 10 * SECOND;
        const buckets = [{ name: 'failures', limit: 3, windowMs: MINUTE }];
        for (let i = 0; i < 5; i++) assert.equal((await l.peek(key, buckets)).remaining, 3);
        await burst(l, key, 2, buckets);
        assert.deepEqual(await l.peek(key, buckets), {
          allowed: true,
          bucket: 'failures',
          limit: 3,
          remaining: 1,
          resetSeconds: 50,
          retryAfterSeconds: null,
        });
        await burst(l, key, 1, buckets);
        const exhausted = { allowed: false, bucket: 'failures', limit: 3, remaining: 0, resetSeconds: 50 };
        assert.deepEqual(await l.peek(key, buckets), { ...exhausted, retryAfterSeconds: 50 });
        assert.deepEqual(await l.consume(key, buckets), { ...exhausted, retryAfterSeconds: 50 });
        clock.t = BASE + MINUTE;
        assert.equal((await l.peek(key, buckets)).remaining, 3);
      }));
  });
}

behaviour(memoryBackend);
behaviour(redisBackend, needsRedis);

describe('memory limiter: concurrency and pruning', () => {
  test('100 concurrent requests in one second: exactly 60 allowed', async () => {
    const l = createMemoryRateLimiter({ now: () => BASE });
    const ds = await Promise.all(Array.from({ length: 100 }, () => l.consume('k', WORKSPACE_BUCKETS)));
    assert.equal(allowed(ds), 60);
    await l.close();
  });

  test('counters of past windows are pruned', async () => {
    const clock = { t: BASE };
    const l = createMemoryRateLimiter({ now: () => clock.t });
    for (let i = 0; i < 10; i++) await l.consume(`k${i}`, WORKSPACE_BUCKETS);
    assert.equal(l.size, 30);
    clock.t = BASE + 2 * HOUR;
    await l.consume('k0', WORKSPACE_BUCKETS);
    assert.equal(l.size, 3);
    await l.close();
  });

  test('default buckets', () => {
    assert.deepEqual(
      WORKSPACE_BUCKETS.map((b) => [b.limit, b.windowMs]),
      [
        [60, SECOND],
        [600, MINUTE],
        [5000, HOUR],
      ],
    );
    assert.deepEqual(
      PDF_BUCKETS.map((b) => [b.limit, b.windowMs]),
      [[60, HOUR]],
    );
    assert.ok(ADDRESS_BUCKETS.length > 0);
    const names = [...WORKSPACE_BUCKETS, ...PDF_BUCKETS, ...ADDRESS_BUCKETS].map((b) => b.name);
    assert.equal(new Set(names).size, names.length, 'bucket names share a key namespace');
  });
});

/** A TCP proxy to the real Redis that can be started late and can hold back Redis's answers. */
async function startProxy(port: number) {
  const target = new URL(REDIS_URL);
  const sockets = new Set<net.Socket>();
  const held: [net.Socket, Buffer][] = [];
  let stalled = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d: Buffer) => (stalled ? held.push([client, d]) : client.write(d)));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) s.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      // Replies are delivered late, in order, so the client's reply queue stays aligned.
      for (const [s, d] of held.splice(0)) if (!s.destroyed) s.write(d);
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

async function until(cond: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const urlOnPort = (port: number) => {
  const u = new URL(REDIS_URL);
  u.hostname = '127.0.0.1';
  u.port = String(port);
  return u.href;
};

// These need no Redis: nothing listens on port 1, and the silent server is a plain TCP socket.
describe('redis limiter: outages', () => {
  test('without REDIS_URL the process limits in memory', async () => {
    const l = createRateLimiter({ redisUrl: undefined, logger: testLogger() });
    assert.equal(l.mode, 'memory');
    await l.close();
  });

  test('unreachable Redis: answers from memory, never throws, logs the incident once without the URL', async () => {
    const logs = new LogCapture();
    const l = createRateLimiter({
      redisUrl: 'redis://:hunter2-password@127.0.0.1:1',
      logger: testLogger(logs),
      now: () => BASE,
    });
    try {
      const ds = await burst(l, 'k', 61);
      assert.equal(allowed(ds), 60, 'the in-process limits still apply');
      assert.equal(ds[60]?.retryAfterSeconds, 1);
      await l.refund('k', WORKSPACE_BUCKETS);
      assert.equal(l.mode, 'redis-fallback');
      assert.deepEqual(l.fallback, { outages: 1, decisions: 61 });
      const records = logs.records();
      assert.deepEqual(
        records.map((r) => [r.level, r.event]),
        [[40, 'rate_limiter_redis_down']],
      );
      assert.equal(typeof records[0].err, 'string');
      assert.equal(logs.text().includes('hunter2'), false);
    } finally {
      await l.close();
    }
  });

  test('while down, repeated probes do not report the incident again', async () => {
    const incidents: string[] = [];
    const l = createRedisRateLimiter({
      url: 'redis://127.0.0.1:1',
      now: () => BASE,
      commandTimeoutMs: 10,
      probeIntervalMs: 0,
      onIncident: (state) => incidents.push(state),
    });
    try {
      for (let i = 0; i < 20; i++) assert.equal((await l.consume('k', WORKSPACE_BUCKETS)).allowed, true);
      assert.deepEqual(incidents, ['down']);
    } finally {
      await l.close();
    }
  });

  test('a server that never answers: falls back within the command timeout', async () => {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((s) => sockets.add(s));
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const l = createRedisRateLimiter({ url: urlOnPort(port), now: () => BASE });
    try {
      const start = performance.now();
      const d = await l.consume('k', WORKSPACE_BUCKETS);
      assert.ok(performance.now() - start < 1000);
      assert.equal(d.allowed, true);
      assert.equal(l.mode, 'redis-fallback');
    } finally {
      await l.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('redis limiter: shared state and recovery', needsRedis, () => {
  test(`Redis is reachable at ${REDIS_URL}`, async () => {
    const raw = new Redis(REDIS_URL, { maxRetriesPerRequest: 0, lazyConnect: true });
    try {
      await raw.connect();
      assert.equal(await raw.ping(), 'PONG');
    } finally {
      raw.disconnect();
    }
  });

  test('100 concurrent requests through two instances sharing Redis: exactly 60 allowed', async () => {
    const now = () => BASE + 500;
    const a = createRedisRateLimiter({ url: REDIS_URL, now, commandTimeoutMs: 2000 });
    const b = createRedisRateLimiter({ url: REDIS_URL, now, commandTimeoutMs: 2000 });
    try {
      const key = newKey();
      const ds = await Promise.all(
        Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).consume(key, WORKSPACE_BUCKETS)),
      );
      assert.equal(allowed(ds), 60);
      for (const l of [a, b]) redisBackend.verify(l);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('counters are namespaced keys that expire at the end of their window', async () => {
    const t = BASE + 250;
    const l = createRedisRateLimiter({ url: REDIS_URL, now: () => t, commandTimeoutMs: 2000 });
    const raw = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
    try {
      const key = newKey();
      await l.consume(key, WORKSPACE_BUCKETS);
      redisBackend.verify(l);
      const second = await raw.pttl(`tprm:rl:{${key}}:second:${Math.floor(t / SECOND)}`);
      const hour = await raw.pttl(`tprm:rl:{${key}}:hour:${Math.floor(t / HOUR)}`);
      // Window end plus one second of grace for clock skew between instances.
      assert.ok(second > 1000 && second <= 1750, `second bucket TTL ${second}`);
      assert.ok(hour > HOUR - 1000 && hour <= HOUR - 250 + 1000, `hour bucket TTL ${hour}`);
    } finally {
      await l.close();
      raw.disconnect();
    }
  });

  test('goes back to Redis when it answers again, after a refused connection and after a stall', async () => {
    const port = await freePort();
    const incidents: string[] = [];
    const l = createRedisRateLimiter({
      url: urlOnPort(port),
      now: () => BASE,
      probeIntervalMs: 20,
      onIncident: (state) => incidents.push(state),
    });
    let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
    const key = newKey();
    const consume = async () => {
      await l.consume(key, WORKSPACE_BUCKETS);
      return l.mode === 'redis';
    };
    try {
      await consume();
      assert.equal(l.mode, 'redis-fallback');
      proxy = await startProxy(port);
      await until(consume);
      assert.deepEqual(incidents, ['down', 'up']);

      proxy.stall();
      const start = performance.now();
      await l.consume(key, WORKSPACE_BUCKETS);
      assert.ok(performance.now() - start < 1000);
      assert.equal(l.mode, 'redis-fallback');
      proxy.resume();
      await until(consume);
      assert.deepEqual(incidents, ['down', 'up', 'down', 'up']);
    } finally {
      await l.close();
      await proxy?.close();
    }
  });
});
