// risk-data-api.md "Audit"; resources.md "Audit log entry"; decisions 2, 12, 13, 14, 26, 38.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { assertError, Harness, type TestWorkspace } from './support/harness.js';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

const actor = randomUUID();
// Imported history, older than anything the service writes: e1 < (e2a, e2b same instant) < e3 < e4.
const E = {
  e1: randomUUID(),
  e2a: randomUUID(),
  e2b: randomUUID(),
  e3: randomUUID(),
  e4: randomUUID(),
};
const [tieLow, tieHigh] = [E.e2a, E.e2b].sort() as [string, string];

const entry = (id: string, occurredAt: string, action: string, actorId: string | null) => ({
  id,
  occurred_at: occurredAt,
  action,
  actor_type: actorId ? 'user' : 'system',
  actor_id: actorId,
  target_type: 'supplier',
  target_id: randomUUID(),
  request_id: actorId ? 'req_1' : null,
  metadata: { imported: true },
});

before(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  other = await h.workspace();
  await h.import(ws.id, {
    audit_logs: [
      entry(E.e3, '2020-01-03T00:00:00Z', 'supplier.created', actor),
      entry(E.e1, '2020-01-01T00:00:00Z', 'supplier.created', actor),
      entry(E.e2a, '2020-01-02T00:00:00Z', 'api_key.revoked', null),
      entry(E.e2b, '2020-01-02T00:00:00Z', 'supplier.created', null),
      entry(E.e4, '2020-01-04T00:00:00.000001Z', 'assessment.created', actor),
    ],
  });
});
after(() => h.close());

type Page = { json: { data: { id: string; action: string }[]; meta: Record<string, unknown> } };
const get = (path: string, key = ws.key) => h.api('GET', path, { key });
const ids = (res: Page) => res.json.data.map((row) => row.id);
const withCursor = (path: string, cursor: unknown) =>
  `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(String(cursor))}`;

/** Polls the feed to its end, page by page; returns the entries and the cursor to store. */
async function pollToEnd(path: string, start: string | null = null) {
  const entries: { id: string; action: string }[] = [];
  let cursor = start;
  for (;;) {
    const res = await get(cursor ? withCursor(path, cursor) : path);
    assert.equal(res.status, 200, res.body);
    entries.push(...res.json.data);
    if (res.json.data.length > 0) {
      // decision 13: a cursor on every page with an entry, the last page included.
      assert.equal(typeof res.json.meta.next_cursor, 'string');
    }
    cursor = res.json.meta.next_cursor ?? cursor;
    if (!res.json.meta.has_more) return { entries, cursor };
  }
}

