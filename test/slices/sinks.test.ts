// Sinks (docs/decisions.md P203-P219): a real sink worker delivers a workspace's audit trail and events to a
// real collector on loopback, which checks what arrives: the NDJSON lines (the feeds' items, byte for byte in
// content), the Splunk HEC envelope and token, the OCSF form against the OCSF 1.8.0 schema, the order, batches cut
// by size and by age, a batch sent again after a 500 with the same records, the delivery log through the
// management API, the metrics, the sink disabled after WEBHOOK_DISABLE_AFTER of failures, the address policy of
// webhooks at registration, and the credential absent from every answer and every log line.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { pruneSinkDeliveries } from '../../src/events/retention.js';
import { assertError, type TestWorkspace, useHarness } from '../support/harness.js';
import { LogCapture } from '../support/logs.js';
import { scrape } from '../support/metrics.js';
import { OcsfSchema, OcsfValidator, SERVICE_CLASSES } from '../support/ocsf-schema.js';
import { answerWith, eventually, type Received, Receiver, sleep } from '../support/receiver.js';

const BATCH_SIZE = 5;
const BATCH_AGE_MS = 400;
const DISABLE_AFTER_MS = 1500;
const logs = new LogCapture();
let receiver: Receiver;

const { h } = useHarness(
  {
    logs,
    env: {
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      WEBHOOK_RETRY_DELAYS: '40ms,40ms,40ms,40ms,40ms',
      WEBHOOK_TIMEOUT: '2s',
      WEBHOOK_DISABLE_AFTER: `${DISABLE_AFTER_MS}ms`,
      SINK_BATCH_SIZE: String(BATCH_SIZE),
      SINK_BATCH_AGE: `${BATCH_AGE_MS}ms`,
    },
  },
  async () => {
    receiver = await Receiver.start();
    h.sinkWorker();
  },
);
after(() => receiver.close());

type Row = Record<string, unknown>;

/** A new workspace, its sink of `body` on a path of its own, and what the collector received there. */
async function withSink(body: Row, path = `/${randomUUID()}`) {
  const ws = await h.workspace();
  const created = await h.admin('POST', `/admin/workspaces/${ws.id}/sinks`, {
    kind: 'http',
    url: receiver.url(path),
    sources: ['audit', 'events'],
    ...body,
  });
  assert.equal(created.status, 201, created.body);
  return {
    ws,
    sink: created.json as Row,
    path,
    batches: () => batchesAt(path),
    lines: () => linesAt(path),
    records: () => linesAt(path).map((l) => JSON.parse(l)),
  };
}

/** The batches the collector received at `path`, and their NDJSON lines, in arrival order. */
const batchesAt = (path: string): Received[] => receiver.received.filter((r) => r.path === path);
const linesAt = (path: string): string[] =>
  batchesAt(path).flatMap((r) =>
    r.raw
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== ''),
  );

async function supplier(ws: TestWorkspace, name: string): Promise<string> {
  const res = await h.api('POST', '/suppliers', {
    key: ws.key,
    body: { name },
    headers: { 'idempotency-key': randomUUID() },
  });
  assert.equal(res.status, 201, res.body);
  return res.json.id as string;
}

/** Every item of a feed (GET /v1/audit-logs or /v1/events), oldest first. */
async function feed(ws: TestWorkspace, path: string, query = ''): Promise<Row[]> {
  const items: Row[] = [];
  let cursor: string | null = null;
  for (;;) {
    const res = await h.api('GET', `${path}?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`, {
      key: ws.key,
    });
    assert.equal(res.status, 200, res.body);
    items.push(...res.json.data);
    if (!res.json.meta.has_more) return items;
    cursor = res.json.meta.next_cursor;
  }
}

const deliveries = async (sinkId: unknown, query = '') => {
  const res = await h.admin('GET', `/admin/sinks/${sinkId}/deliveries${query}`);
  assert.equal(res.status, 200, res.body);
  return res.json as { data: Row[]; next_cursor: string | null };
};

