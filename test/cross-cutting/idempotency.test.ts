// risk-data-api.md "Shared parameters" (Idempotency-Key), "Errors" (409), "Limits"; decisions 7-10, 39.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { purgeIdempotencyKeys } from '../../src/http/idempotency.js';
import { assertError, ENGINE, useHarness } from '../support/harness.js';

const { h, ws } = useHarness({ workspaces: ['ws'] });

const post = (body: unknown, key: string, w = ws) =>
  h.api('POST', '/suppliers', { key: w.key, body, headers: { 'idempotency-key': key } });
const count = async (workspaceId = ws.id) =>
  Number(
    (
      await h.db.query<{ n: number }>('select count(*)::int as n from suppliers where workspace_id = $1', [
        workspaceId,
      ])
    )[0]?.n,
  );

describe('Idempotency-Key', () => {
  test('a repeat with the same key and body returns the stored response byte for byte and writes nothing', async () => {
    const first = await post({ name: 'Once', domain: 'once.example' }, 'same-1');
    const before = await count();
    const again = await post({ domain: 'once.example', name: 'Once' }, 'same-1'); // key order does not matter
    assert.equal(again.status, 201);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(first.headers['idempotent-replayed'], undefined);
    assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id']);
    assert.equal(await count(), before);
  });

  test('the stored fingerprint of a body does not change: keys sorted by UTF-16 unit, numbers as JSON writes them', async () => {
    // Pinned: a fingerprint stored before an upgrade must still match the same body sent after it. The body
    // holds what sets this rule apart from the audit chain's (an exponent, astral beside private-use keys).
    const body = {
      tags: ['z', 'a'],
      score: 1e21,
      nested: { '\uE000': 2, '\u{1F600}': 1 },
      name: 'Fingerprint',
    };
    assertError(await post(body, 'fingerprint-1'), 422, 'validation_failed');
    const [stored] = await h.db.query<{ request_hash: string }>(
      "select request_hash from idempotency_keys where workspace_id = $1 and key = 'fingerprint-1'",
      [ws.id],
    );
    // sha256 of {"name":"Fingerprint","nested":{"\u{1F600}":1,"\uE000":2},"score":1e+21,"tags":["z","a"]}
    assert.equal(stored?.request_hash, '1ZZSkQc/vZ64gZt/V2L8J35VEBFWrRpmjvcjQ1kkeko=');
  });

  test('a stored error replays with its original request_id (decision 39)', async () => {
    const first = await post({ name: '' }, 'err-1');
    assertError(first, 422, 'validation_failed');
    const again = await post({ name: '' }, 'err-1');
    assert.equal(again.status, 422);
    assert.equal(again.body, first.body);
    assert.notEqual(again.headers['x-request-id'], first.json.error.request_id);
  });

  test('the same key with a different body is a 409 conflict idempotency_key_reused', async () => {
    await post({ name: 'First body' }, 'reuse-1');
    const res = await post({ name: 'Second body' }, 'reuse-1');
    assertError(res, 409, 'conflict');
    assert.equal(res.json.error.details.reason, 'idempotency_key_reused');
  });

  test('keys are scoped to the workspace', async () => {
    const other = await h.workspace();
    assert.equal((await post({ name: 'Mine' }, 'scoped-1')).status, 201);
    assert.equal((await post({ name: 'Mine' }, 'scoped-1', other)).status, 201);
    assert.equal(await count(other.id), 1);
  });

  test('missing, empty or over 255 characters: 400; exactly 255 is fine', async () => {
    assertError(
      await h.api('POST', '/suppliers', { key: ws.key, body: { name: 'x' } }),
      400,
      'invalid_request',
    );
    assertError(await post({ name: 'x' }, ''), 400, 'invalid_request');
    assertError(await post({ name: 'x' }, 'k'.repeat(256)), 400, 'invalid_request');
    assert.equal((await post({ name: 'x' }, 'k'.repeat(255))).status, 201);
  });

  test('concurrent duplicates with one key create exactly one row', async () => {
    const w = await h.workspace();
    const results = await Promise.all(Array.from({ length: 12 }, () => post({ name: 'Race' }, 'race-1', w)));
    const statuses = results.map((res) => res.status);
    assert.ok(
      statuses.every((status) => status === 201 || status === 409),
      String(statuses),
    );
    for (const res of results.filter((r) => r.status === 409)) {
      assert.equal(res.json.error.details.reason, 'idempotency_key_in_use');
    }
    assert.ok(statuses.includes(201));
    assert.equal(await count(w.id), 1, `engine ${ENGINE}`);
  });

  // Personal fields are absent for a key without pii:read (risk-data-api.md "Resources and their fields", scope
  // rule 6), and keys are scoped to the workspace (decision 7): any key of the workspace may replay, and each is
  // shown the stored response as its own scopes allow (P76). Replaying needs only the endpoint's scope.
  const PERSONAL = ['email', 'contacts', 'onboarding_data'];
  const withoutPersonal = (body: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(body).filter(([name]) => !PERSONAL.includes(name)));

  test('a key without pii:read replaying a request made with pii:read gets no personal field', async () => {
    const w = await h.workspace();
    const writeOnly = await h.key(w.id, w.userId, ['suppliers:write']);
    const body = { name: 'Personal', email: 'owner@personal.example' };
    const first = await post(body, 'pii-1', w);
    assert.equal(first.status, 201, first.body);
    assert.equal(first.json.email, 'owner@personal.example');
    const replay = await post(body, 'pii-1', { ...w, key: writeOnly.secret });
    assert.equal(replay.status, 201, replay.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    for (const name of PERSONAL) assert.ok(!(name in replay.json), `${name} in ${replay.body}`);
    assert.deepEqual(replay.json, withoutPersonal(first.json));
    // The first key still gets its own response, byte for byte (decision 8).
    assert.equal((await post(body, 'pii-1', w)).body, first.body);
    assert.equal(await count(w.id), 1);
  });

  test('a key with pii:read replaying a request made without it gets the personal fields', async () => {
    const w = await h.workspace();
    const writeOnly = await h.key(w.id, w.userId, ['suppliers:write']);
    const body = { name: 'Personal', email: 'owner@personal.example' };
    const first = await post(body, 'pii-2', { ...w, key: writeOnly.secret });
    assert.equal(first.status, 201, first.body);
    for (const name of PERSONAL) assert.ok(!(name in first.json), `${name} in ${first.body}`);
    const replay = await post(body, 'pii-2', w);
    assert.equal(replay.status, 201, replay.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.json.email, 'owner@personal.example');
    assert.deepEqual(replay.json.contacts, []);
    assert.deepEqual(withoutPersonal(replay.json), first.json);
    assert.equal((await post(body, 'pii-2', { ...w, key: writeOnly.secret })).body, first.body);
    assert.equal(await count(w.id), 1);
  });

  test('keys are retained 24 hours: an older one executes again, and the purge removes it', async () => {
    await post({ name: 'Old' }, 'old-1');
    await h.db.query(
      "update idempotency_keys set created_at = now() - interval '25 hours' where key = 'old-1'",
    );
    const before = await count();
    assert.equal((await post({ name: 'Old' }, 'old-1')).status, 201);
    assert.equal(await count(), before + 1);
    await h.db.query(
      "update idempotency_keys set created_at = now() - interval '25 hours' where key = 'old-1'",
    );
    assert.ok((await purgeIdempotencyKeys(h.db)) >= 1);
    assert.equal((await h.db.query("select 1 from idempotency_keys where key = 'old-1'")).length, 0);
  });
});
