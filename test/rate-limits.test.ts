// risk-data-api.md "Limits" and "Authentication" 8; decisions 19, 20, 29, 39: buckets per workspace, headers
// for the most used bucket, 429 with Retry-After, bad credentials limited per address.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createMemoryRateLimiter, PDF_BUCKETS, WORKSPACE_BUCKETS } from '../src/http/rate-limit.js';
import { assertError, Harness, type TestWorkspace } from './support/harness.js';

let h: Harness;
let ws: TestWorkspace;
let clock = Date.parse('2026-01-01T00:00:00.200Z');

before(async () => {
  h = await Harness.start({
    limiter: createMemoryRateLimiter({ now: () => clock }),
    buckets: {
      workspace: WORKSPACE_BUCKETS,
      pdf: PDF_BUCKETS,
      address: [{ name: 'addr-second', limit: 5, windowMs: 1000 }],
    },
  });
  ws = await h.workspace();
});
after(() => h.close());

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
});
