// The tamper-evident audit trail: resources.md "Audit log entry" (`hash`, `previous_hash`), docs/decisions.md
// P97 (the chain, its canonical text), P98 (entries an earlier version wrote), P102 (an import appends, never
// rewrites), P103 (verification in chunks), and docs/operations.md "Audit verification". The chain is checked twice, independently: by the database
// (GET /admin/workspaces/{id}/audit-chain) and by the SDK's verifyAuditChain over the public feed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  auditEntryCanonicalText,
  auditEntryHash,
  createClient,
  type TprmClient,
  verifyAuditChain,
} from '../../sdk/src/index.js';
import { AUDIT_CHAIN_CHUNK, type AuditChainReport } from '../../src/resources/audit-logs/schema.js';
import { type AuditEntry, recordAudit } from '../../src/storage/audit.js';
import { migrate } from '../../src/storage/migrate.js';
import { assertError, type TestWorkspace, useHarness } from '../support/harness.js';

let baseUrl: string;

const { h } = useHarness({}, async () => {
  await h.publicApp.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(h.publicApp.server.address() as { port: number }).port}/v1`;
});

const clientOf = (ws: TestWorkspace): TprmClient => createClient({ baseUrl, apiKey: ws.key });

/** The SDK's verification of the whole public feed, followed page by page (small pages: several requests). */
const verifyFeed = (ws: TestWorkspace) => verifyAuditChain(clientOf(ws).auditLogs.list({ limit: 7 }));
const verifyInDatabase = (ws: TestWorkspace) => h.adminClient.verifyAuditChain({ params: { id: ws.id } });

/** The workspace's entries in feed order, as stored. */
const stored = (ws: TestWorkspace) =>
  h.db.query<{ id: string; hash: string; previous_hash: string | null }>(
    'select id, hash, previous_hash from audit_logs where workspace_id = $1 order by occurred_at, id',
    [ws.id],
  );

/** A workspace with a trail of writes through the API and the admin API. */
async function workspaceWithTrail(suppliers = 5): Promise<TestWorkspace> {
  const ws = await h.workspace();
  const client = clientOf(ws);
  for (let i = 0; i < suppliers; i++) await client.suppliers.create({ name: `Supplier ${i}` });
  await h.adminClient.updateWorkspace({ params: { id: ws.id }, body: { assessment_quota: 9 } });
  return ws;
}

describe('the hash chain (P97)', () => {
  test('concurrent writers of one workspace (API and admin) leave one chain, in feed order, that both verifiers accept', async () => {
    const ws = await h.workspace();
    const client = clientOf(ws);
    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => client.suppliers.create({ name: `Concurrent ${i}` })),
      ...Array.from({ length: 5 }, (_, i) =>
        h.adminClient.createAlert({
          params: { id: ws.id },
          body: { scope: 'org', severity: 'low', title: `Alert ${i}`, body: 'Concurrent writer' },
        }),
      ),
      ...Array.from({ length: 3 }, (_, i) =>
        h.adminClient.updateWorkspace({ params: { id: ws.id }, body: { assessment_quota: 10 + i } }),
      ),
      ...Array.from({ length: 3 }, () => h.key(ws.id, ws.userId, ['audit:read'])),
    ]);
    const rows = await stored(ws);
    // workspace.created, user.created, api_key.created, then the 41 concurrent writes.
    assert.equal(rows.length, 3 + 41);

    const sdk = await verifyFeed(ws);
    assert.deepEqual(sdk, {
      valid: true,
      entriesChecked: rows.length,
      headHash: rows.at(-1)?.hash,
      firstBroken: null,
    });
    assert.deepEqual(await verifyInDatabase(ws), {
      workspace_id: ws.id,
      valid: true,
      entries_checked: rows.length,
      entries_total: rows.length,
      head_hash: rows.at(-1)?.hash,
      first_broken: null,
      next_cursor: null,
    });
    // The workspace's head (P99) names the last entry appended.
    const [head] = await h.db.query<{ hash: string; previous_hash: string | null }>(
      'select hash, previous_hash from audit_heads where workspace_id = $1',
      [ws.id],
    );
    assert.deepEqual(head, { hash: rows.at(-1)?.hash, previous_hash: rows.at(-2)?.hash });
    // Each entry names its predecessor in feed order; the first names none; instants strictly increase.
    const feed = await clientOf(ws).auditLogs.list({ limit: 100 }).toArray();
    assert.equal(feed[0]?.previous_hash, null);
    feed.forEach((entry, i) => {
      if (i === 0) return;
      assert.equal(entry.previous_hash, feed[i - 1]?.hash);
      assert.ok(entry.occurred_at > (feed[i - 1]?.occurred_at as string), entry.occurred_at);
    });
  });

  test('what the database hashes is what a client recomputes from the served JSON: unicode, nulls, nested objects, key order, numbers, escapes', async () => {
    const ws = await h.workspace();
    // jsonb keeps object keys shorter-first; JavaScript's sort() orders by UTF-16 units: the canonical text
    // orders by code point, unlike either ("aa" and "a~" before "b"; "\u{FFFD}" before "😀").
    const awkward = {
      b: 1,
      aa: { zz: null, é: 'accent', '😀': 'emoji', '\u{FFFD}': 'replacement', a: [3, { y: true, x: false }] },
      'a~': [],
      empty: {},
      text: 'quote " backslash \\ newline \n tab \t control \u0001 line separator \u2028 日本語 😀',
      numbers: [0, -0, 1.5, -2.25, 1e21, 1e-7, 123456789012, 2 ** 53],
      nothing: null,
    };
    await recordAuditEntry(ws, { requestId: 'req_ünïcødé', metadata: awkward });
    const feed = await clientOf(ws).auditLogs.list().toArray();
    const entry = feed.at(-1);
    assert.ok(entry);
    assert.deepEqual(entry.metadata, {
      ...awkward,
      numbers: [0, 0, 1.5, -2.25, 1e21, 1e-7, 123456789012, 2 ** 53],
    });
    const canonical = auditEntryCanonicalText(entry);
    assert.ok(
      canonical.includes(
        '"metadata":{"aa":{"a":[3,{"x":false,"y":true}],"zz":null,"é":"accent","\u{FFFD}":"replacement","😀":"emoji"},' +
          '"a~":[],"b":1,"empty":{},"nothing":null,' +
          '"numbers":[0,0,1.5,-2.25,1000000000000000000000,0.0000001,123456789012,9007199254740992],' +
          '"text":"quote \\" backslash \\\\ newline \\n tab \\t control \\u0001 line separator \u2028 日本語 😀"}',
      ),
      canonical,
    );
    assert.equal(auditEntryHash(entry), entry.hash);
    assert.equal((await verifyFeed(ws)).valid, true);
    assert.equal((await verifyInDatabase(ws)).valid, true);
  });

  test('the worked example of docs/operations.md "Audit verification": the database and the SDK agree', async () => {
    const example = {
      id: '5b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      occurred_at: '2026-03-02T09:30:00.123456Z',
      action: 'supplier.created',
      actor_type: 'api_key' as const,
      actor_id: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
      target_type: 'supplier',
      target_id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
      request_id: 'req_7f3a',
      metadata: { source: 'api', name_length: 9 },
      created_at: '2026-03-02T09:30:00.120000Z',
      previous_hash: null,
    };
    const [row] = await h.db.query<{ hash: string }>(
      `select audit_entry_hash($1, $2, $3, $4, $5, $6, $7, $8, audit_canonical_json($9::jsonb), $10, $11) as hash`,
      [
        example.id,
        example.occurred_at,
        example.action,
        example.actor_type,
        example.actor_id,
        example.target_type,
        example.target_id,
        example.request_id,
        JSON.stringify(example.metadata),
        example.created_at,
        example.previous_hash,
      ],
    );
    assert.equal(
      auditEntryCanonicalText(example),
      '{"action":"supplier.created","actor_id":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","actor_type":"api_key",' +
        '"created_at":"2026-03-02T09:30:00.120000Z","id":"5b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",' +
        '"metadata":{"name_length":9,"source":"api"},"occurred_at":"2026-03-02T09:30:00.123456Z",' +
        '"previous_hash":null,"request_id":"req_7f3a","target_id":"1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f",' +
        '"target_type":"supplier"}',
    );
    assert.equal(auditEntryHash(example), row?.hash);
    assert.equal(row?.hash, EXAMPLE_HASH);
  });
});

// docs/operations.md "Audit verification" quotes this value.
const EXAMPLE_HASH = '9702f9b4667dcb391435a2974c1eb1162dcc26918e6875fe6f832ce94459798a';

describe('tampering is detected at the entry it touched', () => {
  test('an entry whose metadata is edited in the database: hash_mismatch at that entry', async () => {
    const ws = await workspaceWithTrail();
    const rows = await stored(ws);
    const target = rows[4];
    assert.ok(target);
    await h.db.query(
      `update audit_logs set metadata = metadata || '{"tampered": true}' where workspace_id = $1 and id = $2`,
      [ws.id, target.id],
    );
    const sdk = await verifyFeed(ws);
    assert.equal(sdk.valid, false);
    assert.equal(sdk.entriesChecked, 5);
    assert.equal(sdk.headHash, null);
    assert.deepEqual(
      { ...sdk.firstBroken, expected: undefined },
      {
        id: target.id,
        position: 5,
        problem: 'hash_mismatch',
        expected: undefined,
        stored: target.hash,
      },
    );
    assert.notEqual(sdk.firstBroken?.expected, target.hash);
    const db = await verifyInDatabase(ws);
    assert.equal(db.valid, false);
    assert.equal(db.entries_checked, 5);
    assert.equal(db.head_hash, null);
    assert.deepEqual(
      { ...db.first_broken, occurred_at: undefined },
      {
        id: target.id,
        position: 5,
        problem: 'hash_mismatch',
        expected: sdk.firstBroken?.expected,
        stored: target.hash,
        occurred_at: undefined,
      },
    );
  });

  test('a deleted entry: previous_hash_mismatch at the entry after it', async () => {
    const ws = await workspaceWithTrail();
    const rows = await stored(ws);
    const [before, deleted, next] = [rows[2], rows[3], rows[4]];
    assert.ok(before && deleted && next);
    await h.db.query('delete from audit_logs where workspace_id = $1 and id = $2', [ws.id, deleted.id]);
    const expected = {
      id: next.id,
      position: 4,
      problem: 'previous_hash_mismatch',
      expected: before.hash,
      stored: deleted.hash,
    };
    const sdk = await verifyFeed(ws);
    assert.deepEqual(sdk, { valid: false, entriesChecked: 4, headHash: null, firstBroken: expected });
    const db = await verifyInDatabase(ws);
    assert.deepEqual({ ...db.first_broken, occurred_at: undefined }, { ...expected, occurred_at: undefined });
    assert.equal(db.entries_checked, 4);
  });

  test("the workspace's first entry deleted: the new first entry names a predecessor", async () => {
    const ws = await workspaceWithTrail(1);
    const [first, second] = await stored(ws);
    assert.ok(first && second);
    await h.db.query('delete from audit_logs where workspace_id = $1 and id = $2', [ws.id, first.id]);
    const expected = {
      id: second.id,
      position: 1,
      problem: 'previous_hash_mismatch',
      expected: null,
      stored: first.hash,
    };
    assert.deepEqual((await verifyFeed(ws)).firstBroken, expected);
    const db = await verifyInDatabase(ws);
    assert.deepEqual({ ...db.first_broken, occurred_at: undefined }, { ...expected, occurred_at: undefined });
  });

  test("the last entries deleted: head_mismatch past the end, against the workspace's head (P99)", async () => {
    const ws = await workspaceWithTrail(2);
    const rows = await stored(ws);
    const [kept, last] = [rows.at(-3), rows.at(-1)];
    assert.ok(kept && last);
    const [head] = await h.db.query<{ occurred_at: string }>(
      'select iso(occurred_at) as occurred_at from audit_heads where workspace_id = $1',
      [ws.id],
    );
    await h.db.query(`delete from audit_logs where workspace_id = $1 and id = any($2::uuid[])`, [
      ws.id,
      rows.slice(-2).map((row) => row.id),
    ]);
    assert.deepEqual(await verifyInDatabase(ws), {
      workspace_id: ws.id,
      valid: false,
      entries_checked: rows.length - 2,
      entries_total: rows.length - 2,
      head_hash: null,
      first_broken: {
        id: null,
        position: rows.length - 1,
        occurred_at: head?.occurred_at,
        problem: 'head_mismatch',
        expected: last.hash,
        stored: kept.hash,
      },
      next_cursor: null,
    });
    // The public feed has no head: what is left still links (a SIEM anchors on the head it stored).
    assert.equal((await verifyFeed(ws)).valid, true);
    // Every entry deleted, or the head removed, is detected the same way.
    await h.db.query('delete from audit_logs where workspace_id = $1', [ws.id]);
    assert.deepEqual((await verifyInDatabase(ws)).first_broken, {
      id: null,
      position: 1,
      occurred_at: head?.occurred_at,
      problem: 'head_mismatch',
      expected: last.hash,
      stored: null,
    });
    const headless = await h.workspace();
    const headlessRows = await stored(headless);
    await h.db.query('delete from audit_heads where workspace_id = $1', [headless.id]);
    assert.deepEqual((await verifyInDatabase(headless)).first_broken, {
      id: null,
      position: headlessRows.length + 1,
      occurred_at: null,
      problem: 'head_mismatch',
      expected: null,
      stored: headlessRows.at(-1)?.hash,
    });
  });

  test('a range verified from a stored head: previousHash anchors its first entry', async () => {
    const ws = await workspaceWithTrail(2);
    const first = await verifyFeed(ws);
    assert.ok(first.valid && first.headHash);
    const page = await clientOf(ws).auditLogs.listPage({ limit: 100 });
    const cursor = page.meta.next_cursor as string;
    await clientOf(ws).suppliers.create({ name: 'Later' });
    const later = clientOf(ws).auditLogs.list({ cursor });
    const continued = await verifyAuditChain(later, { previousHash: first.headHash });
    assert.equal(continued.valid, true);
    assert.equal(continued.entriesChecked, 1);
    // Anchored on another hash, the same range's first link is reported.
    const wrong = await verifyAuditChain(clientOf(ws).auditLogs.list({ cursor }), {
      previousHash: '0'.repeat(64),
    });
    assert.equal(wrong.firstBroken?.problem, 'previous_hash_mismatch');
  });
});

describe('entries the service did not append (P98)', () => {
  test('entries written before the chain existed are chained by migration 0012, in feed order', async () => {
    const ws = await h.workspace();
    for (const at of ['2021-05-02T00:00:00Z', '2021-05-01T00:00:00Z'])
      await h.db.query(
        `insert into audit_logs (workspace_id, id, occurred_at, action, actor_type, metadata)
         values ($1, $2, $3, 'supplier.created', 'system', '{"earlier": "version"}')`,
        [ws.id, randomUUID(), at],
      );
    // Migration 0014 then gives each workspace its head (P99).
    await h.db.query('drop table audit_heads');
    await h.db.query('drop function audit_head_create() cascade');
    // 0020 adds the event log's stamp to the heads (P173); 0025 widens the event log view that 0020 makes.
    await h.db.query('drop view event_log');
    await h.db.query('delete from schema_migrations where version in (12, 14, 20, 25)');
    assert.deepEqual(await migrate(h.db), [
      '0012_audit_chain.sql',
      '0014_audit_heads.sql',
      '0020_event_log.sql',
      '0025_kept_text.sql',
    ]);
    assert.equal((await verifyFeed(ws)).valid, true);
    const db = await verifyInDatabase(ws);
    assert.equal(db.valid, true);
    assert.equal(db.entries_checked, 5);
    // Appending continues the migrated chain.
    await recordAuditEntry(ws);
    assert.equal((await verifyInDatabase(ws)).entries_checked, 6);
    assert.equal((await verifyFeed(ws)).valid, true);
  });
});

const DAY = 86_400_000;
/** An instant `days` from now, as a client would send it (milliseconds). */
const fromNow = (days: number) => new Date(Date.now() + days * DAY).toISOString();
/** The same instant as the API serves it (microseconds). */
const served = (instant: string) =>
  instant.replace(/(\.\d{3})?Z$/, (_, ms: string | undefined) => `${ms ?? '.000'}000Z`);

/** An entry of another system, as an Import document carries it; without `occurredAt`, none is sent. */
const imported = (occurredAt?: string, fields: Record<string, unknown> = {}) => ({
  id: randomUUID(),
  ...(occurredAt ? { occurred_at: occurredAt } : {}),
  action: 'supplier.created',
  actor_type: 'system',
  target_type: 'supplier',
  target_id: randomUUID(),
  metadata: { imported: true },
  // Sent hashes are ignored: the chain is the service's.
  hash: 'f'.repeat(64),
  ...fields,
});

/** The workspace's last entry in feed order, as stored. */
const lastEntry = async (ws: { id: string }) =>
  (
    await h.db.query<{ id: string; occurred_at: string; hash: string }>(
      `select id, iso(occurred_at) as occurred_at, hash from audit_logs where workspace_id = $1
        order by occurred_at desc, id desc limit 1`,
      [ws.id],
    )
  )[0];

/** The metadata of the workspace's last workspace.data_imported entry. */
const importRecord = async (ws: { id: string }) =>
  (
    await h.db.query<{ metadata: Record<string, unknown>; previous_hash: string | null }>(
      `select metadata, previous_hash from audit_logs where workspace_id = $1 and action = 'workspace.data_imported'
        order by occurred_at desc, id desc limit 1`,
      [ws.id],
    )
  )[0];

describe('an import appends to the chain and never rewrites it (P102)', () => {
  test("an entry dated before the trail's head (2026-01-01, a real user) is a 422 naming it; nothing is written and no stored hash changes", async () => {
    const ws = await workspaceWithTrail(2);
    const held = await stored(ws); // what a SIEM that stores hashes holds
    const res = await h.admin('POST', `/admin/workspaces/${ws.id}/import`, {
      suppliers: [{ name: 'Written with the entries or not at all' }],
      audit_logs: [
        imported(fromNow(1)),
        imported('2026-01-01T00:00:00Z', { actor_type: 'user', actor_id: ws.userId }),
        imported(),
        imported('2020-06-01T00:00:00Z'),
      ],
    });
    assertError(res, 422, 'validation_failed');
    const fields = res.json.error.details.fields as Record<string, string>;
    assert.deepEqual(Object.keys(fields).sort(), ['audit_logs[1].occurred_at', 'audit_logs[3].occurred_at']);
    const last = await lastEntry(ws);
    assert.match(
      fields['audit_logs[1].occurred_at'] as string,
      new RegExp(`after the last entry .*${last?.occurred_at}`),
    );
    assert.deepEqual(await stored(ws), held);
    const [suppliers] = await h.db.query<{ n: number }>(
      'select count(*)::int as n from suppliers where workspace_id = $1',
      [ws.id],
    );
    assert.equal(suppliers?.n, 2);
    assert.equal((await verifyInDatabase(ws)).valid, true);
  });

  test('entries after the head are appended after it: stored hashes stay, a SIEM continues from the head it stored, workspace.data_imported records both heads and the range', async () => {
    const ws = await workspaceWithTrail(2);
    const held = await stored(ws);
    const siem = await verifyFeed(ws);
    const cursor = (await clientOf(ws).auditLogs.listPage({ limit: 100 })).meta.next_cursor as string;
    const [sooner, later] = [fromNow(1), fromNow(2)];
    const document = [imported(later), imported(sooner), imported()];
    await h.import(ws.id, { audit_logs: document });

    const now = await stored(ws);
    assert.deepEqual(now.slice(0, held.length), held, 'an entry chained before the import was rehashed');
    const appended = now.slice(held.length);
    // In feed order: the two dated ones, then the one without an instant (stamped as it is appended), then
    // the import's own entry.
    assert.deepEqual(
      appended.slice(0, 3).map((row) => row.id),
      [document[1]?.id, document[0]?.id, document[2]?.id],
    );
    const continued = await verifyAuditChain(clientOf(ws).auditLogs.list({ cursor }), {
      previousHash: siem.headHash,
    });
    assert.deepEqual(continued, {
      valid: true,
      entriesChecked: 4,
      headHash: now.at(-1)?.hash,
      firstBroken: null,
    });
    assert.equal((await verifyInDatabase(ws)).valid, true);

    const stamped = await h.db.query<{ occurred_at: string }>(
      'select iso(occurred_at) as occurred_at from audit_logs where workspace_id = $1 and id = $2',
      [ws.id, document[2]?.id],
    );
    assert.ok((stamped[0]?.occurred_at as string) > served(later));
    const record = await importRecord(ws);
    assert.deepEqual(record?.metadata, {
      created: { audit_logs: 3 },
      audit_chain: {
        head_before: siem.headHash,
        head_after: appended[2]?.hash,
        imported_from: served(sooner),
        imported_to: stamped[0]?.occurred_at,
      },
    });
    assert.equal(record?.previous_hash, appended[2]?.hash);
  });

  test("at the head's instant: appended only when it comes after the last entry in feed order (a greater id)", async () => {
    const ws = await workspaceWithTrail(1);
    const last = await lastEntry(ws);
    assert.ok(last);
    const held = await stored(ws);
    const [lowest, highest] = [
      '00000000-0000-4000-8000-000000000000',
      'ffffffff-ffff-4fff-bfff-ffffffffffff',
    ];
    const before = await h.admin('POST', `/admin/workspaces/${ws.id}/import`, {
      audit_logs: [imported(last.occurred_at, { id: lowest })],
    });
    assertError(before, 422, 'validation_failed');
    assert.deepEqual(Object.keys(before.json.error.details.fields), ['audit_logs[0].occurred_at']);
    assert.deepEqual(await stored(ws), held);

    await h.import(ws.id, { audit_logs: [imported(last.occurred_at, { id: highest })] });
    const now = await stored(ws);
    assert.deepEqual(now.slice(0, held.length), held);
    assert.equal(now[held.length]?.id, highest);
    assert.equal(now[held.length]?.previous_hash, last.hash);
    assert.equal((await verifyInDatabase(ws)).valid, true);
  });

  test('into an empty trail any instants are taken (moving from another system), and chained from the start', async () => {
    const id = randomUUID();
    await h.db.query("insert into workspaces (id, name, plan) values ($1, 'Moved here', 'enterprise')", [id]);
    const history = [imported('2020-01-02T00:00:00Z'), imported('2020-01-01T00:00:00.5Z')];
    await h.import(id, { audit_logs: history });
    const rows = await stored({ id } as TestWorkspace);
    assert.deepEqual(
      rows.map((row) => row.id),
      [history[1]?.id, history[0]?.id, rows[2]?.id],
    );
    assert.equal(rows[0]?.previous_hash, null);
    const report = await h.adminClient.verifyAuditChain({ params: { id } });
    assert.equal(report.valid, true);
    assert.equal(report.entries_checked, 3);
    assert.deepEqual((await importRecord({ id }))?.metadata.audit_chain, {
      head_before: null,
      head_after: rows[1]?.hash,
      imported_from: '2020-01-01T00:00:00.500000Z',
      imported_to: '2020-01-02T00:00:00.000000Z',
    });
  });

  test('an import without audit entries records the head it found, unchanged', async () => {
    const ws = await workspaceWithTrail(1);
    const last = await lastEntry(ws);
    await h.import(ws.id, { suppliers: [{ name: 'No history' }] });
    assert.deepEqual((await importRecord(ws))?.metadata, {
      created: { suppliers: 1 },
      audit_chain: {
        head_before: last?.hash,
        head_after: last?.hash,
        imported_from: null,
        imported_to: null,
      },
    });
  });
});

/** Every answer of GET /admin/workspaces/{id}/audit-chain following `next_cursor`, `limit` entries each. */
async function verifyInChunks(workspaceId: string, limit: number): Promise<AuditChainReport[]> {
  const reports: AuditChainReport[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const res = await h.admin('GET', `/admin/workspaces/${workspaceId}/audit-chain?limit=${limit}${query}`);
    assert.equal(res.status, 200, res.body);
    reports.push(res.json);
    cursor = res.json.next_cursor;
  } while (cursor);
  return reports;
}

describe('verification in bounded chunks (P103)', () => {
  test('a trail checked 4 entries a request: each part continues the last, the final one is the whole check', async () => {
    const ws = await workspaceWithTrail(13); // 3 set-up entries, 13 suppliers, 1 update: 17 entries
    const rows = await stored(ws);
    const whole = await verifyInDatabase(ws);
    assert.equal(whole.entries_checked, 17);
    const parts = await verifyInChunks(ws.id, 4);
    assert.equal(parts.length, 5);
    parts.slice(0, -1).forEach((part, i) => {
      assert.deepEqual(
        { ...part, next_cursor: typeof part.next_cursor },
        {
          workspace_id: ws.id,
          valid: true,
          entries_checked: 4 * (i + 1),
          entries_total: 17,
          head_hash: rows[4 * (i + 1) - 1]?.hash,
          first_broken: null,
          next_cursor: 'string',
        },
      );
    });
    assert.deepEqual(parts.at(-1), whole);
    // A chunk that ends on the last entry finds no more and is the verdict.
    const even = await verifyInChunks(ws.id, 17);
    assert.deepEqual(even, [whole]);
  });

  test('tampering in a later chunk is found in it, as the whole check finds it; a deleted tail by the last chunk', async () => {
    const ws = await workspaceWithTrail(13);
    const rows = await stored(ws);
    const edited = rows[10];
    assert.ok(edited);
    await h.db.query(`update audit_logs set request_id = 'forged' where workspace_id = $1 and id = $2`, [
      ws.id,
      edited.id,
    ]);
    const whole = await verifyInDatabase(ws);
    assert.equal(whole.first_broken?.position, 11);
    const parts = await verifyInChunks(ws.id, 4);
    assert.equal(parts.length, 3);
    assert.deepEqual(
      parts.map((part) => part.valid),
      [true, true, false],
    );
    assert.deepEqual(parts.at(-1), whole);

    const tail = await workspaceWithTrail(6); // 10 entries
    const tailRows = await stored(tail);
    await h.db.query('delete from audit_logs where workspace_id = $1 and id = $2', [
      tail.id,
      tailRows.at(-1)?.id,
    ]);
    const cut = await verifyInChunks(tail.id, 3);
    assert.deepEqual(cut.at(-1), await verifyInDatabase(tail));
    assert.equal(cut.at(-1)?.first_broken?.problem, 'head_mismatch');
    assert.equal(cut.at(-1)?.first_broken?.position, 10);
  });

  test('limit and cursor: bounded, bound to the workspace, tamper-evident; a 400 otherwise', async () => {
    const ws = await workspaceWithTrail(3);
    const other = await workspaceWithTrail(3);
    const [first] = await verifyInChunks(ws.id, 2).then((parts) => parts.slice(0, 1));
    const cursor = first?.next_cursor as string;
    assert.ok(cursor);
    const get = (id: string, query: string) => h.admin('GET', `/admin/workspaces/${id}/audit-chain?${query}`);
    for (const [id, query, parameter] of [
      [other.id, `limit=2&cursor=${encodeURIComponent(cursor)}`, 'cursor'],
      [ws.id, `limit=2&cursor=${encodeURIComponent(`${cursor}x`)}`, 'cursor'],
      [ws.id, 'cursor=nope', 'cursor'],
      [ws.id, 'limit=0', 'limit'],
      [ws.id, 'limit=100001', 'limit'],
      [ws.id, 'limit=1e3', 'limit'],
      [ws.id, 'since=2020-01-01T00:00:00Z', 'since'],
    ] as const) {
      const res = await get(id, query);
      assertError(res, 400, 'invalid_request');
      assert.equal(res.json.error.details.parameter, parameter, query);
    }
    // A cursor without a limit continues to the end.
    const rest = await get(ws.id, `cursor=${encodeURIComponent(cursor)}`);
    assert.equal(rest.status, 200, rest.body);
    assert.deepEqual(rest.json, await verifyInDatabase(ws));
  });

  test('without a limit, a trail longer than one statement takes is checked whole, chunk by chunk', async () => {
    const ws = await workspaceWithTrail(0);
    // More entries than one statement checks (AUDIT_CHAIN_CHUNK), appended by one import.
    const many = Array.from({ length: AUDIT_CHAIN_CHUNK + 7 }, () => imported());
    await h.import(ws.id, { audit_logs: many });
    const rows = await stored(ws);
    const intact = await verifyInDatabase(ws);
    assert.deepEqual(
      { valid: intact.valid, checked: intact.entries_checked, head: intact.head_hash },
      { valid: true, checked: rows.length, head: rows.at(-1)?.hash },
    );
    const late = rows[AUDIT_CHAIN_CHUNK + 3];
    assert.ok(late);
    await h.db.query(`update audit_logs set metadata = '{}' where workspace_id = $1 and id = $2`, [
      ws.id,
      late.id,
    ]);
    const broken = await verifyInDatabase(ws);
    assert.equal(broken.valid, false);
    assert.deepEqual(
      {
        id: broken.first_broken?.id,
        position: broken.first_broken?.position,
        problem: broken.first_broken?.problem,
      },
      { id: late.id, position: AUDIT_CHAIN_CHUNK + 4, problem: 'hash_mismatch' },
    );
  });
});

/** One entry appended by the service's own writer. */
const recordAuditEntry = (ws: TestWorkspace, entry: Partial<AuditEntry> = {}) =>
  h.db.transaction((tx) =>
    recordAudit(tx, {
      workspaceId: ws.id,
      action: 'alert.created',
      actorType: 'system',
      actorId: null,
      targetType: 'alert',
      targetId: randomUUID(),
      requestId: null,
      ...entry,
    }),
  );
