// risk-data-api.md "Audit"; resources.md "Audit log entry"; decisions 2, 12, 13, 14, 26, 38; P72.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { SCOPES } from '../../src/schema/fields.js';
import { AUDIT_ACTIONS } from '../../src/storage/audit.js';
import { migrate } from '../../src/storage/migrate.js';
import { writeEveryAuditAction } from '../support/audit-actions.js';
import { assertError, type TestWorkspace, useHarness } from '../support/harness.js';

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

/**
 * A workspace moved from another system: history can be imported only while its trail is empty (P102), so it
 * is made without the admin API's `workspace.created` entry, and gets its user and key after the import.
 */
async function workspaceWithHistory(history: ReturnType<typeof entry>[]): Promise<TestWorkspace> {
  const id = randomUUID();
  await h.db.query("insert into workspaces (id, name, plan) values ($1, 'Moved here', 'enterprise')", [id]);
  await h.import(id, { audit_logs: history });
  const user = await h.adminClient.createUser({
    params: { id },
    body: { name: 'Test User', email: 'user@test.example' },
  });
  const key = await h.key(id, user.id, SCOPES);
  return { id, userId: user.id, key: key.secret, keyId: key.id };
}

const { h } = useHarness({}, async () => {
  ws = await workspaceWithHistory([
    entry(E.e3, '2020-01-03T00:00:00Z', 'supplier.created', actor),
    entry(E.e1, '2020-01-01T00:00:00Z', 'supplier.created', actor),
    entry(E.e2a, '2020-01-02T00:00:00Z', 'api_key.revoked', null),
    entry(E.e2b, '2020-01-02T00:00:00Z', 'supplier.created', null),
    entry(E.e4, '2020-01-04T00:00:00.000001Z', 'assessment.created', actor),
  ]);
  other = await h.workspace();
});

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
    assert.deepEqual(actions, ['workspace.data_imported', 'user.created', 'api_key.created']);
    const first = res.json.data[0];
    assert.deepEqual(Object.keys(first).sort(), [
      'action',
      'actor_id',
      'actor_type',
      'created_at',
      'hash',
      'id',
      'metadata',
      'occurred_at',
      'previous_hash',
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

// P72: an entry is served to any key with audit:read, which sees no endpoint, no person and no free text
// elsewhere; its metadata holds only ids, enumerated values, counts, instants, field names and hashes of the
// audit chain itself (workspace.data_imported, P102).
describe('what audit metadata may hold (P72)', () => {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
  const CHAIN_HASH = /^[0-9a-f]{64}$/;
  const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
  // Enumerated values (statuses, scopes, event types, plans) and field names.
  const TOKEN = /^[a-z][a-z0-9_.:-]*$/;

  /** Every string anywhere in `value`. */
  function strings(value: unknown): string[] {
    if (typeof value === 'string') return [value];
    if (Array.isArray(value)) return value.flatMap(strings);
    if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
    return [];
  }

  /** Fails when an entry's metadata holds a said value, or any string that is not an id, instant or token. */
  function assertClean(entries: { action: string; metadata: unknown }[], said: readonly string[]): void {
    for (const entry of entries) {
      for (const text of strings(entry.metadata)) {
        const where = `${entry.action}: ${JSON.stringify(entry.metadata)}`;
        for (const value of said) assert.ok(!text.includes(value), `${where} holds ${value}`);
        assert.ok(
          UUID.test(text) || INSTANT.test(text) || TOKEN.test(text) || CHAIN_HASH.test(text),
          `${where}: "${text}"`,
        );
      }
    }
  }

  async function feedOf(key: string) {
    const res = await get('/audit-logs?limit=200', key);
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.meta.has_more, false);
    return res.json.data as { action: string; metadata: Record<string, unknown> }[];
  }

  test('every action the service writes keeps URLs, secrets, free text and personal values out of metadata', async () => {
    const { wsId, userId, said } = await writeEveryAuditAction(h);
    const auditor = await h.key(wsId, userId, ['audit:read']);
    const entries = await feedOf(auditor.secret);
    const written = new Set(entries.map((entry) => entry.action));
    // P97: each action's metadata, sent canonical by its writer, is what the database recomputes from the row.
    assert.equal((await h.adminClient.verifyAuditChain({ params: { id: wsId } })).valid, true);
    assert.deepEqual(
      AUDIT_ACTIONS.filter((action) => !written.has(action)),
      [],
      'every action is exercised above',
    );
    assertClean(entries, said);
  });

  test('entries stored by earlier versions are served without their URL, note or workspace name (migration 0008)', async () => {
    const token = `tok_${randomUUID()}`;
    const target = randomUUID();
    // The metadata earlier versions wrote.
    const stored: [string, Record<string, unknown>][] = [
      [
        'webhook_endpoint.created',
        { url: `https://hooks.people.example/in?token=${token}`, events: ['alert.created'] },
      ],
      [
        'action_plan_item.status_changed',
        {
          action_plan_id: target,
          previous_status: 'pending',
          status: 'in_progress',
          note: 'Call Ada Lovelace',
        },
      ],
      [
        'action_plan_item.note_added',
        { action_plan_id: target, status: 'in_progress', note: 'Call Ada Lovelace' },
      ],
      [
        'workspace.updated',
        { changes: { name: 'Lovelace & Babbage', plan: 'business', assessment_quota: 7 } },
      ],
    ];
    const own = await h.workspace();
    for (const [action, metadata] of stored) {
      await h.db.query(
        `insert into audit_logs (workspace_id, id, action, actor_type, target_type, target_id, metadata)
         values ($1, $2, $3, 'system', 'workspace', $1, $4::jsonb)`,
        [own.id, randomUUID(), action, JSON.stringify(metadata)],
      );
    }
    // Applied as on an upgrade from a version before it (and before the hash chain, which chains them).
    await h.db.query('delete from schema_migrations where version in (8, 12)');
    assert.deepEqual(await migrate(h.db), [
      '0008_audit_redaction_delivery_timestamps.sql',
      '0012_audit_chain.sql',
    ]);

    const entries = await feedOf(own.key);
    assertClean(entries, [token, 'https://', 'Lovelace', 'Babbage']);
    const served = Object.fromEntries(entries.map((entry) => [entry.action, entry.metadata]));
    assert.deepEqual(served['webhook_endpoint.created'], { events: ['alert.created'] });
    assert.deepEqual(served['action_plan_item.status_changed'], {
      action_plan_id: target,
      previous_status: 'pending',
      status: 'in_progress',
    });
    assert.deepEqual(served['action_plan_item.note_added'], {
      action_plan_id: target,
      status: 'in_progress',
    });
    assert.deepEqual(served['workspace.updated'], {
      changes: ['assessment_quota', 'name', 'plan'],
      plan: 'business',
      assessment_quota: 7,
    });
  });
});