describe('an http sink', () => {
  test('POSTs NDJSON: each line is an audit entry as GET /v1/audit-logs serves it or an event as GET /v1/events does, in feed order, its own registration first', async () => {
    const credential = `Bearer tok_${randomUUID()}`;
    const { ws, sink, batches, records } = await withSink({ credential });
    for (const name of ['Acme', 'Globex', 'Initech']) await supplier(ws, name);
    const audit = await feed(ws, '/audit-logs');
    const events = await feed(ws, '/events');
    // The registration's own entry and what followed it: three entries and three events.
    const expectedAudit = audit.slice(audit.findIndex((e) => e.action === 'sink.created'));
    await eventually(async () => records().length === expectedAudit.length + events.length);
    for (const batch of batches()) {
      assert.equal(batch.headers['content-type'], 'application/x-ndjson');
      assert.equal(batch.headers.authorization, credential);
      assert.ok(batch.raw.toString('utf8').endsWith('\n'));
    }
    const received = records();
    assert.equal(received[0].action, 'sink.created');
    assert.equal(received[0].target_id, sink.id);
    assert.deepEqual(
      received.filter((r) => 'action' in r),
      expectedAudit,
    );
    assert.deepEqual(
      received.filter((r) => 'event_id' in r),
      events,
    );
    // Inside a batch the two logs are merged by instant (P209).
    for (const batch of batches()) {
      const instants = batch.raw
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => String(JSON.parse(line).occurred_at));
      assert.deepEqual(instants, [...instants].sort());
    }
  });

  test('Splunk HEC mode: `Authorization: Splunk <token>` and each line the HEC event envelope around the record', async () => {
    const token = randomUUID();
    const { ws, batches, records } = await withSink({ hec: true, credential: token, sources: ['events'] });
    await supplier(ws, 'Acme');
    const [event] = await feed(ws, '/events');
    await eventually(async () => records().length === 1);
    assert.equal(batches()[0]?.headers.authorization, `Splunk ${token}`);
    const [line] = records();
    assert.deepEqual(Object.keys(line), ['time', 'host', 'source', 'sourcetype', 'event']);
    assert.equal(line.time, Date.parse(String(event?.occurred_at)) / 1000);
    assert.equal(typeof line.host, 'string');
    assert.equal(line.source, `tprm-api/${ws.id}`);
    assert.equal(line.sourcetype, 'tprm-api:supplier.created');
    assert.deepEqual(line.event, event);
  });

  test('`event_types` narrows the events; the audit source alone sends no event', async () => {
    const narrowed = await withSink({ sources: ['events'], event_types: ['alert.created'] });
    const auditOnly = await withSink({ sources: ['audit'] });
    await supplier(narrowed.ws, 'Acme');
    const alert = await h.admin('POST', `/admin/workspaces/${narrowed.ws.id}/alerts`, {
      scope: 'org',
      severity: 'high',
      title: 'Breach reported',
      body: 'A breach was reported',
    });
    assert.equal(alert.status, 201, alert.body);
    await supplier(auditOnly.ws, 'Acme');
    await eventually(async () => narrowed.records().length === 1 && auditOnly.records().length >= 2);
    await sleep(BATCH_AGE_MS * 2);
    assert.deepEqual(
      narrowed.records().map((r) => r.type),
      ['alert.created'],
    );
    assert.ok(auditOnly.records().every((r) => 'action' in r));
  });

  test('OCSF format: every line is an OCSF 1.8.0 event that validates against the schema, as the feeds give it with format=ocsf', async () => {
    const validator = new OcsfValidator(new OcsfSchema(), SERVICE_CLASSES);
    const { ws, records } = await withSink({ format: 'ocsf' });
    await supplier(ws, 'Acme');
    await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
      scope: 'org',
      severity: 'critical',
      title: 'Down',
      body: 'The supplier is down',
    });
    const audit = await feed(ws, '/audit-logs', '&format=ocsf');
    const events = await feed(ws, '/events', '&format=ocsf');
    const expected = audit.slice(audit.findIndex((e) => e.message === 'sink.created'));
    await eventually(async () => records().length === expected.length + events.length);
    for (const item of records()) assert.deepEqual(validator.problems(item), [], JSON.stringify(item));
    const byUid = new Map([...audit, ...events].map((item) => [(item.metadata as Row).uid, item]));
    for (const item of records()) assert.deepEqual(item, byUid.get((item.metadata as Row).uid));
  });
});

