// Webhook operations (docs/decisions.md P81-P84, P107-P109): test events to one endpoint, throttled and never
// replayed, failure visibility in logs, metrics and attempt durations, endpoints disabled after
// WEBHOOK_DISABLE_AFTER of nothing but failures (and the events raised meanwhile), and what `exhausted` means
// once a replay ran. A real dispatcher delivers to a real receiver on loopback; the payment processor's own
// library verifies the test event's signature.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import Stripe from 'stripe';
import { loadConfig } from '../../src/config.js';
import { type EventType, EventTypes } from '../../src/contract/events.js';
import { recordEvent } from '../../src/events/outbox.js';
import {
  createMemoryRateLimiter,
  createRateLimiter,
  type RateLimiter,
  WEBHOOK_TEST_BUCKETS,
} from '../../src/http/rate-limit.js';
import { contract } from '../support/contract.js';
import { assertError, ENGINE, Harness, type TestWorkspace, useHarness } from '../support/harness.js';
import { LogCapture, testLogger } from '../support/logs.js';
import { findPromtool, promtoolProblems, scrape } from '../support/metrics.js';
import { answerWith, eventually, Receiver, sleep } from '../support/receiver.js';

// Short enough for a test to outlive it, long enough that the other tests' endpoints, which fail for well
// under a second, are never disabled.
const DISABLE_AFTER_MS = 3000;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const stripe = new Stripe('sk_test_unused');
const logs = new LogCapture();
// The limiter's clock: 20 s into a minute, so that a test knows the Retry-After of that minute's window and
// steps to the next one; it only moves when a test moves it.
const clock = { t: Date.parse('2030-01-01T00:00:20.000Z') };

let receiver: Receiver;

const { h } = useHarness(
  {
    logs,
    limiter: createMemoryRateLimiter({ now: () => clock.t }),
    buckets: { webhookTests: WEBHOOK_TEST_BUCKETS },
    env: {
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      WEBHOOK_RETRY_DELAYS: '40ms,40ms,40ms,40ms,40ms',
      WEBHOOK_TIMEOUT: '2s',
      WEBHOOK_DISABLE_AFTER: `${DISABLE_AFTER_MS}ms`,
    },
  },
  async () => {
    receiver = await Receiver.start();
    await h.worker();
  },
);
after(() => receiver.close());

type Row = Record<string, unknown>;

async function endpoint(
  ws: TestWorkspace,
  options: { events?: EventType[]; query?: string } = {},
): Promise<{ id: string; secret: string; path: string }> {
  const path = `/${randomUUID()}`;
  const created = await h.adminClient.createWebhookEndpoint({
    params: { id: ws.id },
    body: { url: receiver.url(path + (options.query ?? '')), events: options.events ?? ['alert.created'] },
  });
  return { id: created.id, secret: created.signing_secret, path };
}

const raiseAlert = (ws: TestWorkspace, title = 'Breach') =>
  h.adminClient.createAlert({
    params: { id: ws.id },
    body: { scope: 'org', severity: 'high', title, body: 'Details' },
  });