describe('GET /audit-logs', () => {
  test('oldest first by occurred_at, ties on id ascending (decisions 12, 38); the entry shape', async () => {
    const res = await get('/audit-logs?limit=200');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res).slice(0, 5), [E.e1, tieLow, tieHigh, E.e3, E.e4]);
    // The workspace's own management trail follows (written now, so newer than the imported history).
    const actions = res.json.data.slice(5).map((row: { action: string }) => row.action);
    assert.ok(actions.includes('workspace.created') && actions.includes('api_key.created'), actions.join());
    const first = res.json.data[0];
    assert.deepEqual(Object.keys(first).sort(), [
      'action',
      'actor_id',
      'actor_type',
      'created_at',
      'id',
      'metadata',
      'occurred_at',
      'request_id',
      'target_id',
      'target_type',
    ]);
    assert.equal(first.occurred_at, '2020-01-01T00:00:00.000000Z');
    assert.deepEqual(first.metadata, { imported: true });
  });

  test('the feed: poll to the end, store the cursor, resume later and see only newer entries (decision 13)', async () => {
    const feed = await get('/audit-logs?limit=200');
    const total = feed.json.data.length;
    const { entries, cursor } = await pollToEnd('/audit-logs?limit=2');
    assert.deepEqual(
      entries.map((row) => row.id),
      ids(feed),
    );
    assert.equal(entries.length, total);
    assert.ok(cursor);

    // Nothing new yet: an empty page that echoes the stored cursor.
    const idle = await get(withCursor('/audit-logs?limit=2', cursor));
    assert.deepEqual(idle.json.data, []);
    assert.deepEqual(idle.json.meta, { has_more: false, next_cursor: cursor, feature_status: 'available' });

    // New entries: a supplier created through the API (and the ones a second one writes).
    const created = [];
    for (const name of ['Audited one', 'Audited two', 'Audited three']) {
      const res = await h.api('POST', '/suppliers', {
        key: ws.key,
        body: { name },
        headers: { 'idempotency-key': randomUUID() },
      });
      assert.equal(res.status, 201);
      created.push(res.json.id);
    }
    const resumed = await pollToEnd('/audit-logs?limit=2', cursor);
    assert.deepEqual(
      resumed.entries.map((row) => row.action),
      ['supplier.created', 'supplier.created', 'supplier.created'],
    );
    assert.deepEqual(
      resumed.entries.map((row) => (row as unknown as { target_id: string }).target_id),
      created,
    );
    assert.notEqual(resumed.cursor, cursor);

    // And the newest cursor again gives an empty page echoing it.
    const after = await get(withCursor('/audit-logs?limit=2', resumed.cursor));
    assert.deepEqual(after.json.data, []);
    assert.equal(after.json.meta.next_cursor, resumed.cursor);
  });

  test('a page with entries carries next_cursor even when has_more is false', async () => {
    const res = await get('/audit-logs?action=api_key.revoked');
    assert.deepEqual(ids(res), [E.e2a]);
    assert.equal(res.json.meta.has_more, false);
    assert.equal(typeof res.json.meta.next_cursor, 'string');
  });

  test('an empty page without a cursor has next_cursor null', async () => {
    const res = await get('/audit-logs?action=nothing.happened');
    assert.deepEqual(res.json.data, []);
    assert.deepEqual(res.json.meta, { has_more: false, next_cursor: null, feature_status: 'available' });
  });

  test('action filter is an exact match on the event type', async () => {
    const res = await get('/audit-logs?action=supplier.created&limit=3');
    assert.deepEqual(ids(res), [E.e1, E.e2b, E.e3]);
    assert.deepEqual(ids(await get('/audit-logs?action=supplier')), []);
    assert.deepEqual(ids(await get('/audit-logs?action=SUPPLIER.CREATED')), []);
  });

  test('actor_id filter', async () => {
    assert.deepEqual(ids(await get(`/audit-logs?actor_id=${actor}`)), [E.e1, E.e3, E.e4]);
    const created = await h.api('POST', '/suppliers', {
      key: ws.key,
      body: { name: 'By the key creator' },
      headers: { 'idempotency-key': randomUUID() },
    });
    const mine = await get(`/audit-logs?actor_id=${ws.userId}&limit=200`);
    const rows = mine.json.data as { actor_id: string; target_id: string }[];
    assert.ok(rows.some((row) => row.target_id === created.json.id));
    for (const row of rows) assert.equal(row.actor_id, ws.userId);
    // An actor of another workspace gives an empty page, never their entries.
    assert.deepEqual(ids(await get(`/audit-logs?actor_id=${other.userId}`)), []);
    assertError(await get('/audit-logs?actor_id=nope'), 400, 'invalid_request');
  });

  test('from and to bound occurred_at, both inclusive', async () => {
    assert.deepEqual(ids(await get('/audit-logs?from=2020-01-02T00:00:00Z&to=2020-01-03T00:00:00Z')), [
      tieLow,
      tieHigh,
      E.e3,
    ]);
    assert.deepEqual(ids(await get('/audit-logs?to=2020-01-01T00:00:00Z')), [E.e1]);
    // Microsecond precision: e4 is 1 µs after midnight.
    assert.deepEqual(ids(await get('/audit-logs?from=2020-01-04T00:00:00.000001Z&to=2020-01-05T00:00:00Z')), [
      E.e4,
    ]);
    assert.deepEqual(ids(await get('/audit-logs?from=2020-01-03T00:00:00Z&to=2020-01-04T00:00:00Z')), [E.e3]);
    // An offset is a valid instant.
    assert.deepEqual(ids(await get(`/audit-logs?to=${encodeURIComponent('2020-01-01T01:00:00+01:00')}`)), [
      E.e1,
    ]);
  });

  test('a cursor is bound to its filters; tampered and foreign cursors are 400 (decisions 2, 14)', async () => {
    const page = await get('/audit-logs?limit=1&action=supplier.created');
    const cursor = page.json.meta.next_cursor as string;
    assertError(
      await get(withCursor('/audit-logs?limit=1&action=api_key.revoked', cursor)),
      400,
      'invalid_request',
    );
    assertError(await get(withCursor('/audit-logs?limit=1', cursor)), 400, 'invalid_request');
    assertError(
      await get(withCursor('/audit-logs?limit=1&action=supplier.created', `${cursor}x`)),
      400,
      'invalid_request',
    );
    const theirs = await get('/audit-logs?limit=1&action=supplier.created', other.key);
    if (theirs.json.meta.next_cursor)
      assertError(
        await get(withCursor('/audit-logs?limit=1&action=supplier.created', theirs.json.meta.next_cursor)),
        400,
        'invalid_request',
      );
    const insights = await get('/audit-logs?limit=1');
    assertError(await get(withCursor('/insights', insights.json.meta.next_cursor)), 400, 'invalid_request');
  });

  test('malformed filters are 400 naming the parameter', async () => {
    for (const [query, parameter] of [
      ['from=yesterday', 'from'],
      ['to=2024-02-30T00:00:00Z', 'to'],
      ['limit=500', 'limit'],
      ['actor=me', 'actor'],
    ]) {
      const res = await get(`/audit-logs?${query}`);
      assertError(res, 400, 'invalid_request');
      assert.equal(res.json.error.details.parameter, parameter);
    }
  });

  test("another workspace's entries are never visible", async () => {
    const mine = await get('/audit-logs?limit=200');
    const theirs = await get('/audit-logs?limit=200', other.key);
    const mineIds = new Set(ids(mine));
    assert.ok(theirs.json.data.length > 0);
    for (const id of ids(theirs)) assert.ok(!mineIds.has(id));
    assert.ok(!ids(theirs).includes(E.e1));
    for (const row of mine.json.data as { target_id: string }[]) assert.notEqual(row.target_id, other.id);
  });

  test('needs audit:read', async () => {
    const key = await h.key(ws.id, ws.userId, ['suppliers:read', 'pii:read']);
    const res = await get('/audit-logs', key.secret);
    assertError(res, 403, 'insufficient_scope');
    assert.equal(res.json.error.details.required_scope, 'audit:read');
  });
});
