// `tprm sinks …` (docs/decisions.md P216): the real command against a management API of this process, with a
// real sink worker and a loopback collector: create (the credential read from stdin, never printed), list,
// show, update, deliveries and delete.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { useCliHarness } from '../support/cli.js';
import { eventually, Receiver } from '../support/receiver.js';

let receiver: Receiver;
const { h, ok, tprm } = useCliHarness({
  env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true', SINK_BATCH_AGE: '100ms' },
});
after(() => receiver?.close());

test('tprm sinks create | list | show | update | deliveries | delete', async () => {
  receiver = await Receiver.start();
  h.sinkWorker();
  const ws = await h.workspace();
  const token = `hec_${randomUUID()}`;
  const created = await ok(
    [
      'sinks',
      'create',
      ws.id,
      '--kind',
      'http',
      '--hec',
      '--credential-stdin',
      '--url',
      receiver.url('/hec'),
      '--sources',
      'audit,events',
      '--json',
    ],
    { input: token },
  );
  assert.equal(created.json.kind, 'http');
  assert.equal(created.json.hec, true);
  assert.equal(created.json.has_credential, true);
  assert.ok(!created.stdout.includes(token) && !created.stderr.includes(token));
  const id = created.json.id as string;
  // The worker delivers the registration's own audit entry with the token read from stdin.
  await eventually(async () => receiver.received.some((r) => r.path === '/hec'));
  assert.equal(receiver.received.find((r) => r.path === '/hec')?.headers.authorization, `Splunk ${token}`);

  const listed = await ok(['sinks', 'list', ws.id]);
  assert.match(listed.stdout, new RegExp(id));
  const shown = await ok(['sinks', 'show', id, '--json']);
  assert.equal(shown.json.id, id);
  assert.ok(!shown.stdout.includes(token));
  const updated = await ok(['sinks', 'update', id, '--format', 'ocsf', '--disable', '--json']);
  assert.deepEqual([updated.json.format, updated.json.enabled], ['ocsf', false]);
  const nothing = await tprm(['sinks', 'update', id]);
  assert.notEqual(nothing.code, 0);

  const deliveries = await ok(['sinks', 'deliveries', id, '--json']);
  assert.ok(deliveries.json.data.length >= 1);
  assert.equal(deliveries.json.data[0].outcome, 'delivered');
  const human = await ok(['sinks', 'deliveries', id, '--outcome', 'delivered']);
  assert.match(human.stdout, /batch attempt/);

  const deleted = await ok(['sinks', 'delete', id, '--json']);
  assert.deepEqual(deleted.json, { id, deleted: true });
  const gone = await tprm(['sinks', 'show', id]);
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, /404|No such sink/);
});