async function attempts(ws: TestWorkspace, query = ''): Promise<Row[]> {
  const res = await h.api('GET', `/webhook-deliveries?limit=200${query}`, { key: ws.key });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

const at = (path: string) => receiver.received.filter((request) => request.path.startsWith(path));
const getEndpoint = (id: string) => h.adminClient.getWebhookEndpoint({ params: { id } });
const sendTest = (id: string, eventType: EventType) =>
  h.admin('POST', `/admin/webhook-endpoints/${id}/test`, { event_type: eventType });

describe('test events (P81)', () => {
  test('a signed example of any event type goes to that endpoint alone, now, and stripe verifies it', async () => {
    const ws = await h.workspace();
    // Subscribed to alerts only: a test may be of any type.
    const target = await endpoint(ws);
    const other = await endpoint(ws, { events: [...EventTypes] });
    const res = await sendTest(target.id, 'report.ready');
    assert.equal(res.status, 201, res.body);
    assert.equal(res.json.test, true);
    assert.equal(res.json.endpoint_id, target.id);
    assert.equal(res.json.event_type, 'report.ready');
    assert.equal(res.json.attempt, 1);
    assert.equal(res.json.status, 'pending');
    const [request] = await eventually(async () => (at(target.path).length === 1 ? at(target.path) : null));
    assert.ok(request);
    const header = request.headers['service-signature'] as string;
    const event = stripe.webhooks.constructEvent(request.raw, header, target.secret, 300) as unknown as Row;
    assert.equal(event.event_id, res.json.event_id);
    // The event type's own shape: the workspace, and the nil uuid for every id of `data`.
    contract().checkEvent(request.json);
    assert.equal(request.json.type, 'report.ready');
    assert.equal(request.json.organization_id, ws.id);
    assert.deepEqual(request.json.data, {
      report_id: NIL_UUID,
      supplier_id: NIL_UUID,
      assessment_id: NIL_UUID,
    });

    const rows = await eventually(async () => {
      const list = await attempts(ws);
      return list.every((row) => row.status === 'delivered') ? list : null;
    });
    // Never fanned out: one attempt, to the target, marked as a test, with its duration.
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.test, true);
    assert.equal(rows[0]?.endpoint_id, target.id);
    assert.ok(typeof rows[0]?.duration_ms === 'number' && rows[0].duration_ms >= 0);
    assert.equal(at(other.path).length, 0);
    // A real event afterwards is not a test, and reaches both.
    await raiseAlert(ws);
    await eventually(async () => (await attempts(ws, '&status=delivered')).length === 3);
    const real = (await attempts(ws)).filter((row) => row.event_type === 'alert.created');
    assert.deepEqual(
      real.map((row) => row.test),
      [false, false],
    );
    const audit = await h.api('GET', '/audit-logs?action=webhook_endpoint.test_sent', { key: ws.key });
    assert.equal(audit.json.data.length, 1);
    assert.deepEqual(audit.json.data[0].metadata, {
      event_type: 'report.ready',
      event_id: res.json.event_id,
    });
  });

  test('each event type has an example that matches its schema', async () => {
    const ws = await h.workspace();
    const types = EventTypes;
    // At most 5 tests a minute to one endpoint (P107): one endpoint for each 5 types.
    const targets = await Promise.all(
      Array.from({ length: Math.ceil(types.length / 5) }, () => endpoint(ws)),
    );
    for (const [i, type] of types.entries()) {
      const target = targets[Math.floor(i / 5)] as (typeof targets)[number];
      assert.equal((await sendTest(target.id, type)).status, 201);
    }
    const received = () => targets.flatMap((target) => at(target.path));
    await eventually(async () => received().length === types.length);
    for (const request of received()) contract().checkEvent(request.json);
    assert.deepEqual(
      received()
        .map((request) => request.json.type)
        .sort(),
      [...types].sort(),
    );
  });

  test('a failed test is one attempt, never retried, and leaves the endpoint healthy and uncounted', async () => {
    const ws = await h.workspace();
    const target = await endpoint(ws);
    receiver.answerAt(target.path, answerWith(500, 'down'));
    const before = await scrape(h.adminApp);
    assert.equal((await sendTest(target.id, 'alert.created')).status, 201);
    await eventually(async () => (await attempts(ws, '&status=exhausted')).length === 1);
    await sleep(200); // several retry delays: none comes
    const rows = await attempts(ws);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.response_status, 500);
    assert.equal(at(target.path).length, 1);
    assert.equal((await getEndpoint(target.id)).failing_since, null);
    const after = await scrape(h.adminApp);
    for (const outcome of ['delivered', 'failed', 'exhausted'])
      assert.equal(
        after.value('tprm_webhook_attempts_total', { outcome, event_type: 'alert.created' }),
        before.value('tprm_webhook_attempts_total', { outcome, event_type: 'alert.created' }),
      );
    const line = logs.records().find((r) => r.delivery_id === rows[0]?.id);
    assert.equal(line?.msg, 'webhook test attempt failed');
    assert.equal(line?.test, true);
  });

  test('409 while the endpoint is disabled, 404 for an unknown endpoint, 422 for an unknown event type', async () => {
    const ws = await h.workspace();
    const target = await endpoint(ws);
    await h.adminClient.updateWebhookEndpoint({ params: { id: target.id }, body: { enabled: false } });
    const disabled = await sendTest(target.id, 'alert.created');
    assertError(disabled, 409, 'conflict');
    assert.equal(disabled.json.error.details.reason, 'endpoint_disabled');
    assertError(await sendTest(randomUUID(), 'alert.created'), 404, 'resource_not_found');
    assertError(
      await h.admin('POST', `/admin/webhook-endpoints/${target.id}/test`, { event_type: 'supplier.deleted' }),
      422,
      'validation_failed',
    );
    assert.equal((await attempts(ws)).length, 0);
  });
});

