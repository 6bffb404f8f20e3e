// A sink's worker process SIGKILLed in the middle of a batch (docs/decisions.md P209): the collector holds the
// batch unanswered, the process dies, the next process claims the sink once the lease expired and sends the
// same records again, with the same ids. Nothing is lost and the position moves only once acknowledged. The
// real service as a child process, on the embedded store (its data directory) and on PostgreSQL.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ENGINE, useHarness } from '../support/harness.js';
import { eventually, Receiver } from '../support/receiver.js';
import { type ServiceProcess, startService } from '../support/service.js';

const ADMIN_TOKEN = `sinks-faults-admin-${randomUUID()}`;
const ENTRIES = 30;
const { h } = useHarness();
let receiver: Receiver | undefined;
let service: ServiceProcess | undefined;
after(async () => {
  if (service && service.child.exitCode === null && service.child.signalCode === null)
    await service.kill('SIGKILL');
  await receiver?.close();
});

test('a worker killed mid-batch loses nothing: the next claim resends the same records with the same ids', async () => {
  receiver = await Receiver.start();
  let hold = true;
  const held: ServerResponse[] = [];
  const acknowledge = (res: ServerResponse) => {
    res.on('error', () => undefined);
    res.writeHead(200);
    res.end();
  };
  // Batches are held unanswered until the test has seen the position unmoved after the restart: the first
  // while the process that sent it is killed, and the new process's, whenever its claim comes; then they are
  // acknowledged, and so is every later one.
  receiver.answerAt('/sink', (_request, res) => {
    if (hold) held.push(res);
    else acknowledge(res);
  });
  const store: Record<string, string> =
    ENGINE === 'postgres'
      ? { DATABASE_URL: h.databaseUrl as string }
      : { DATA_DIR: await mkdtemp(join(tmpdir(), 'tprm-sinks-faults-')) };
  const env = {
    ...store,
    ADMIN_TOKEN,
    WEBHOOK_ALLOW_INSECURE_URLS: 'true',
    WEBHOOK_TIMEOUT: '2s',
    WEBHOOK_RETRY_DELAYS: '200ms',
    SINK_BATCH_SIZE: '100',
    SINK_BATCH_AGE: '100ms',
  };
  service = await startService(env, 60_000);
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${(service as ServiceProcess).adminUrl}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const ws = await admin('POST', '/workspaces', { name: 'Kill test', plan: 'enterprise' });
  for (let i = 0; i < ENTRIES; i++) await admin('PATCH', `/workspaces/${ws.id}`, { name: `Kill test ${i}` });
  const sink = await admin('POST', `/workspaces/${ws.id}/sinks`, {
    kind: 'http',
    url: receiver.url('/sink'),
    sources: ['audit'],
    start: 'beginning',
  });
  await receiver.waitFor(1, 20_000);
  assert.equal(await service.kill('SIGKILL'), null);
  const [first] = receiver.received;
  const heldIds = (first?.raw.toString('utf8') ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line).id);
  // workspace.created, the updates and the sink's registration.
  assert.equal(heldIds.length, ENTRIES + 2);

  service = await startService(env, 60_000);
  const stored = await admin('GET', `/sinks/${sink.id}`);
  assert.equal(stored.audit_position, null, 'the position does not move before an acknowledgement');
  hold = false;
  for (const res of held.splice(0)) acknowledge(res);
  // The lease (WEBHOOK_TIMEOUT + 5 s) expires, the new process claims the sink and sends the batch again.
  await receiver.waitFor(2, 30_000);
  const resent = receiver.received[1];
  assert.deepEqual(resent?.raw, first?.raw, 'the same records, with the same ids, in the same order');
  await eventually(
    async () => (await admin('GET', `/sinks/${sink.id}`)).audit_position === heldIds.at(-1),
    10_000,
  );
  // Newest first: the delivery, after any send of the new process that timed out while it was held.
  const log = await admin('GET', `/sinks/${sink.id}/deliveries`);
  const rows = log.data.map((row: { outcome: string; first_id: string; count: number }) => [
    row.outcome,
    row.first_id,
    row.count,
  ]);
  assert.deepEqual(rows[0], ['delivered', heldIds[0], heldIds.length]);
  for (const row of rows.slice(1)) assert.deepEqual(row, ['failed', heldIds[0], heldIds.length]);
});