describe('batches', () => {
  test(`by size: a backlog goes in batches of SINK_BATCH_SIZE (${BATCH_SIZE}), the last one once its age limit passed`, async () => {
    const ws = await h.workspace();
    for (let i = 0; i < 2 * BATCH_SIZE; i++) await supplier(ws, `Supplier ${i}`);
    const audit = await feed(ws, '/audit-logs');
    const path = `/${randomUUID()}`;
    const created = await h.admin('POST', `/admin/workspaces/${ws.id}/sinks`, {
      kind: 'http',
      url: receiver.url(path),
      sources: ['audit'],
      start: 'beginning',
    });
    assert.equal(created.status, 201, created.body);
    const batches = () => batchesAt(path);
    const count = (r: Received) => r.raw.toString('utf8').split('\n').filter(Boolean).length;
    // Every entry of the trail, the registration's too.
    await eventually(async () => batches().reduce((n, r) => n + count(r), 0) === audit.length + 1);
    const sizes = batches().map(count);
    assert.ok(
      sizes.slice(0, -1).every((size) => size === BATCH_SIZE),
      `sizes ${sizes}`,
    );
    assert.ok((sizes.at(-1) as number) <= BATCH_SIZE);
    const ids = linesAt(path).map((l) => JSON.parse(l).id);
    assert.deepEqual(
      ids.slice(0, audit.length),
      audit.map((e) => e.id),
    );
  });

  test(`by age: a lone record waits SINK_BATCH_AGE (${BATCH_AGE_MS} ms) for company, then goes alone`, async () => {
    const { ws, batches, records } = await withSink({ sources: ['events'] });
    await supplier(ws, 'Acme');
    await eventually(async () => batches().length === 1);
    const [event] = records();
    const waited = (batches()[0] as Received).at - Date.parse(event.occurred_at);
    assert.ok(waited >= BATCH_AGE_MS - 5, `sent ${waited} ms after the event`);
    assert.ok(waited < BATCH_AGE_MS + 2000, `sent ${waited} ms after the event`);
  });
});

describe('failures', () => {
  test('a batch answered 500 is sent again with the same records; the delivery log has both attempts', async () => {
    const path = `/${randomUUID()}`;
    let answered = 0;
    receiver.answerAt(path, (request, res) => {
      answered++;
      answerWith(answered === 1 ? 500 : 200, 'busy')(request, res);
    });
    const { ws, sink, batches } = await withSink({ sources: ['events'] }, path);
    await supplier(ws, 'Acme');
    await eventually(async () => batches().length === 2);
    const [first, second] = batches() as [Received, Received];
    assert.deepEqual(second.raw, first.raw);
    // The worker writes the delivery's row once the collector's answer is in: after the collector saw the batch.
    const log = await eventually(async () => {
      const answer = await deliveries(sink.id);
      return answer.data.length === 2 ? answer : null;
    });
    const [delivered, failed] = log.data as [Row, Row];
    const [event] = await feed(ws, '/events');
    assert.deepEqual(
      { outcome: failed.outcome, status: failed.status, attempt: failed.attempt, count: failed.count },
      { outcome: 'failed', status: 500, attempt: 1, count: 1 },
    );
    assert.match(String(failed.error), /HTTP 500/);
    assert.deepEqual(
      {
        outcome: delivered.outcome,
        status: delivered.status,
        attempt: delivered.attempt,
        error: delivered.error,
      },
      { outcome: 'delivered', status: 200, attempt: 2, error: null },
    );
    for (const row of [failed, delivered]) {
      assert.equal(row.first_id, event?.event_id);
      assert.equal(row.last_id, event?.event_id);
      assert.equal(typeof row.duration_ms, 'number');
    }
    // The filter and the pages of the log.
    assert.deepEqual(
      (await deliveries(sink.id, '?outcome=failed')).data.map((r) => r.id),
      [failed.id],
    );
    const page = await deliveries(sink.id, '?limit=1');
    assert.deepEqual(
      page.data.map((r) => r.id),
      [delivered.id],
    );
    const next = await deliveries(sink.id, `?limit=1&cursor=${page.next_cursor}`);
    assert.deepEqual(
      next.data.map((r) => r.id),
      [failed.id],
    );
    assert.equal(next.next_cursor, null);
    const sinkNow = await h.admin('GET', `/admin/sinks/${sink.id}`);
    assert.equal(sinkNow.json.event_position, event?.event_id);
    assert.equal(sinkNow.json.failing_since, null);
    // Counted by outcome.
    const metrics = await scrape(h.adminApp);
    assert.ok(metrics.value('tprm_sink_batches_total', { outcome: 'failed', kind: 'http' }) >= 1);
    assert.ok(metrics.value('tprm_sink_batches_total', { outcome: 'delivered', kind: 'http' }) >= 1);
    assert.ok(metrics.value('tprm_sink_lag_seconds_count') >= 1);
  });

  test('a sink whose batches have all failed for WEBHOOK_DISABLE_AFTER is disabled, audited and logged; re-enabled, it resumes from its position', async () => {
    const path = `/${randomUUID()}`;
    receiver.answerAt(path, answerWith(503, 'down'));
    const { ws, sink, batches } = await withSink({ sources: ['events'] }, path);
    await supplier(ws, 'Acme');
    await eventually(
      async () => (await h.admin('GET', `/admin/sinks/${sink.id}`)).json.enabled === false,
      15_000,
    );
    const [entry] = (await h.api('GET', '/audit-logs?action=sink.disabled', { key: ws.key })).json.data;
    assert.equal(entry.target_id, sink.id);
    assert.equal(entry.actor_type, 'system');
    assert.equal(entry.metadata.disable_after_ms, DISABLE_AFTER_MS);
    const line = logs.records().find((r) => r.sink_id === sink.id && r.msg.startsWith('sink disabled'));
    assert.equal(line?.level, 50);
    assert.ok((await scrape(h.adminApp)).value('tprm_sinks_disabled_total') >= 1);
    // Disabled: nothing more is sent.
    const sent = batches().length;
    await sleep(300);
    assert.equal(batches().length, sent);
    // Re-enabled: the same event, from the position that never moved.
    receiver.answerAt(path, answerWith(200));
    const enabled = await h.admin('PATCH', `/admin/sinks/${sink.id}`, { enabled: true });
    assert.equal(enabled.json.failing_since, null);
    await eventually(
      async () => (await h.admin('GET', `/admin/sinks/${sink.id}`)).json.event_position !== null,
    );
    assert.deepEqual((batches().at(-1) as Received).raw, (batches()[0] as Received).raw);
  });
});

