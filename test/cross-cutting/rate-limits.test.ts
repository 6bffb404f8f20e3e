// risk-data-api.md "Limits" and "Authentication" 8; decisions 19, 20, 29, 39: buckets per workspace, headers
// for the most used bucket, 429 with Retry-After, bad credentials limited per address; through the real
// pipeline, on one instance and on two sharing Redis, with Redis stopped and stalled mid-run.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import {
  type Bucket,
  createMemoryRateLimiter,
  createRateLimiter,
  PDF_BUCKETS,
  type RateLimiter,
  REFERENCE_BUCKETS,
  WORKSPACE_BUCKETS,
} from '../../src/http/rate-limit.js';
import { assertError, Harness, type Response, useHarness } from '../support/harness.js';
import { LogCapture, testLogger } from '../support/logs.js';
import { type Scrape, scrape } from '../support/metrics.js';
import { type PrivateRedis, privateRedisUnavailable, startPrivateRedis } from '../support/redis.js';

// The Redis tests run when TEST_REDIS_URL is set, like every Redis test (decision P15); they start their own
// redis-server (CI has it installed), and say so when they skip for want of it.
const needsRedis = {
  skip: (!process.env.TEST_REDIS_URL && 'TEST_REDIS_URL is not set') || privateRedisUnavailable || false,
};

let clock = Date.parse('2026-01-01T00:00:00.200Z');

const { h, ws } = useHarness({
  limiter: createMemoryRateLimiter({ now: () => clock }),
  buckets: {
    workspace: WORKSPACE_BUCKETS,
    pdf: PDF_BUCKETS,
    address: [{ name: 'addr-second', limit: 5, windowMs: 1000 }],
    reference: REFERENCE_BUCKETS,
  },
  workspaces: ['ws'],
});

describe("workspace buckets with the specification's limits", () => {
  test('60 requests in one second pass, the 61st is a 429 with Retry-After; 4xx count too; a 429 consumes nothing', async () => {
    clock = Date.parse('2026-01-01T00:10:00.200Z');
    const statuses: number[] = [];
    for (let i = 0; i < 59; i++)
      statuses.push((await h.api('GET', '/suppliers?limit=1', { key: ws.key })).status);
    statuses.push((await h.api('GET', '/suppliers?status=bogus', { key: ws.key })).status);
    assert.deepEqual([...new Set(statuses)], [200, 400]);
    const limited = await h.api('GET', '/suppliers', { key: ws.key });
    assertError(limited, 429, 'rate_limit_exceeded');
    assert.equal(limited.headers['retry-after'], '1');
    assert.equal(limited.headers['x-ratelimit-remaining'], '0');
    await h.api('GET', '/suppliers', { key: ws.key });
    clock += 800; // next second
    const next = await h.api('GET', '/suppliers', { key: ws.key });
    assert.equal(next.status, 200);
    // 60 were counted in the previous second and the two 429s were not: the minute bucket, now the most used
    // (61/600 against 1/60), has 600 - 61 left.
    assert.equal(next.headers['x-ratelimit-limit'], '600');
    assert.equal(next.headers['x-ratelimit-remaining'], '539');
  });

  test('headers describe the bucket with the highest used fraction; X-RateLimit-Reset is seconds until it resets', async () => {
    clock = Date.parse('2026-01-01T01:00:00.500Z');
    const w = await h.workspace();
    const res = await h.api('GET', '/suppliers', { key: w.key });
    // 1/60 of the second bucket beats 1/600 and 1/5000.
    assert.equal(res.headers['x-ratelimit-limit'], '60');
    assert.equal(res.headers['x-ratelimit-remaining'], '59');
    assert.equal(res.headers['x-ratelimit-reset'], '1');
  });

  test('requests with bad keys never touch the workspace budget; they are limited per client address', async () => {
    clock = Date.parse('2026-01-01T02:00:00.100Z');
    const w = await h.workspace();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++)
      statuses.push(
        (await h.api('GET', '/suppliers', { key: 'tprm_00000000_bad', remoteAddress: '10.1.1.1' })).status,
      );
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
    const fromElsewhere = await h.api('GET', '/suppliers', {
      key: 'tprm_00000000_bad',
      remoteAddress: '10.1.1.2',
    });
    assert.equal(fromElsewhere.status, 401);
    const good = await h.api('GET', '/suppliers', { key: w.key, remoteAddress: '10.1.1.1' });
    assert.equal(good.status, 200);
    assert.equal(good.headers['x-ratelimit-remaining'], '59');
  });

  test('a key revoked while another instance still caches it: that 401 carries no rate-limit headers and gives its count back', async () => {
    clock = Date.parse('2026-01-01T02:40:00.100Z');
    const w = await h.workspace();
    const key = await h.key(w.id, w.userId, ['suppliers:read']);
    const other = await h.secondInstance({ limiter: h.services.limiter });
    const viaOther = () => via(other, key.secret);
    assert.equal((await viaOther()).headers['x-ratelimit-remaining'], '59'); // cached there from now on
    assert.equal((await h.admin('POST', `/admin/api-keys/${key.id}/revoke`)).status, 200);
    const refused = await viaOther();
    assertError(refused, 401, 'invalid_api_key');
    assert.deepEqual(
      Object.keys(refused.headers).filter((name) => name.startsWith('x-ratelimit')),
      [],
      'decision 39: the workspace is unknown',
    );
    assert.equal((await h.api('GET', '/suppliers', { key: w.key })).headers['x-ratelimit-remaining'], '58');
  });

  test("a revoked key of the workspace is limited per address too: the workspace's budget stays whole", async () => {
    clock = Date.parse('2026-01-01T02:30:00.100Z');
    const w = await h.workspace();
    const revoked = await h.key(w.id, w.userId, ['suppliers:read']);
    assert.equal((await h.admin('POST', `/admin/api-keys/${revoked.id}/revoke`)).status, 200);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push(
        (await h.api('GET', '/suppliers', { key: revoked.secret, remoteAddress: '10.1.2.1' })).status,
      );
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
    const good = await h.api('GET', '/suppliers', { key: w.key, remoteAddress: '10.1.2.1' });
    assert.equal(good.headers['x-ratelimit-remaining'], '59');
  });
});