// The Redis tests run when TEST_REDIS_URL is set (decision P15).
const needsRedis = { skip: process.env.TEST_REDIS_URL ? false : 'TEST_REDIS_URL is not set' };

describe('test events are throttled per endpoint (P107)', () => {
  test('5 a minute to one endpoint, then 429 in the error shape with Retry-After; other endpoints unaffected; refused requests count nothing', async () => {
    const ws = await h.workspace();
    const a = await endpoint(ws);
    const b = await endpoint(ws);
    const c = await endpoint(ws);
    const before = await scrape(h.adminApp);
    for (let n = 0; n < 5; n++) assert.equal((await sendTest(a.id, 'alert.created')).status, 201);
    const refused = await sendTest(a.id, 'alert.created');
    assertError(refused, 429, 'rate_limit_exceeded');
    assert.match(refused.json.error.message, /test events/);
    // The window is the clock's minute, 20 s gone.
    assert.equal(refused.headers['retry-after'], '40');
    // Every event type counts against the one budget.
    assertError(await sendTest(a.id, 'report.ready'), 429, 'rate_limit_exceeded');
    // Per endpoint: another endpoint of the workspace is not held back.
    assert.equal((await sendTest(b.id, 'alert.created')).status, 201);
    // Five signed requests reached the receiver, and five attempts are listed.
    await eventually(async () => at(a.path).length === 5);
    await sleep(200);
    assert.equal(at(a.path).length, 5);
    assert.equal((await attempts(ws, `&endpoint_id=${a.id}`)).length, 5);

    // Requests refused otherwise send nothing and count nothing: a disabled endpoint, an unknown one, a bad
    // body.
    await h.adminClient.updateWebhookEndpoint({ params: { id: c.id }, body: { enabled: false } });
    for (let n = 0; n < 6; n++) {
      assertError(await sendTest(c.id, 'alert.created'), 409, 'conflict');
      assertError(
        await h.admin('POST', `/admin/webhook-endpoints/${c.id}/test`, { event_type: 'nope' }),
        422,
        'validation_failed',
      );
    }
    await h.adminClient.updateWebhookEndpoint({ params: { id: c.id }, body: { enabled: true } });
    for (let n = 0; n < 5; n++) assert.equal((await sendTest(c.id, 'alert.created')).status, 201);
    assertError(await sendTest(c.id, 'alert.created'), 429, 'rate_limit_exceeded');
    const unknown = randomUUID();
    for (let n = 0; n < 6; n++)
      assertError(await sendTest(unknown, 'alert.created'), 404, 'resource_not_found');

    // The next minute brings a new budget.
    clock.t += 60_000;
    assert.equal((await sendTest(a.id, 'alert.created')).status, 201);
    const after = await scrape(h.adminApp);
    const bucket = { bucket: 'webhook-tests-minute' };
    assert.equal(
      after.value('tprm_rate_limited_total', bucket) - before.value('tprm_rate_limited_total', bucket),
      3,
    );
    const audit = await h.api('GET', '/audit-logs?action=webhook_endpoint.test_sent&limit=100', {
      key: ws.key,
    });
    assert.equal(audit.json.data.length, 12);
  });

  test(
    'the budget holds across processes sharing Redis: 6 requests alternating between two listeners, 5 sent',
    needsRedis,
    async (t) => {
      const limiter = (): RateLimiter =>
        createRateLimiter({
          redisUrl: process.env.TEST_REDIS_URL,
          logger: testLogger(new LogCapture()),
          now: () => clock.t,
          // Generous: PGlite holds this event loop on a busy machine; a late answer must not look like an outage.
          commandTimeoutMs: 1500,
        });
      const first = limiter();
      const second = limiter();
      const fleet = await Harness.start({ limiter: first, buckets: { webhookTests: WEBHOOK_TEST_BUCKETS } });
      t.after(() => fleet.close());
      const other = await fleet.secondInstance({ limiter: second, listener: 'admin' });
      const ws = await fleet.workspace();
      const created = await fleet.adminClient.createWebhookEndpoint({
        params: { id: ws.id },
        body: { url: 'https://hooks.example.com/tprm', events: ['alert.created'] },
      });
      const statuses: number[] = [];
      for (let n = 0; n < 6; n++) {
        const res = await (n % 2 === 0 ? fleet.adminApp : other).inject({
          method: 'POST',
          url: `/admin/webhook-endpoints/${created.id}/test`,
          headers: { authorization: `Bearer ${fleet.adminToken}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ event_type: 'alert.created' }),
        });
        statuses.push(res.statusCode);
      }
      assert.deepEqual(statuses, [201, 201, 201, 201, 201, 429]);
      assert.deepEqual([first.mode, second.mode], ['redis', 'redis']);
    },
  );
});

describe('test deliveries are never replayed (P109)', () => {
  test("replaying a test event's attempt is a 409 test_delivery; an endpoint replay leaves test events out", async () => {
    const ws = await h.workspace();
    const target = await endpoint(ws);
    receiver.answerAt(target.path, answerWith(500));
    const from = new Date(Date.now() - 1000).toISOString();
    const sent = await sendTest(target.id, 'alert.created');
    assert.equal(sent.status, 201);
    await raiseAlert(ws);
    await eventually(async () => (await attempts(ws, '&status=exhausted')).length === 2);
    const refused = await h.admin('POST', `/admin/webhook-deliveries/${sent.json.id}/replay`, {});
    assertError(refused, 409, 'conflict');
    assert.equal(refused.json.error.details.reason, 'test_delivery');
    // The failed real event is replayed, the failed test event is not.
    const range = await h.admin('POST', `/admin/webhook-endpoints/${target.id}/replay`, { from });
    assert.equal(range.status, 200, range.body);
    assert.equal(range.json.replayed, 1);
    assert.equal(range.json.data[0].test, false);
    assert.notEqual(range.json.data[0].event_id, sent.json.event_id);
    // The receiver saw the test event once: 1 test, 6 attempts of the real event and its replay.
    await eventually(async () => at(target.path).length === 8);
    await sleep(200);
    assert.equal(at(target.path).filter((r) => r.json.event_id === sent.json.event_id).length, 1);
    assert.equal((await attempts(ws)).filter((row) => row.test).length, 1);
  });
});

describe('failure visibility (P82)', () => {
  test('a warn line per failed attempt and an error line on exhausted: ids, attempt, status or class, never the URL', async () => {
    const ws = await h.workspace();
    const token = `tok_${randomUUID()}`;
    const target = await endpoint(ws, { query: `?token=${token}` });
    receiver.answerAt(`${target.path}?token=${token}`, answerWith(503, 'busy'));
    const alert = await raiseAlert(ws);
    await eventually(async () => (await attempts(ws, '&status=exhausted')).length === 1);
    const [event] = await attempts(ws, '&status=exhausted');
    const lines = logs.records().filter((r) => r.endpoint_id === target.id && r.event_id === event?.event_id);
    assert.deepEqual(
      lines.map((r) => [r.level, r.attempt]),
      [
        [40, 1],
        [40, 2],
        [40, 3],
        [40, 4],
        [40, 5],
        [50, 6],
      ],
    );
    for (const line of lines) {
      assert.equal(line.response_status, 503);
      assert.equal(line.error_class, 'http');
      assert.equal(line.event_type, 'alert.created');
      assert.ok(typeof line.duration_ms === 'number');
    }
    assert.equal(lines.at(-1)?.msg, 'webhook delivery exhausted: no retry left');
    const text = logs.text();
    assert.ok(!text.includes(token), 'the URL query is never logged');
    assert.ok(!text.includes(target.path), 'nor the URL');
    assert.ok(!text.includes(target.secret));
    assert.ok(alert.id);
  });

  test('a connection failure is logged with its class, no status and no address', async () => {
    const ws = await h.workspace();
    const created = await h.adminClient.createWebhookEndpoint({
      params: { id: ws.id },
      body: { url: 'http://127.0.0.1:9/closed', events: ['alert.created'] },
    });
    await raiseAlert(ws);
    await eventually(async () => (await attempts(ws, '&status=exhausted')).length === 1);
    const lines = logs.records().filter((r) => r.endpoint_id === created.id);
    assert.equal(lines.length, 6);
    for (const line of lines) {
      assert.equal(line.response_status, null);
      assert.equal(line.error_class, 'ECONNREFUSED');
      assert.ok(!JSON.stringify(line).includes('127.0.0.1'));
    }
  });

  test('metrics by outcome and event type, attempt durations, and promtool accepts the exposition', async (t) => {
    const ws = await h.workspace();
    const ok = await endpoint(ws, { events: ['report.ready', 'alert.created'] });
    const failing = await endpoint(ws, { events: ['alert.created'] });
    receiver.answerAt(failing.path, answerWith(500));
    const before = await scrape(h.adminApp);
    await raiseAlert(ws);
    await eventually(async () => (await attempts(ws, '&status=exhausted')).length === 1);
    await eventually(async () => (await attempts(ws, '&status=delivered')).length === 1);
    const after = await scrape(h.adminApp);
    const delta = (name: string, labels: Record<string, string>) =>
      after.value(name, labels) - before.value(name, labels);
    const alerts = { event_type: 'alert.created' };
    assert.equal(delta('tprm_webhook_attempts_total', { ...alerts, outcome: 'delivered' }), 1);
    assert.equal(delta('tprm_webhook_attempts_total', { ...alerts, outcome: 'failed' }), 5);
    assert.equal(delta('tprm_webhook_attempts_total', { ...alerts, outcome: 'exhausted' }), 1);
    assert.equal(after.types.get('tprm_webhook_attempt_duration_seconds'), 'histogram');
    assert.equal(delta('tprm_webhook_attempt_duration_seconds_count', { ...alerts, outcome: 'failed' }), 5);
    // Each attempt records its duration, in the API too.
    const rows = await attempts(ws);
    assert.equal(rows.length, 7);
    for (const row of rows)
      assert.ok(typeof row.duration_ms === 'number' && row.duration_ms >= 0, String(row.id));
    // Bounded labels only: never an endpoint id.
    assert.ok(!after.text.includes(ok.id) && !after.text.includes(failing.id));
    const promtool = findPromtool();
    if (!promtool) {
      t.skip('promtool is not installed (Debian package prometheus; .ci/run installs it)');
      return;
    }
    assert.equal(promtoolProblems(promtool, after.text), '');
  });
});

describe('auto-disable (P83)', () => {
  test('an endpoint whose deliveries have all failed for WEBHOOK_DISABLE_AFTER is disabled; re-enabling resumes', async () => {
    const ws = await h.workspace();
    const target = await endpoint(ws);
    receiver.answerAt(target.path, answerWith(500));
    // A first event fails until exhausted, well within the period: the endpoint stays enabled.
    await raiseAlert(ws, 'first');
    await eventually(async () => (await attempts(ws, '&status=exhausted')).length === 1);
    const failing = await getEndpoint(target.id);
    assert.equal(failing.enabled, true);
    assert.ok(failing.failing_since);
    // Attempts are not what counts, time is: once the period has passed, the next failure disables it.
    await sleep(DISABLE_AFTER_MS - (Date.now() - Date.parse(failing.failing_since)) + 100);
    assert.equal((await getEndpoint(target.id)).enabled, true);
    await raiseAlert(ws, 'second');
    await eventually(async () => !(await getEndpoint(target.id)).enabled);
    const disabled = await getEndpoint(target.id);
    assert.equal(disabled.failing_since, failing.failing_since);
    // Paused, as an operator's disable (P31): the retry of the second event waits, new events are not fanned
    // out to it.
    await sleep(200);
    const waiting = await attempts(ws, '&status=pending');
    assert.equal(waiting.length, 1);
    await raiseAlert(ws, 'third');
    assert.equal((await attempts(ws)).filter((row) => row.status === 'pending').length, 1);
    // An audit entry and an error line.
    const audit = await h.api('GET', '/audit-logs?action=webhook_endpoint.disabled', { key: ws.key });
    assert.equal(audit.json.data.length, 1);
    assert.equal(audit.json.data[0].actor_type, 'system');
    assert.equal(audit.json.data[0].target_id, target.id);
    assert.deepEqual(audit.json.data[0].metadata, {
      reason: 'failing',
      failing_since: failing.failing_since,
      disable_after_ms: DISABLE_AFTER_MS,
    });
    const line = logs
      .records()
      .find((r) => r.endpoint_id === target.id && r.msg.startsWith('webhook endpoint disabled'));
    assert.equal(line?.level, 50);
    assert.equal(line?.workspace_id, ws.id);
    assert.equal(line?.failing_since, failing.failing_since);
    // Re-enabled, with the receiver fixed: the waiting retry goes out, and the failures start afresh.
    receiver.answerAt(target.path, answerWith(200, 'ok'));
    const enabled = await h.adminClient.updateWebhookEndpoint({
      params: { id: target.id },
      body: { enabled: true },
    });
    assert.equal(enabled.enabled, true);
    assert.equal(enabled.failing_since, null);
    await eventually(async () => (await attempts(ws, '&status=delivered')).length === 1);
    assert.equal((await getEndpoint(target.id)).failing_since, null);
  });

  test('a delivery ends a run of failures: an endpoint that fails sometimes is never disabled', async () => {
    const ws = await h.workspace();
    const target = await endpoint(ws);
    let calls = 0;
    // Every other request fails.
    receiver.answerAt(target.path, (request, res) => answerWith(calls++ % 2 === 0 ? 500 : 200)(request, res));
    await raiseAlert(ws, 'one');
    await eventually(async () => (await attempts(ws, '&status=delivered')).length === 1);
    assert.equal((await getEndpoint(target.id)).failing_since, null);
    await sleep(DISABLE_AFTER_MS + 100);
    await raiseAlert(ws, 'two');
    await eventually(async () => (await attempts(ws, '&status=delivered')).length === 2);
    const after = await getEndpoint(target.id);
    assert.equal(after.enabled, true);
    assert.equal(after.failing_since, null);
  });

  test('events raised while an endpoint is being disabled: their attempts wait with its others, counted as paused, none is sent; all go out once it is enabled again (P108)', async () => {
    const ws = await h.workspace();
    const target = await endpoint(ws);
    receiver.answerAt(target.path, answerWith(500));
    // Failing for longer than WEBHOOK_DISABLE_AFTER already: its next failure disables it.
    await h.db.query(`update webhook_endpoints set failing_since = now() - interval '1 hour' where id = $1`, [
      target.id,
    ]);
    const disable = async () => {
      await raiseAlert(ws, 'disabling');
      await eventually(async () => !(await getEndpoint(target.id)).enabled);
    };
    const raced: string[] = [];
    if (ENGINE === 'postgres') {
      // An event whose fan-out reads the endpoint enabled while the dispatcher is disabling it: the disabling
      // failure's answer is held until the event is recorded, in a transaction still open. (The event's stamp
      // holds the workspace's audit head until it commits, P173, so the disable, whose audit entry needs the
      // head, commits after it. The embedded store runs one transaction at a time: there no event can be
      // raised while the endpoint is being disabled.)
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      receiver.answerAt(target.path, async (_request, res) => {
        await held;
        res.statusCode = 500;
        res.end('down');
      });
      await raiseAlert(ws, 'disabling');
      await eventually(async () => at(target.path).length >= 1);
      await h.db.transaction(async (tx) => {
        const data = { alert_id: randomUUID(), scope: 'org', supplier_id: null, severity: 'low' } as const;
        raced.push(await recordEvent(tx, ws.id, 'alert.created', data));
        release();
        // The dispatcher records the failure meanwhile; its disable waits for this commit, on the audit head's
        // row lock (seen waiting in pg_stat_activity, however long a busy machine takes to get there).
        await eventually(async () => {
          const [row] = await h.db.query<{ waiting: number }>(
            `select count(*)::int as waiting from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`,
          );
          return (row?.waiting ?? 0) > 0;
        });
      });
      await eventually(async () => !(await getEndpoint(target.id)).enabled);
    } else await disable();
    // Waiting: the retry that the disabling failure scheduled, and the raced event's attempt. (A dispatcher woken
    // by the raced event's commit may have claimed its first attempt before the disable committed: that send
    // ends in a failure whose retry waits too. Counted once no attempt is in flight.)
    await eventually(async () => (await attempts(ws, '&status=delivering')).length === 0);
    const waiting = await attempts(ws, '&status=pending');
    assert.equal(waiting.length, 1 + raced.length);
    // (Its first attempt, or its retry: the dispatcher may claim the first between the event's commit and the
    // disable's, which now waits for it.)
    for (const id of raced) assert.ok(waiting.some((row) => row.event_id === id));
    // An event raised once it is disabled gets no attempt, and nothing is sent.
    const rows = (await attempts(ws)).length;
    const sent = at(target.path).length;
    await raiseAlert(ws, 'after');
    await sleep(200);
    assert.equal((await attempts(ws)).length, rows);
    assert.equal(at(target.path).length, sent);
    // The queue gauge counts them as paused: waiting for the endpoint, not late.
    await eventually(
      async () =>
        (await scrape(h.adminApp)).value('tprm_webhook_queue_depth', { state: 'paused' }) >= waiting.length,
    );
    // Enabled again with the receiver fixed: every waiting attempt goes out.
    receiver.answerAt(target.path, answerWith(200, 'ok'));
    await h.adminClient.updateWebhookEndpoint({ params: { id: target.id }, body: { enabled: true } });
    await eventually(async () => (await attempts(ws, '&status=delivered')).length === waiting.length);
    assert.deepEqual(
      (await attempts(ws, '&status=delivered')).map((row) => row.event_id).sort(),
      waiting.map((row) => row.event_id).sort(),
    );
  });

  test('WEBHOOK_DISABLE_AFTER: 5 days by default, in any duration unit, 0 never disables', () => {
    assert.equal(loadConfig({}).webhookDisableAfterMs, 5 * 24 * 3_600_000);
    assert.equal(loadConfig({ WEBHOOK_DISABLE_AFTER: '3d' }).webhookDisableAfterMs, 3 * 24 * 3_600_000);
    assert.equal(loadConfig({ WEBHOOK_DISABLE_AFTER: '0s' }).webhookDisableAfterMs, 0);
    assert.throws(() => loadConfig({ WEBHOOK_DISABLE_AFTER: '5 days' }), /WEBHOOK_DISABLE_AFTER/);
  });
});

describe('exhausted after a replay (P84)', () => {
  test('a delivered replay: the event no longer counts as exhausted, its earlier attempt is failed', async () => {
    const ws = await h.workspace();
    const target = await endpoint(ws);
    receiver.answerAt(target.path, answerWith(500));
    await raiseAlert(ws);
    const [exhausted] = await eventually(async () => {
      const rows = await attempts(ws, '&status=exhausted');
      return rows.length === 1 ? rows : null;
    });
    receiver.answerAt(target.path, answerWith(200, 'ok'));
    const replay = await h.admin('POST', `/admin/webhook-deliveries/${exhausted?.id}/replay`, {});
    assert.equal(replay.status, 201, replay.body);
    // Until the replay's outcome is known, the event is still exhausted.
    await eventually(async () => (await attempts(ws, '&status=delivered')).length === 1);
    assert.deepEqual(await attempts(ws, '&status=exhausted'), []);
    const rows = await attempts(ws);
    assert.equal(rows.length, 7);
    const earlier = rows.find((row) => row.id === exhausted?.id);
    assert.equal(earlier?.status, 'failed');
    assert.equal(earlier?.next_retry_at, null);
    assert.equal(earlier?.response_status, 500);
  });

  test('a failed replay is the one exhausted attempt of its event', async () => {
    const ws = await h.workspace();
    const target = await endpoint(ws);
    receiver.answerAt(target.path, answerWith(500));
    const from = new Date(Date.now() - 1000).toISOString();
    await raiseAlert(ws);
    await eventually(async () => (await attempts(ws, '&status=exhausted')).length === 1);
    const res = await h.admin('POST', `/admin/webhook-endpoints/${target.id}/replay`, { from });
    assert.equal(res.json.replayed, 1);
    await eventually(async () => (await attempts(ws, '&status=exhausted'))[0]?.attempt === 7);
    const exhausted = await attempts(ws, '&status=exhausted');
    assert.equal(exhausted.length, 1);
    assert.equal((await attempts(ws)).length, 7);
    // Still failed: the endpoint replay finds it again.
    assert.equal(
      (await h.admin('POST', `/admin/webhook-endpoints/${target.id}/replay`, { from })).json.replayed,
      1,
    );
  });
});