test('a change of where a failing sink sends makes its batch due at once, not at the end of its back-off (P247)', async () => {
  const [down, up] = [`/${randomUUID()}`, `/${randomUUID()}`];
  receiver.answerAt(down, answerWith(503, 'down'));
  const { ws, sink } = await withSink({ sources: ['events'] }, down);
  await supplier(ws, 'Acme');
  await eventually(async () => (await deliveries(sink.id)).data.length >= 1);
  // The back-off of an hour that a target down for long earns (this file's schedule is 40 ms), set while no
  // worker holds the sink: then none can claim it before it is due.
  await eventually(
    async () =>
      (
        await h.db.query(
          "update sinks set due_at = now() + interval '1 hour' where id = $1 and claim_token is null returning id",
          [sink.id],
        )
      ).length === 1,
  );
  const backingOff = async () =>
    (
      await h.db.query("select 1 from sinks where id = $1 and due_at > now() + interval '50 minutes'", [
        sink.id,
      ])
    ).length === 1;
  // A change of anything else leaves the back-off as it is.
  assert.equal((await h.admin('PATCH', `/admin/sinks/${sink.id}`, { description: 'noted' })).status, 200);
  assert.equal(await backingOff(), true);
  const changed = await h.admin('PATCH', `/admin/sinks/${sink.id}`, { url: receiver.url(up) });
  assert.equal(changed.status, 200, changed.body);
  assert.equal(await backingOff(), false);
  await eventually(async () => batchesAt(up).length === 1, 3000);
  const [event] = await feed(ws, '/events');
  assert.equal(JSON.parse(linesAt(up)[0] as string).event_id, event?.event_id);
});

test('EVENT_RETENTION prunes the delivery log rows older than it, with the events', async () => {
  const { ws, sink } = await withSink({ sources: ['events'] });
  await supplier(ws, 'Acme');
  await eventually(async () => (await deliveries(sink.id)).data.length === 1);
  const [row] = (await deliveries(sink.id)).data;
  await h.db.query("update sink_deliveries set created_at = now() - interval '91 days' where id = $1", [
    row?.id,
  ]);
  assert.equal(await pruneSinkDeliveries(h.db, 90 * 86_400_000), 1);
  assert.deepEqual((await deliveries(sink.id)).data, []);
});