describe('routes without a key (decisions 4, 29, P69)', () => {
  /** A 429 of a client address: the error shape, Retry-After, and no rate-limit headers (no workspace). */
  const assertAddressLimited = (res: Response, retryAfter: string) => {
    assertError(res, 429, 'rate_limit_exceeded');
    assert.equal(res.headers['retry-after'], retryAfter);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.deepEqual(
      Object.keys(res.headers).filter((name) => name.startsWith('x-ratelimit')),
      [],
    );
  };

  test('the API reference and the signed downloads count against the client address: past its limit, 429 in the error shape', async () => {
    clock = Date.parse('2026-01-01T05:00:00.100Z');
    const paths = {
      '/openapi.json': 200,
      '/docs': 200,
      '/docs/redoc.standalone.js': 200,
      '/files/not-a-token?expires=1&signature=x': 404,
    };
    for (const [i, [path, status]] of Object.entries(paths).entries()) {
      const remoteAddress = `10.3.0.${i}`;
      const statuses: number[] = [];
      for (let n = 0; n < 5; n++) statuses.push((await h.api('GET', path, { remoteAddress })).status);
      assert.deepEqual(statuses, Array(5).fill(status), path);
      assertAddressLimited(await h.api('GET', path, { remoteAddress }), '1');
      // Conditional requests count too, and so does the key's 401: one budget for all that has no key.
      assertAddressLimited(
        await h.api('GET', path, { remoteAddress, headers: { 'if-none-match': '*' } }),
        '1',
      );
      assertAddressLimited(
        await h.api('GET', '/suppliers', { key: 'tprm_00000000_bad', remoteAddress }),
        '1',
      );
      assert.equal(
        (await h.api('GET', path, { remoteAddress: '10.3.1.1' })).status,
        status,
        'another address',
      );
    }
    clock += 1000;
    assert.equal((await h.api('GET', '/openapi.json', { remoteAddress: '10.3.0.0' })).status, 200);
  });

  test('the reference files have a budget of their own a minute on top: a flood of big files is cut short', async () => {
    clock = Date.parse('2026-01-01T05:10:00.100Z');
    const [bucket] = REFERENCE_BUCKETS;
    assert.ok(bucket);
    const remoteAddress = '10.3.2.1';
    const files = [
      '/docs',
      '/docs/reference.css',
      '/docs/redoc.standalone.js',
      '/docs/reference.js',
      '/openapi.json',
    ];
    // Under the address's own limit of 5 a second, one page load a second.
    for (let n = 0; n < bucket.limit; n++) {
      if (n > 0 && n % files.length === 0) clock += 1000;
      const res = await h.api('GET', files[n % files.length] as string, { remoteAddress });
      assert.equal(res.status, 200, `request ${n + 1}`);
    }
    clock += 1000;
    const secondsLeft = String(Math.ceil((bucket.windowMs - (clock % bucket.windowMs)) / 1000));
    assertAddressLimited(await h.api('GET', '/openapi.json', { remoteAddress }), secondsLeft);
    // Only the reference files count against it: the address may still present keys.
    assert.equal((await h.api('GET', '/suppliers', { key: 'tprm_00000000_bad', remoteAddress })).status, 401);
    clock += Number(secondsLeft) * 1000;
    assert.equal((await h.api('GET', '/openapi.json', { remoteAddress })).status, 200);
  });

  test('health and readiness probes and /metrics are never limited, even from an address past its limit', async () => {
    clock = Date.parse('2026-01-01T05:20:00.100Z');
    const remoteAddress = '10.3.3.1';
    for (let n = 0; n < 6; n++) await h.api('GET', '/openapi.json', { remoteAddress });
    assertAddressLimited(await h.api('GET', '/openapi.json', { remoteAddress }), '1');
    for (let n = 0; n < 20; n++)
      for (const url of ['/healthz', '/readyz', '/metrics'])
        assert.equal((await h.adminApp.inject({ method: 'GET', url, remoteAddress })).statusCode, 200, url);
  });
});

