// Issue 26, points 1-3 (docs/decisions.md P172-P179): GET /v1/events, the event log (every event of the
// workspace with the payload and event_id its webhooks carry, a resumable feed, EVENT_RETENTION); the opt-in
// event types (sent only to endpoints that name them); `updated_since` on every collection of changing records.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import {
  ContractEventTypes,
  EVENT_CATALOGUE,
  type EventType,
  EventTypes,
  OptInEventTypes,
} from '../../src/contract/events.js';
import { storeEvent } from '../../src/events/outbox.js';
import { pruneEvents } from '../../src/events/retention.js';
import { publicOperations } from '../../src/resources/operations.js';
import { generateSeedDocument } from '../../src/seed/index.js';
import { contract } from '../support/contract.js';
import { type TestWorkspace, useHarness } from '../support/harness.js';
import { eventually, Receiver } from '../support/receiver.js';

let receiver: Receiver;

const { h } = useHarness(
  { env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true', WEBHOOK_TIMEOUT: '2s' } },
  async () => {
    receiver = await Receiver.start();
    await h.worker();
  },
);
after(() => receiver.close());

type Item = Record<string, unknown> & { event_id: string; type: string; occurred_at: string };

async function feed(ws: TestWorkspace, query = '', key = ws.key) {
  const res = await h.api('GET', `/events${query ? `?${query}` : ''}`, { key });
  assert.equal(res.status, 200, res.body);
  return res.json as { data: Item[]; meta: { has_more: boolean; next_cursor: string | null } };
}

const raiseAlert = (ws: TestWorkspace, title = 'Breach') =>
  h.adminClient.createAlert({
    params: { id: ws.id },
    body: { scope: 'org', severity: 'high', title, body: 'Details' },
  });

async function endpoint(ws: TestWorkspace, events: readonly EventType[]) {
  const path = `/${randomUUID()}`;
  const created = await h.adminClient.createWebhookEndpoint({
    params: { id: ws.id },
    body: { url: receiver.url(path), events: [...events] },
  });
  return { id: created.id, path };
}

const toPath = (ws: TestWorkspace, path: string) =>
  receiver.received.filter((r) => r.path === path && r.json?.organization_id === ws.id);

describe('GET /v1/events (P172-P174)', () => {
  test('every event, also those no endpoint subscribed to, exactly as its webhook carries it', async () => {
    const ws = await h.workspace();
    // No endpoint at all: the events are stored and listed.
    const first = await raiseAlert(ws, 'Nobody listens');
    const before = await feed(ws);
    assert.equal(before.data.length, 1);
    assert.equal(before.data[0]?.type, 'alert.created');
    assert.deepEqual(before.data[0]?.data, {
      alert_id: first.id,
      scope: 'org',
      supplier_id: null,
      severity: 'high',
    });
    // With an endpoint: the listed item's bytes are the delivery's body, and the event_id is the same.
    const hook = await endpoint(ws, ['alert.created']);
    await raiseAlert(ws, 'Someone listens');
    await eventually(async () => toPath(ws, hook.path).length === 1);
    const [delivered] = toPath(ws, hook.path);
    const res = await h.api('GET', '/events', { key: ws.key });
    const page = res.json as { data: Item[] };
    assert.equal(page.data.length, 2);
    const listed = page.data[1] as Item;
    assert.equal(listed.event_id, delivered?.json.event_id);
    assert.ok(res.body.includes(delivered?.raw.toString('utf8') as string), 'the bytes of the webhook body');
    for (const item of page.data) contract().checkCataloguedEvent(item);
  });

  test('oldest first; type, from and to filter; the cursor resumes with only newer events', async () => {
    const ws = await h.workspace();
    await raiseAlert(ws, 'one');
    await h.api('PUT', '/assets', {
      key: ws.key,
      body: { source: 'manual', assets: [{ external_id: 'a-1', name: 'A', asset_type: 'application' }] },
    });
    await raiseAlert(ws, 'two');
    const all = await feed(ws);
    assert.deepEqual(
      all.data.map((e) => e.type),
      ['alert.created', 'assets.upserted', 'alert.created'],
    );
    const instants = all.data.map((e) => e.occurred_at);
    assert.deepEqual([...instants].sort(), instants);
    assert.equal(new Set(instants).size, 3, 'strictly increasing within a workspace');
    assert.deepEqual(
      (await feed(ws, 'type=alert.created')).data.map((e) => e.event_id),
      [all.data[0]?.event_id, all.data[2]?.event_id],
    );
    const [, second, third] = all.data as [Item, Item, Item];
    assert.deepEqual(
      (await feed(ws, `from=${second.occurred_at}`)).data.map((e) => e.event_id),
      [second.event_id, third.event_id],
    );
    assert.deepEqual(
      (await feed(ws, `to=${second.occurred_at}`)).data.map((e) => e.event_id),
      [all.data[0]?.event_id, second.event_id],
    );
    // Paging by two, then the stored cursor of the last page gives nothing until a new event happens.
    const one = await feed(ws, 'limit=2');
    assert.equal(one.meta.has_more, true);
    const two = await feed(ws, `limit=2&cursor=${one.meta.next_cursor}`);
    assert.deepEqual(
      two.data.map((e) => e.event_id),
      [third.event_id],
    );
    assert.equal(two.meta.has_more, false);
    assert.ok(two.meta.next_cursor, 'the last page has a cursor to store');
    const idle = await feed(ws, `cursor=${two.meta.next_cursor}`);
    assert.deepEqual(idle.data, []);
    assert.equal(idle.meta.next_cursor, two.meta.next_cursor, 'an empty page echoes the cursor');
    const fourth = await raiseAlert(ws, 'three');
    const resumed = await feed(ws, `cursor=${two.meta.next_cursor}`);
    assert.deepEqual(
      resumed.data.map((e) => (e.data as { alert_id: string }).alert_id),
      [fourth.id],
    );
    // An unknown type is a 400 with the one error shape.
    const bad = await h.api('GET', '/events?type=supplier.deleted', { key: ws.key });
    assert.equal(bad.status, 400, bad.body);
  });

  test('a test event is not listed; another workspace sees none of them; webhooks:read is needed', async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    await raiseAlert(ws);
    await h.db.transaction((tx) =>
      storeEvent(
        tx,
        ws.id,
        'report.ready',
        {
          report_id: randomUUID(),
          supplier_id: randomUUID(),
          assessment_id: null,
        },
        { test: true },
      ),
    );
    const mine = await feed(ws);
    assert.deepEqual(
      mine.data.map((e) => e.type),
      ['alert.created'],
    );
    assert.deepEqual((await feed(other)).data, []);
    // A cursor of one workspace means nothing in another.
    const crossed = await h.api('GET', `/events?cursor=${mine.meta.next_cursor}`, { key: other.key });
    assert.equal(crossed.status, 400, crossed.body);
    const narrow = await h.workspace({ scopes: ['suppliers:read'] });
    const refused = await h.api('GET', '/events', { key: narrow.key });
    assert.equal(refused.status, 403, refused.body);
  });

  test('EVENT_RETENTION: older events and their attempts are deleted in batches; newer ones stay', async () => {
    assert.equal(loadConfig({ DATA_DIR: '/tmp' }).eventRetentionMs, 90 * 86_400_000);
    assert.equal(loadConfig({ DATA_DIR: '/tmp', EVENT_RETENTION: '30d' }).eventRetentionMs, 30 * 86_400_000);
    assert.throws(() => loadConfig({ DATA_DIR: '/tmp', EVENT_RETENTION: '5m' }), /EVENT_RETENTION must be/);
    const ws = await h.workspace();
    const hook = await endpoint(ws, ['alert.created']);
    for (let i = 0; i < 5; i++) await raiseAlert(ws, `old ${i}`);
    await eventually(async () => toPath(ws, hook.path).length === 5);
    const kept = await raiseAlert(ws, 'recent');
    // The five first events are back-dated past 90 days (the delivery log keeps their attempts until then).
    const old = (await feed(ws)).data.slice(0, 5).map((e) => e.event_id);
    await h.db.query(
      `update events set occurred_at = occurred_at - interval '91 days' where workspace_id = $1 and id = any ($2::uuid[])`,
      [ws.id, old],
    );
    const attemptsOf = async () =>
      (
        await h.db.query<{ n: number }>(
          'select count(*)::int as n from webhook_deliveries where workspace_id = $1 and event_id = any ($2::uuid[])',
          [ws.id, old],
        )
      )[0]?.n;
    assert.equal(await attemptsOf(), 5);
    // Another workspace's old events go too (the worker prunes every workspace), two a statement here.
    const pruned = await pruneEvents(h.db, 90 * 86_400_000, { batch: 2 });
    assert.ok(pruned.events >= 5 && pruned.attempts >= 5, JSON.stringify(pruned));
    assert.equal(await attemptsOf(), 0);
    const left = await feed(ws);
    assert.deepEqual(
      left.data.map((e) => (e.data as { alert_id: string }).alert_id),
      [kept.id],
    );
    // Nothing older is left: a second run deletes nothing.
    assert.deepEqual(await pruneEvents(h.db, 90 * 86_400_000), { events: 0, attempts: 0 });
  });
});