test('a change ends the claim that read the old settings: after the batch in flight, the rest goes to the new target (P238)', async () => {
  const ws = await h.workspace();
  for (let i = 0; i < 2 * BATCH_SIZE; i++) await supplier(ws, `Supplier ${i}`);
  const [before, after] = [`/${randomUUID()}`, `/${randomUUID()}`];
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  receiver.answerAt(before, (request, res) => {
    void held.then(() => answerWith(200, 'ok')(request, res));
  });
  const created = await h.admin('POST', `/admin/workspaces/${ws.id}/sinks`, {
    kind: 'http',
    url: receiver.url(before),
    sources: ['audit'],
    start: 'beginning',
  });
  assert.equal(created.status, 201, created.body);
  const ids = (path: string) => linesAt(path).map((line) => JSON.parse(line).id as string);
  // The first batch is at the old target, unanswered, when the target changes.
  await eventually(async () => ids(before).length === BATCH_SIZE);
  const changed = await h.admin('PATCH', `/admin/sinks/${created.json.id}`, { url: receiver.url(after) });
  assert.equal(changed.status, 200, changed.body);
  release();
  const trail = (await feed(ws, '/audit-logs')).map((entry) => entry.id as string);
  await eventually(async () => ids(after).includes(trail.at(-1) as string));
  assert.deepEqual(
    ids(before),
    trail.slice(0, BATCH_SIZE),
    'the old target got the batch in flight, nothing more',
  );
  // That batch was acknowledged by a claim the change had ended: its position did not move, so the new target
  // gets it too (at least once), and then the rest of the trail in order.
  assert.deepEqual(ids(after), trail);
});

test('a sink keeps its connection from one claim to the next while its settings stand, and opens another once they change (P239)', async () => {
  const { ws, sink, batches } = await withSink({ sources: ['events'] });
  // Each lone event goes in a batch of its own, after SINK_BATCH_AGE, by a claim of its own.
  await supplier(ws, 'First');
  await eventually(async () => batches().length === 1);
  await supplier(ws, 'Second');
  await eventually(async () => batches().length === 2);
  const [first, second] = batches() as [Received, Received];
  assert.equal(second.port, first.port, "the second claim sent on the first claim's connection");
  const changed = await h.admin('PATCH', `/admin/sinks/${sink.id}`, { description: 'changed' });
  assert.equal(changed.status, 200, changed.body);
  await supplier(ws, 'Third');
  await eventually(async () => batches().length === 3);
  assert.notEqual(batches()[2]?.port, first.port, 'changed settings, a new transport');
});

describe('the credential', () => {
  test('is never returned, not even by the registration, nor logged; `has_credential` says it is set', async () => {
    const credential = `Bearer sinksecret_${randomUUID()}`;
    const path = `/${randomUUID()}`;
    receiver.answerAt(path, answerWith(500, 'no'));
    const { ws, sink } = await withSink({ credential, sources: ['events'] }, path);
    await supplier(ws, 'Acme');
    const patched = await h.admin('PATCH', `/admin/sinks/${sink.id}`, { credential: `${credential}-2` });
    await eventually(async () => (await deliveries(sink.id)).data.length >= 2);
    const answers = [
      JSON.stringify(sink),
      patched.body,
      (await h.admin('GET', `/admin/sinks/${sink.id}`)).body,
      (await h.admin('GET', `/admin/workspaces/${ws.id}/sinks`)).body,
      JSON.stringify(await deliveries(sink.id)),
      JSON.stringify(await feed(ws, '/audit-logs')),
    ];
    for (const answer of answers) assert.ok(!answer.includes('sinksecret_'), answer);
    assert.equal(sink.has_credential, true);
    assert.ok(!('credential' in sink));
    assert.ok(!logs.text().includes('sinksecret_'));
    // Cleared.
    const cleared = await h.admin('PATCH', `/admin/sinks/${sink.id}`, { credential: null });
    assert.equal(cleared.json.has_credential, false);
  });
});