/** The same request through another instance of the fleet (Harness.api talks to the first). */
async function via(app: FastifyInstance, key: string): Promise<Response> {
  const res = await app.inject({
    method: 'GET',
    url: '/v1/suppliers?limit=1',
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.statusCode, headers: res.headers, body: res.body, json: JSON.parse(res.body) };
}

/** `n` requests at once, alternating between `apps` (one app: all to it). */
function burst(apps: FastifyInstance[], key: string, n: number): Promise<Response[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => via(apps[i % apps.length] as FastifyInstance, key)));
}

/**
 * Exactly `passed` answered 200 and every other one a 429 with Retry-After 1; never a 500. With `counters`
 * (how many independent counters the 200s were taken from: 1 shared, or one per process), each slot of the
 * second bucket went to exactly one request per counter: X-RateLimit-Remaining 59 … 0, `counters` times each.
 */
function assertPassed(responses: Response[], passed: number, counters?: number): void {
  const ok = responses.filter((r) => r.status === 200);
  const limited = responses.filter((r) => r.status === 429);
  assert.equal(ok.length, passed, `statuses ${responses.map((r) => r.status).join(',')}`);
  assert.equal(limited.length, responses.length - passed);
  for (const r of limited) {
    assertError(r, 429, 'rate_limit_exceeded');
    assert.equal(r.headers['retry-after'], '1');
  }
  if (counters === undefined) return;
  const remaining = ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((x, y) => x - y);
  const slots = Array.from({ length: 60 }, (_, i) => Array<number>(counters).fill(i)).flat();
  assert.deepEqual(remaining, slots);
}

describe('100 concurrent requests within one second (decision 19)', () => {
  // The limiter's clock stands still in the middle of a second, so the burst cannot straddle a boundary
  // however long it takes in real time.
  test('one instance: exactly 60 pass, 40 are 429', async () => {
    clock = Date.parse('2026-01-01T03:00:00.500Z');
    const w = await h.workspace();
    assertPassed(await burst([h.publicApp], w.key, 100), 60, 1);
  });
});