describe('opt-in event types (P177)', () => {
  test('the catalogue keeps the contract four; the others are opt-in, with a schema and description', () => {
    assert.deepEqual(
      [...ContractEventTypes],
      ['assessment.completed', 'report.ready', 'alert.created', 'action_plan_item.status_changed'],
    );
    assert.deepEqual([...ContractEventTypes, ...OptInEventTypes].sort(), [...EventTypes].sort());
    for (const type of OptInEventTypes) {
      assert.match(EVENT_CATALOGUE[type].description, /Opt-in/);
      assert.ok(Object.keys(EVENT_CATALOGUE[type].data.properties).length > 0);
    }
  });

  test('each new type reaches an endpoint that named it, never one subscribed to the contract types', async () => {
    const ws = await h.workspace();
    const named = await endpoint(ws, OptInEventTypes);
    const contractOnly = await endpoint(ws, ContractEventTypes);
    // supplier.created
    const supplier = await h.api('POST', '/suppliers', {
      key: ws.key,
      body: { name: 'Acme' },
      headers: { 'idempotency-key': randomUUID() },
    });
    assert.equal(supplier.status, 201, supplier.body);
    const supplierId = supplier.json.id as string;
    // assessment.created, then assessment.status_changed (and the contract's assessment.completed)
    const assessment = await h.api('POST', '/assessments', {
      key: ws.key,
      body: { supplier_id: supplierId, assessment_type: 'self' },
      headers: { 'idempotency-key': randomUUID() },
    });
    assert.equal(assessment.status, 201, assessment.body);
    const assessmentId = assessment.json.id as string;
    await h.adminClient.setAssessmentStatus({ params: { id: assessmentId }, body: { status: 'sent' } });
    // The same status again changes nothing: no event.
    await h.adminClient.setAssessmentStatus({ params: { id: assessmentId }, body: { status: 'sent' } });
    await h.adminClient.setAssessmentStatus({ params: { id: assessmentId }, body: { status: 'completed' } });
    // assets.upserted (a batch that changes nothing sends nothing), asset.confirmed
    const batch = {
      source: 'cloud',
      cloud_provider: 'aws',
      assets: [{ external_id: 'i-1', name: 'Web', asset_type: 'application' }],
    };
    assert.equal((await h.api('PUT', '/assets', { key: ws.key, body: batch })).status, 200);
    assert.equal((await h.api('PUT', '/assets', { key: ws.key, body: batch })).status, 200);
    const assets = await h.api('GET', '/assets', { key: ws.key });
    const assetId = assets.json.data[0].id as string;
    await h.admin('POST', `/admin/assets/${assetId}/confirm`);
    // action_plan_item.note_added (same status with a note), then a change of status (the contract's type)
    const planId = randomUUID();
    const itemId = randomUUID();
    await h.import(ws.id, {
      action_plans: [{ id: planId, supplier_id: supplierId, title: 'Plan' }],
      action_plan_items: [{ id: itemId, action_plan_id: planId, title: 'Item', status: 'pending' }],
    });
    const noted = await h.api('PATCH', `/action-plan-items/${itemId}`, {
      key: ws.key,
      body: { status: 'pending', note: 'Asked the supplier' },
    });
    assert.equal(noted.status, 200, noted.body);
    await h.api('PATCH', `/action-plan-items/${itemId}`, { key: ws.key, body: { status: 'in_progress' } });

    const expected: Record<string, unknown>[] = [
      { type: 'supplier.created', data: { supplier_id: supplierId } },
      {
        type: 'assessment.created',
        data: { assessment_id: assessmentId, supplier_id: supplierId, assessment_type: 'self' },
      },
      {
        type: 'assessment.status_changed',
        data: {
          assessment_id: assessmentId,
          supplier_id: supplierId,
          previous_status: 'draft',
          status: 'sent',
        },
      },
      {
        type: 'assessment.status_changed',
        data: {
          assessment_id: assessmentId,
          supplier_id: supplierId,
          previous_status: 'sent',
          status: 'completed',
        },
      },
      {
        type: 'assets.upserted',
        data: { source: 'cloud', cloud_provider: 'aws', created: 1, updated: 0, skipped: 0 },
      },
      { type: 'asset.confirmed', data: { asset_id: assetId } },
      {
        type: 'action_plan_item.note_added',
        data: { action_plan_item_id: itemId, action_plan_id: planId, status: 'pending' },
      },
    ];
    await eventually(async () => toPath(ws, named.path).length >= expected.length);
    const received = toPath(ws, named.path)
      .map((r) => r.json)
      .sort((a, b) => (a.occurred_at < b.occurred_at ? -1 : 1));
    assert.deepEqual(
      received.map((event) => ({ type: event.type, data: event.data })),
      expected,
    );
    for (const event of received) contract().checkCataloguedEvent(event);
    assert.deepEqual(new Set(received.map((e) => e.type)), new Set(OptInEventTypes));
    // The endpoint of the contract's four got only those: the completion and the status change.
    await eventually(async () => toPath(ws, contractOnly.path).length === 2);
    assert.deepEqual(
      toPath(ws, contractOnly.path)
        .map((r) => r.json.type)
        .sort(),
      ['action_plan_item.status_changed', 'assessment.completed'],
    );
    // The log holds them all, in the order they happened, with the ids the webhooks carried.
    const log = (await feed(ws, 'limit=100')).data;
    assert.equal(log.length, expected.length + 2);
    const ids = new Set(log.map((e) => e.event_id));
    for (const event of received) assert.ok(ids.has(event.event_id as string));
  });

  test('the CLI\'s "all" is the contract four; a PATCH naming a new type subscribes to it', async () => {
    const { list } = await import('../../src/cli/options.js');
    assert.deepEqual(list(ContractEventTypes)('all'), [...ContractEventTypes]);
    const ws = await h.workspace();
    const hook = await endpoint(ws, ContractEventTypes);
    await h.adminClient.updateWebhookEndpoint({
      params: { id: hook.id },
      body: { events: [...ContractEventTypes, 'supplier.created'] },
    });
    const created = await h.api('POST', '/suppliers', {
      key: ws.key,
      body: { name: 'Beta' },
      headers: { 'idempotency-key': randomUUID() },
    });
    await eventually(async () => toPath(ws, hook.path).length === 1);
    assert.deepEqual(toPath(ws, hook.path)[0]?.json.data, { supplier_id: created.json.id });
  });
});

