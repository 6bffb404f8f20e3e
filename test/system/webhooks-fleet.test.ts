// risk-data-api.md "Delivery" 1 (at-least-once) and decision 23 (a committed event is delivered even if the
// process dies), with real worker processes (ROLE=worker) on one PostgreSQL: SIGKILL in the middle of a burst
// loses nothing, two workers never send one attempt twice, and SIGTERM finishes the attempts in flight.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ENGINE, Harness, type TestWorkspace } from '../support/harness.js';
import { eventually, type Received, Receiver, sleep } from '../support/receiver.js';
import { type ServiceProcess, startService } from '../support/service.js';

// Several processes need a database server: the embedded store belongs to one process.
const skip = ENGINE !== 'postgres' && 'needs PostgreSQL (TEST_DATABASE_URL): one process per embedded store';

let h: Harness;
let receiver: Receiver;
const workers: ServiceProcess[] = [];

before(async () => {
  if (skip) return;
  h = await Harness.start({ env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true' } });
  receiver = await Receiver.start();
});
after(async () => {
  if (skip) return;
  for (const worker of workers) if (worker.child.exitCode === null) await worker.kill('SIGKILL');
  await h.close();
  await receiver.close();
});

/** SIGTERM to every worker still running: each must exit 0 (a clean stop). */
async function stopWorkers(): Promise<void> {
  for (const running of workers.splice(0)) {
    if (running.child.exitCode === null && running.child.signalCode === null) {
      assert.equal(await running.kill('SIGTERM'), 0, running.output.slice(-3).join('\n'));
    }
  }
}

const worker = async () => {
  const started = await startService({
    DATABASE_URL: h.databaseUrl as string,
    ROLE: 'worker',
    ADMIN_TOKEN: `admin-${randomUUID()}`,
    WEBHOOK_ALLOW_INSECURE_URLS: 'true',
    WEBHOOK_TIMEOUT: '1s',
    WEBHOOK_RETRY_DELAYS: '100ms,100ms,100ms,100ms,100ms',
  });
  workers.push(started);
  return started;
};

async function burst(ws: TestWorkspace, count: number): Promise<Set<string>> {
  for (let i = 0; i < count; i++) {
    const res = await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
      scope: 'org',
      severity: 'medium',
      title: `alert ${i}`,
      body: 'b',
    });
    assert.equal(res.status, 201, res.body);
  }
  const rows = await h.db.query<{ id: string }>('select id from events where workspace_id = $1', [ws.id]);
  return new Set(rows.map((row) => row.id));
}

async function setUp(path: string, delayMs: number): Promise<TestWorkspace> {
  const ws = await h.workspace();
  const res = await h.admin('POST', `/admin/workspaces/${ws.id}/webhook-endpoints`, {
    url: receiver.url(path),
    events: ['alert.created'],
  });
  assert.equal(res.status, 201, res.body);
  receiver.answerAt(path, (_request, response) => {
    setTimeout(() => response.end('ok'), delayMs);
  });
  return ws;
}

const at = (path: string): Received[] => receiver.received.filter((request) => request.path === path);

const unfinished = async (ws: TestWorkspace) =>
  (
    await h.db.query(
      `select 1 from webhook_deliveries where workspace_id = $1 and status in ('pending', 'delivering')`,
      [ws.id],
    )
  ).length;

describe('worker processes on one PostgreSQL', { skip }, () => {
  test('SIGKILL in the middle of a burst: every event still reaches the receiver, duplicates share event_id', async (t) => {
    const path = `/${randomUUID()}`;
    const ws = await setUp(path, 40);
    const events = await burst(ws, 150);
    const first = await worker();
    await eventually(async () => at(path).length >= 30, 20_000);
    assert.equal(await first.kill('SIGKILL'), null);
    const receivedBeforeCrash = at(path).length;
    const inFlight = (
      await h.db.query(`select 1 from webhook_deliveries where workspace_id = $1 and status = 'delivering'`, [
        ws.id,
      ])
    ).length;
    assert.ok(receivedBeforeCrash < events.size, 'the crash happened in the middle of the burst');

    await worker();
    await eventually(async () => (await unfinished(ws)) === 0, 60_000);
    const requests = at(path);
    const seen = new Set(requests.map((request) => request.json.event_id as string));
    assert.deepEqual(seen, events, 'every event reached the receiver at least once');
    // A duplicate is the same event: the same event_id carries the same bytes.
    const bodies = new Map<string, string>();
    for (const request of requests) {
      const body = request.raw.toString('hex');
      const known = bodies.get(request.json.event_id);
      if (known) assert.equal(body, known);
      else bodies.set(request.json.event_id, body);
    }
    const delivered = await h.db.query(
      `select 1 from webhook_deliveries where workspace_id = $1 and status = 'delivered'`,
      [ws.id],
    );
    assert.equal(delivered.length, events.size);
    t.diagnostic(
      `received ${requests.length} for ${events.size} events (${receivedBeforeCrash} before the kill, ${inFlight} attempts in flight at the kill)`,
    );
    await stopWorkers();
  });

  test('two workers: each attempt is sent exactly once, and both take part', async () => {
    const path = `/${randomUUID()}`;
    const ws = await setUp(path, 15);
    // Both workers listen before the events commit: each commit wakes both, and they share the queue.
    const [a, b] = await Promise.all([worker(), worker()]);
    const events = await burst(ws, 200);
    await eventually(async () => (await unfinished(ws)) === 0, 60_000);
    await sleep(300);
    const requests = at(path);
    assert.equal(requests.length, events.size, 'no attempt sent twice');
    assert.deepEqual(new Set(requests.map((request) => request.json.event_id)), events);
    const sent = async (service: ServiceProcess | undefined) => {
      const text = await (await fetch(`${service?.adminUrl}/metrics`)).text();
      // Summed over the event types (P82).
      const delivered = text.matchAll(
        /^tprm_webhook_attempts_total\{[^}]*outcome="delivered"[^}]*\} (\d+)$/gm,
      );
      return [...delivered].reduce((sum, match) => sum + Number(match[1]), 0);
    };
    const [byA, byB] = [await sent(a), await sent(b)];
    assert.equal(byA + byB, events.size);
    assert.ok(byA > 0 && byB > 0, `both workers sent: ${byA} and ${byB}`);
    await stopWorkers();
  });

  test('SIGTERM: the worker finishes the attempts in flight, records them, and exits 0', async () => {
    const path = `/${randomUUID()}`;
    const ws = await setUp(path, 400);
    await burst(ws, 20);
    const service = await worker();
    await eventually(async () => at(path).length >= 5, 20_000);
    assert.equal(await service.kill('SIGTERM'), 0, service.output.slice(-6).join('\n'));
    // Every attempt it had started was answered and recorded; nothing is left claimed by it.
    const claimed = await h.db.query(
      `select 1 from webhook_deliveries where workspace_id = $1 and status = 'delivering'`,
      [ws.id],
    );
    assert.equal(claimed.length, 0);
    const delivered = await h.db.query<{ n: number }>(
      `select count(*)::int as n from webhook_deliveries where workspace_id = $1 and status = 'delivered'`,
      [ws.id],
    );
    assert.equal(delivered[0]?.n, at(path).length);
    assert.ok(service.output.some((line) => line.includes('shutting down')));
  });
});
