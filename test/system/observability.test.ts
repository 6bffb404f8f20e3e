// Issue 5 "Fleet": structured JSON logs, one line per request with request id, workspace id, route, status and
// duration, never a key, secret, token or personal value; /metrics in Prometheus text with requests by route
// and status, a latency histogram, rate-limit rejections by bucket and database pool use.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { ADDRESS_BUCKETS, createMemoryRateLimiter, WORKSPACE_BUCKETS } from '../../src/http/rate-limit.js';
import type { Queryable } from '../../src/storage/db.js';
import { ENGINE, type Harness, type Response, useHarness } from '../support/harness.js';
import { findLeaks, LogCapture } from '../support/logs.js';
import { findPromtool, promtoolProblems, scrape } from '../support/metrics.js';

const logs = new LogCapture();

const { h } = useHarness({
  logs,
  env: { PUBLIC_BASE_URL: 'https://api.example.test' },
  // The production buckets on a clock that stands still: counting is exact whatever the machine's speed.
  limiter: createMemoryRateLimiter({ now: () => Date.parse('2026-01-01T00:00:00.500Z') }),
  buckets: { workspace: WORKSPACE_BUCKETS, address: ADDRESS_BUCKETS },
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
// biome-ignore lint/suspicious/noExplicitAny: log records are arbitrary JSON
const requestLines = (): any[] => logs.records().filter((r) => r.msg === 'request');

describe('logs', () => {
  test('the leak check finds a value, escaped as in JSON, and secret-shaped text it was not told about', () => {
    const line = `${JSON.stringify({ msg: 'x', note: 'say "hello world" twice' })}\n`;
    assert.equal(findLeaks(line, ['say "hello world"']).length, 1);
    assert.equal(findLeaks(line, ['goodbye world']).length, 0);
    assert.equal(findLeaks('{"k":"mail me at ada@example.org"}', []).length, 1);
    assert.equal(findLeaks(`{"k":"tprm_0123abcd_${'x'.repeat(43)}"}`, []).length, 1);
  });

  test('a realistic session: one JSON line per request with its fields, and no secret or personal value anywhere', async () => {
    const made: { res: Response; listener: 'public' | 'admin'; route: string; workspace: string | null }[] =
      [];
    const admin = async (
      method: string,
      url: string,
      route: string,
      workspace: string | null,
      body?: unknown,
    ) => {
      const res = await h.admin(method, url, body);
      made.push({ res, listener: 'admin', route: `/admin${route}`, workspace });
      return res;
    };
    const api = async (
      method: string,
      url: string,
      route: string,
      workspace: string | null,
      options: Parameters<Harness['api']>[2] = {},
    ) => {
      const res = await h.api(method, url, options);
      made.push({ res, listener: 'public', route, workspace });
      return res;
    };

    // Personal values and secrets of the session.
    const person = { name: 'Grace Hopper', email: 'grace.hopper@customer.example' };
    const supplierEmail = 'security-desk@supplier-one.example';
    const contact = { name: 'Linus Contactperson', email: 'linus.contactperson@supplier-two.example' };
    const onboarding = { dpo_phone: '+41 44 555 01 23', signed_by: 'Margaret Onboarding' };
    const unknownKey = `tprm_0badc0de_${randomBytes(32).toString('base64url')}`;
    const wrongAdminToken = `tprm_admin_${randomBytes(32).toString('base64url')}`;

    const ws = await admin('POST', '/admin/workspaces', '/workspaces', null, {
      name: 'Observed Ltd',
      plan: 'enterprise',
    });
    const W = ws.json.id as string;
    const user = await admin('POST', `/admin/workspaces/${W}/users`, '/workspaces/:id/users', W, person);
    const newKey = async (scopes: string[]) =>
      (
        await admin('POST', `/admin/workspaces/${W}/api-keys`, '/workspaces/:id/api-keys', W, {
          name: 'integration',
          scopes,
          created_by: user.json.id,
        })
      ).json;
    const key = await newKey(['suppliers:read', 'suppliers:write', 'reports:read', 'pii:read']);
    const revoked = await newKey(['suppliers:read']);
    const endpoint = await admin(
      'POST',
      `/admin/workspaces/${W}/webhook-endpoints`,
      '/workspaces/:id/webhook-endpoints',
      W,
      { url: 'https://hooks.customer.example/tprm', events: ['report.ready'] },
    );
    const S2 = randomUUID();
    const R1 = randomUUID();
    await admin('POST', `/admin/workspaces/${W}/import`, '/workspaces/:id/import', W, {
      suppliers: [{ id: S2, name: 'Supplier Two', contacts: [contact], onboarding_data: onboarding }],
      reports: [{ id: R1, supplier_id: S2, title: 'Annual review', report_type: 'assessment' }],
    });

    const created = await api('POST', '/suppliers', '/v1/suppliers', W, {
      key: key.secret,
      body: { name: 'Supplier One', domain: 'supplier-one.example', email: supplierEmail },
      headers: { 'idempotency-key': randomUUID() },
    });
    assert.equal(created.status, 201);
    const read = await api('GET', `/suppliers/${S2}`, '/v1/suppliers/:id', W, { key: key.secret });
    assert.deepEqual(read.json.contacts, [contact], 'the personal values really went through the API');
    await api('GET', `/suppliers?domain=supplier-one.example&limit=5`, '/v1/suppliers', W, {
      key: key.secret,
    });
    await api('GET', '/suppliers?status=bogus', '/v1/suppliers', W, { key: key.secret });
    await admin('POST', `/admin/api-keys/${revoked.id}/revoke`, '/api-keys/:id/revoke', null);
    await api('GET', '/suppliers', '/v1/suppliers', null, { key: revoked.secret });
    await api('GET', '/suppliers', '/v1/suppliers', null, { key: unknownKey });
    const wrongAdmin = await h.admin('GET', '/admin/workspaces', undefined, wrongAdminToken);
    made.push({ res: wrongAdmin, listener: 'admin', route: '/admin/workspaces', workspace: null });
    await admin('POST', `/admin/reports/${R1}/render`, '/reports/:id/render', null);
    const redirect = await api('GET', `/reports/${R1}/pdf`, '/v1/reports/:id/pdf', W, { key: key.secret });
    assert.equal(redirect.status, 302);
    const signed = new URL(redirect.headers.location as string);
    const file = await api('GET', `${signed.pathname}${signed.search}`, '/files/:token', null);
    assert.equal(file.status, 200);
    await api('GET', `/nowhere/${S2}?email=${encodeURIComponent(supplierEmail)}`, 'unmatched', null);

    // One line per request, matched by the request id the response carried.
    const lines = requestLines();
    for (const { res, listener, route, workspace } of made) {
      const mine = lines.filter((r) => r.request_id === res.headers['x-request-id']);
      assert.equal(mine.length, 1, `${route}: ${mine.length} lines`);
      const [line] = mine;
      assert.deepEqual(
        { listener: line.listener, route: line.route, status: line.status, workspace_id: line.workspace_id },
        { listener, route, status: res.status, workspace_id: workspace },
      );
      assert.equal(line.level, 30);
      assert.equal(typeof line.time, 'number');
      assert.ok(typeof line.duration_ms === 'number' && line.duration_ms >= 0);
      assert.ok(!line.route.includes('?') && !UUID.test(line.route), line.route);
    }

    const used = [
      h.adminToken,
      wrongAdminToken,
      key.secret,
      revoked.secret,
      unknownKey,
      endpoint.json.signing_secret,
      person.email,
      supplierEmail,
      contact.name,
      contact.email,
      ...Object.values(onboarding),
      signed.pathname.split('/').pop() as string,
      signed.searchParams.get('signature') as string,
    ];
    assert.ok(used.every((value) => typeof value === 'string' && value.length >= 8));
    // Everything logged so far, at the most verbose level, not only the request lines.
    assert.ok(logs.lines.length >= made.length);
    assert.deepEqual(findLeaks(logs.text(), used), []);
  });
});

describe('/metrics', () => {
  test('requests by listener, method, route pattern and status; a latency histogram with the same routes', async () => {
    const w = await h.workspace();
    const before = await scrape(h.adminApp);
    const series = { listener: 'public', method: 'GET', route: '/v1/suppliers/:id' };
    for (let i = 0; i < 3; i++) await h.api('GET', `/suppliers/${randomUUID()}`, { key: w.key });
    await h.api('GET', `/suppliers/${randomUUID()}`, { key: null });
    const after = await scrape(h.adminApp);
    const delta = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);
    assert.equal(delta('tprm_http_requests_total', { ...series, status: '404' }), 3);
    assert.equal(delta('tprm_http_requests_total', { ...series, status: '401' }), 1);
    assert.equal(delta('tprm_http_request_duration_seconds_count', series), 4);
    assert.equal(delta('tprm_http_request_duration_seconds_bucket', { ...series, le: '+Inf' }), 4);
    assert.equal(after.types.get('tprm_http_request_duration_seconds'), 'histogram');
    assert.ok(
      after.value('tprm_http_requests_total', {
        listener: 'admin',
        method: 'POST',
        route: '/admin/workspaces',
      }) > 0,
    );
    const routes = after.samples
      .filter((s) => s.name === 'tprm_http_requests_total')
      .map((s) => s.labels.route);
    assert.ok(routes.includes('unmatched'));
    for (const route of routes) assert.ok(!UUID.test(route ?? '') && !route?.includes('?'), route);
  });

  test('rate-limit rejections by bucket: workspace buckets and, for requests without a valid key, address buckets', async () => {
    const w = await h.workspace();
    const before = await scrape(h.adminApp);
    const statuses = await Promise.all(
      Array.from({ length: 62 }, async () => (await h.api('GET', '/suppliers', { key: w.key })).status),
    );
    assert.equal(statuses.filter((s) => s === 429).length, 2);
    // 50 per second per address (P9); a malformed key never reaches the database.
    for (let i = 0; i < 53; i++)
      await h.api('GET', '/suppliers', { key: 'tprm_nope', remoteAddress: '10.9.9.9' });
    const after = await scrape(h.adminApp);
    const delta = (bucket: string) =>
      after.value('tprm_rate_limited_total', { bucket }) -
      before.value('tprm_rate_limited_total', { bucket });
    assert.deepEqual([delta('second'), delta('addr-second'), delta('minute')], [2, 3, 0]);
    assert.equal(after.value('tprm_rate_limiter_mode', { mode: 'memory' }), 1);
    assert.equal(after.value('tprm_rate_limiter_mode', { mode: 'redis-fallback' }), 0);
    assert.equal(after.value('tprm_rate_limiter_redis_outages_total'), 0);
  });

  test('database pool use: connections by state, waiters, size', async () => {
    const max = ENGINE === 'pglite' ? 1 : 5; // the embedded store has one session; tests open pools of 5
    const atRest = await scrape(h.adminApp);
    assert.equal(atRest.value('tprm_db_pool_max_connections'), max);
    assert.equal(atRest.value('tprm_db_pool_waiting'), 0);
    assert.equal(atRest.value('tprm_db_pool_connections', { state: 'busy' }), 0);
    assert.ok(atRest.value('tprm_db_pool_connections', { state: 'idle' }) >= 1);

    // Hold every connection in a transaction; one more query has to wait.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: Promise<void>[] = [];
    const held = Array.from({ length: max }, () => {
      let began = () => {};
      started.push(new Promise<void>((resolve) => (began = resolve)));
      return h.db.transaction(async (tx: Queryable) => {
        await tx.query('select 1');
        began();
        await gate;
      });
    });
    await Promise.all(started);
    const waiting = h.db.query('select 1');
    const busy = await scrape(h.adminApp);
    release();
    await Promise.all([...held, waiting]);
    assert.equal(busy.value('tprm_db_pool_connections', { state: 'busy' }), max);
    assert.equal(busy.value('tprm_db_pool_connections', { state: 'idle' }), 0);
    assert.equal(busy.value('tprm_db_pool_waiting'), 1);
    assert.equal((await scrape(h.adminApp)).value('tprm_db_pool_waiting'), 0);
  });

  test('promtool check metrics accepts the exposition (no gauge named _total)', async (t) => {
    const promtool = findPromtool();
    if (!promtool) {
      t.skip('promtool is not installed (Debian package prometheus; .ci/run installs it)');
      return;
    }
    await h.api('GET', '/suppliers', { key: (await h.workspace()).key });
    const exposition = await scrape(h.adminApp);
    assert.equal(promtoolProblems(promtool, exposition.text), '');
    // The gauges prom-client names `…_total` are gone; their counts by type stay.
    assert.ok(!exposition.types.has('tprm_nodejs_active_handles_total'));
    assert.equal(exposition.types.get('tprm_nodejs_active_handles'), 'gauge');
  });
});