describe('updated_since on every collection of changing records (P178, P179)', () => {
  const collections = publicOperations.filter(
    (op) => 'list' in op && (op as unknown as { list: { updatedSince: boolean } }).list.updatedSince,
  );

  test('every list whose resource has updated_at takes it, the event log and audit trail do not', () => {
    const paths = collections.map((op) => op.path).sort();
    assert.deepEqual(paths, [
      '/action-plans',
      '/assessments',
      '/assets',
      '/bia',
      '/business-processes',
      '/insights',
      '/processing-activities',
      '/products-services',
      '/reports',
      '/risk-acceptances',
      '/risks',
      '/suppliers',
      '/threats',
      '/webhook-deliveries',
      '/webhook-endpoints',
    ]);
  });

  test('at or after: each collection serves the records changed at or after the instant', async () => {
    const ws = await h.workspace();
    const doc = generateSeedDocument({ size: { suppliers: 6 }, seed: 2026 });
    const res = await h.import(ws.id, doc);
    assert.equal(res.status, 200, res.body);
    await endpoint(ws, ['alert.created']);
    await raiseAlert(ws);
    await eventually(async () => {
      const d = await h.api('GET', '/webhook-deliveries', { key: ws.key });
      return d.json.data.some((row: { status: string }) => row.status === 'delivered');
    });
    for (const op of collections) {
      const path = op.path;
      const all = await h.api('GET', `${path}?limit=200`, { key: ws.key });
      assert.equal(all.status, 200, `${path}: ${all.body}`);
      const rows = all.json.data as { id: string; updated_at: string }[];
      assert.ok(rows.length > 0, `${path} has records to filter`);
      const stamps = rows.map((row) => row.updated_at).sort();
      const since = stamps[Math.floor(stamps.length / 2)] as string;
      const filtered = await h.api('GET', `${path}?limit=200&updated_since=${since}`, { key: ws.key });
      assert.equal(filtered.status, 200, `${path}: ${filtered.body}`);
      const expected = rows.filter((row) => row.updated_at >= since).map((row) => row.id);
      assert.deepEqual(
        (filtered.json.data as { id: string }[]).map((row) => row.id),
        expected,
        `${path}?updated_since=${since}`,
      );
      assert.ok(expected.length > 0);
      const bad = await h.api('GET', `${path}?updated_since=yesterday`, { key: ws.key });
      assert.equal(bad.status, 400, `${path}: ${bad.body}`);
    }
  });

  test('every change moves updated_at, also an update that does not set it; each filter has its index', async () => {
    const ws = await h.workspace();
    const threatId = randomUUID();
    await h.import(ws.id, {
      threats: [{ id: threatId, title: 'Ransomware', severity: 'high', status: 'open', source: 'manual' }],
    });
    const read = async () =>
      (
        await h.db.query<{ at: string }>('select iso(updated_at) as at from threats where id = $1', [
          threatId,
        ])
      )[0]?.at as string;
    const before = await read();
    // An UPDATE that does not name updated_at (as a future handler might forget to).
    await h.db.query("update threats set status = 'mitigated' where id = $1", [threatId]);
    const after = await read();
    assert.ok(after > before, `${after} > ${before}`);
    const listed = await h.api('GET', `/threats?updated_since=${after}`, { key: ws.key });
    assert.deepEqual(
      listed.json.data.map((row: { id: string }) => row.id),
      [threatId],
    );
    // An UPDATE that sets updated_at keeps its own value.
    await h.db.query(
      "update threats set status = 'open', updated_at = '2020-01-01T00:00:00Z' where id = $1",
      [threatId],
    );
    assert.equal(await read(), '2020-01-01T00:00:00.000000Z');
    const indexed = await h.db.query<{ table: string }>(
      `select tablename as table from pg_indexes
        where indexdef like '%(workspace_id, updated_at)%' or indexdef like '%(workspace_id, action_plan_id, updated_at)%'`,
    );
    const tables = new Set(indexed.map((row) => row.table));
    for (const op of collections) {
      const table = (op as unknown as { list: { resource: { table: string } } }).list.resource.table;
      assert.ok(tables.has(table), `${table} has an index for updated_since`);
    }
  });
});