describe('management', () => {
  test('a sink is listed, read, changed and deleted with its delivery log; each change is audited without its target', async () => {
    const { ws, sink } = await withSink({ description: 'SIEM', sources: ['audit'] });
    const list = await h.admin('GET', `/admin/workspaces/${ws.id}/sinks`);
    assert.deepEqual(
      list.json.data.map((s: Row) => s.id),
      [sink.id],
    );
    const changed = await h.admin('PATCH', `/admin/sinks/${sink.id}`, {
      sources: ['audit', 'events'],
      event_types: ['supplier.created'],
      format: 'ocsf',
      description: null,
    });
    assert.equal(changed.status, 200, changed.body);
    assert.deepEqual(
      [changed.json.sources, changed.json.event_types, changed.json.format, changed.json.description],
      [['audit', 'events'], ['supplier.created'], 'ocsf', null],
    );
    assert.equal((await h.admin('DELETE', `/admin/sinks/${sink.id}`)).status, 204);
    assertError(await h.admin('GET', `/admin/sinks/${sink.id}`), 404, 'resource_not_found');
    assertError(await h.admin('GET', `/admin/sinks/${sink.id}/deliveries`), 404, 'resource_not_found');
    const actions = (await feed(ws, '/audit-logs')).filter((e) => String(e.action).startsWith('sink.'));
    assert.deepEqual(
      actions.map((e) => e.action),
      ['sink.created', 'sink.updated', 'sink.deleted'],
    );
    assert.ok(!JSON.stringify(actions).includes('127.0.0.1'));
  });

  test('fields of the other kind, a missing target and event types without the events source are 422s naming the field', async () => {
    const ws = await h.workspace();
    const create = (body: Row) => h.admin('POST', `/admin/workspaces/${ws.id}/sinks`, body);
    const cases: [Row, string][] = [
      [{ kind: 'http', sources: ['audit'] }, 'url'],
      [{ kind: 'http', url: 'https://siem.example/in', sources: ['audit'], host: 'siem.example' }, 'host'],
      [{ kind: 'syslog', host: 'siem.example', sources: ['audit'] }, 'port'],
      [
        { kind: 'syslog', host: 'siem.example', port: 6514, sources: ['audit'], credential: 'x' },
        'credential',
      ],
      [
        { kind: 'http', url: 'https://siem.example/in', sources: ['audit'], event_types: ['alert.created'] },
        'event_types',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await create(body);
      assertError(res, 422, 'validation_failed');
      assert.ok(field in res.json.error.details.fields, `${JSON.stringify(body)}: ${res.body}`);
    }
  });
});

describe('the address policy of webhooks', () => {
  const { h: strict } = useHarness({ env: { WEBHOOK_ALLOW_INSECURE_URLS: 'false' } });

  test('at send time too: a target that resolves to a refused address fails the batch as blocked', async () => {
    const ws = await strict.workspace();
    const created = await strict.admin('POST', `/admin/workspaces/${ws.id}/sinks`, {
      kind: 'http',
      url: 'https://siem.example/in',
      sources: ['audit'],
    });
    // Stored before the policy could see it (as a URL registered under an older rule would be).
    await strict.db.query("update sinks set url = 'https://127.0.0.1:9/in' where id = $1", [created.json.id]);
    strict.sinkWorker();
    const failed = await eventually(async () => {
      const res = await strict.admin('GET', `/admin/sinks/${created.json.id}/deliveries`);
      return res.json.data[0];
    });
    assert.equal(failed.outcome, 'failed');
    assert.match(String(failed.error), /^blocked: /);
  });

  test('refuses http://, loopback, private and localhost targets with a 422 naming the field, and accepts a public one', async () => {
    const ws = await strict.workspace();
    const create = (body: Row) =>
      strict.admin('POST', `/admin/workspaces/${ws.id}/sinks`, { sources: ['audit'], ...body });
    const refused: [Row, string][] = [
      [{ kind: 'http', url: 'http://siem.example/in' }, 'url'],
      [{ kind: 'http', url: 'https://127.0.0.1/in' }, 'url'],
      [{ kind: 'http', url: 'https://localhost/in' }, 'url'],
      [{ kind: 'http', url: 'https://10.1.2.3/in' }, 'url'],
      [{ kind: 'syslog', host: '192.168.1.10', port: 6514 }, 'host'],
      [{ kind: 'syslog', host: 'localhost', port: 6514 }, 'host'],
      [{ kind: 'syslog', host: '127.1', port: 6514 }, 'host'],
    ];
    for (const [body, field] of refused) {
      const res = await create(body);
      assertError(res, 422, 'validation_failed');
      assert.deepEqual(Object.keys(res.json.error.details.fields), [field], res.body);
    }
    assert.equal((await create({ kind: 'http', url: 'https://siem.example/in' })).status, 201);
    assert.equal((await create({ kind: 'syslog', host: 'siem.example', port: 6514 })).status, 201);
    const [sink] = (await strict.admin('GET', `/admin/workspaces/${ws.id}/sinks`)).json.data;
    assertError(
      await strict.admin('PATCH', `/admin/sinks/${sink.id}`, { host: '127.0.0.1' }),
      422,
      'validation_failed',
    );
  });
});