// Two API instances on one database, each with its own limiter on a private redis-server that the test can
// kill, restart and stall (the machine's shared Redis is never touched). Each limiter logs to its own capture.
describe('two instances sharing Redis', needsRedis, () => {
  let redis: PrivateRedis;
  let fleet: Harness;
  let apps: FastifyInstance[];
  let a: RateLimiter;
  let b: RateLimiter;
  const logsA = new LogCapture();
  const logsB = new LogCapture();
  // Stands still mid-second; each step moves to the next second.
  const fleetClock = { t: Date.parse('2026-01-01T04:00:00.500Z') };
  const nextSecond = () => {
    fleetClock.t += 1000;
  };
  const COMMAND_TIMEOUT_MS = 1500;
  const limiter = (logs: LogCapture): RateLimiter =>
    createRateLimiter({
      redisUrl: redis.url,
      logger: testLogger(logs),
      now: () => fleetClock.t,
      // Generous: the test processes run PGlite, which holds the event loop, on a busy CI machine; a reply
      // read late must not look like an outage.
      commandTimeoutMs: COMMAND_TIMEOUT_MS,
      probeIntervalMs: 50,
    });

  before(async () => {
    redis = await startPrivateRedis();
    a = limiter(logsA);
    b = limiter(logsB);
    fleet = await Harness.start({ limiter: a, logs: logsA, buckets: { workspace: WORKSPACE_BUCKETS } });
    apps = [fleet.publicApp, await fleet.secondInstance({ limiter: b })];
  });
  after(async () => {
    await fleet?.close();
    await redis?.close();
  });

  test('100 concurrent requests alternating between the two: exactly 60 pass in all', async () => {
    assertPassed(await burst(apps, (await fleet.workspace()).key, 100), 60, 1);
    assert.deepEqual([a.mode, b.mode], ['redis', 'redis']);
  });

  test('Redis killed, then stalled, mid-run: per-process limits, never a 500, one log line per incident, counted in /metrics; shared again once back', async () => {
    const incidents = (logs: LogCapture) =>
      logs.records().flatMap((r) => (r.event?.startsWith('rate_limiter_redis_') ? [[r.level, r.event]] : []));
    const down = [40, 'rate_limiter_redis_down'];
    const up = [30, 'rate_limiter_redis_up'];
    // While down, a decision probes Redis at most once per probe interval; these decisions do it.
    const PROBE: Bucket[] = [{ name: 'probe', limit: 1e9, windowMs: 1000 }];
    const backToRedis = async () => {
      const deadline = Date.now() + 10_000;
      for (const l of [a, b]) {
        for (;;) {
          await l.consume('probe', PROBE);
          if (l.mode === 'redis') break;
          assert.ok(Date.now() < deadline, 'the limiter did not go back to Redis');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    };
    const rejected = (m: Scrape) => m.value('tprm_rate_limited_total', { bucket: 'second' });
    const fallbacks = (m: Scrape) => m.value('tprm_rate_limiter_fallback_decisions_total');

    // Killed: each process now allows 60 on its own, and says so once.
    await redis.kill();
    nextSecond();
    // Created first: management requests consult the limiter too (the admin-token throttle, P68).
    const killed = await fleet.workspace();
    const before = await scrape(fleet.adminApp);
    assertPassed(await burst(apps, killed.key, 140), 120, 2);
    nextSecond();
    assertPassed(await burst(apps, killed.key, 20), 20);
    assert.deepEqual(incidents(logsA), [down]);
    assert.deepEqual(incidents(logsB), [down]);
    const during = await scrape(fleet.adminApp);
    assert.equal(during.value('tprm_rate_limiter_mode', { mode: 'redis-fallback' }), 1);
    assert.equal(during.value('tprm_rate_limiter_mode', { mode: 'redis' }), 0);
    assert.equal(during.value('tprm_rate_limiter_redis_outages_total'), 1);
    // Instance A decided 80 requests, all in memory (a failed probe falls back too); 10 were refused.
    assert.equal(fallbacks(during) - fallbacks(before), 80);
    assert.equal(rejected(during) - rejected(before), 10);

    // Back: shared limits again, and one line says so.
    await redis.start();
    await backToRedis();
    nextSecond();
    assertPassed(await burst(apps, (await fleet.workspace()).key, 80), 60, 1);
    assert.deepEqual(incidents(logsA), [down, up]);
    assert.deepEqual(incidents(logsB), [down, up]);
    assert.equal((await scrape(fleet.adminApp)).value('tprm_rate_limiter_mode', { mode: 'redis' }), 1);

    // Stalled (SIGSTOP: connected, never answering): requests fall back after the command timeout.
    redis.pause();
    nextSecond();
    const stalled = await fleet.workspace();
    const start = performance.now();
    assertPassed(await burst(apps, stalled.key, 140), 120, 2);
    const elapsed = performance.now() - start;
    assert.ok(
      elapsed < COMMAND_TIMEOUT_MS + 2000,
      `a stalled Redis held requests for ${Math.round(elapsed)} ms`,
    );
    assert.deepEqual(incidents(logsA), [down, up, down]);
    redis.resume();
    await backToRedis();
    assert.deepEqual(incidents(logsA), [down, up, down, up]);
    assert.deepEqual(incidents(logsB), [down, up, down, up]);
    assert.equal((await scrape(fleet.adminApp)).value('tprm_rate_limiter_redis_outages_total'), 2);
  });
});
