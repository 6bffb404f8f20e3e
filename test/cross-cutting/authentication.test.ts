// risk-data-api.md "Authentication" 1-8 and decisions 27, 39: key format and storage, revocation and plan
// changes effective on the very next request on every instance, pii:read additive only.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SCOPES } from '../../src/schema/fields.js';
import { sha256 } from '../../src/security/secrets.js';
import { assertError, Harness, useHarness } from '../support/harness.js';
import { rawRequest } from '../support/raw-http.js';

const { h, ws } = useHarness({ workspaces: ['ws'] }, async () => {
  await h.import(ws.id, {
    suppliers: [
      {
        name: 'Personal Data Ltd',
        domain: 'pii.example',
        email: 'risk@pii.example',
        contacts: [{ name: 'Ann', email: 'ann@pii.example' }],
        onboarding_data: { step: 3 },
      },
    ],
  });
});

describe('keys', () => {
  test('a key has a recognisable prefix and 256 bits of randomness; only its SHA-256 is stored', async () => {
    assert.match(ws.key, /^tprm_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
    const [row] = await h.db.query<{ secret_hash: Uint8Array; prefix: string }>(
      'select secret_hash, prefix from api_keys where id = $1',
      [ws.keyId],
    );
    assert.deepEqual(Buffer.from(row?.secret_hash ?? []), sha256(ws.key));
    assert.ok(ws.key.startsWith(row?.prefix ?? 'x'));
    const dump = JSON.stringify(await h.db.query('select * from api_keys'));
    assert.ok(!dump.includes(ws.key.slice(14)), 'the secret is not stored in clear');
  });

  test('the secret is shown once: listing keys never returns it', async () => {
    const list = await h.admin('GET', `/admin/workspaces/${ws.id}/api-keys`);
    assert.equal(list.status, 200);
    assert.ok(!list.body.includes(ws.key));
    assert.ok(list.json.data.every((key: object) => !('secret' in key)));
    assert.ok('last_used_at' in list.json.data[0] && 'revoked_at' in list.json.data[0]);
  });

  test('an Authorization header sent twice names no key: 401, in-process and over a real connection', async () => {
    // Node keeps the first of repeated Authorization headers and a proxy may keep another: which key would it
    // be? Found by test/cross-cutting/fuzz.test.ts (a request with A's key then B's key was served as A).
    const other = await h.workspace();
    const both = [`Bearer ${ws.key}`, `Bearer ${other.key}`];
    for (const authorization of [both, [`Bearer ${ws.key}`, `Bearer ${ws.key}`]]) {
      // An array is sent as repeated header lines.
      const headers: Record<string, string[]> = { authorization };
      const res = await h.publicApp.inject({ method: 'GET', url: '/v1/suppliers', headers });
      assert.equal(res.statusCode, 401, res.body);
      assert.equal(JSON.parse(res.body).error.code, 'invalid_api_key');
    }
    const raw = await rawRequest(
      h.publicApp,
      `GET /v1/suppliers HTTP/1.1\r\nHost: x\r\nAuthorization: ${both[0]}\r\nAuthorization: ${both[1]}\r\nConnection: close\r\n\r\n`,
    );
    assert.equal(raw.status, 401, raw.body);
    assert.equal(JSON.parse(raw.body).error.code, 'invalid_api_key');
  });

  test('cookies are never read: a key in a cookie is no key', async () => {
    const res = await h.api('GET', '/suppliers', {
      headers: { cookie: `api_key=${ws.key}; token=${ws.key}` },
    });
    assertError(res, 401, 'invalid_api_key');
  });
});

describe('revocation, expiry and plan changes take effect on the next request, on every instance', () => {
  test('revoked: refused by this instance and by another one whose cache still holds the key', async () => {
    const key = await h.key(ws.id, ws.userId, SCOPES);
    const other = await h.secondInstance();
    const viaOther = (url: string) =>
      other.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key.secret}` } });
    assert.equal((await viaOther('/v1/suppliers')).statusCode, 200); // warms the other instance's cache
    assert.equal((await h.api('GET', '/suppliers', { key: key.secret })).status, 200);
    await h.adminClient.revokeApiKey({ params: { id: key.id } });
    assertError(await h.api('GET', '/suppliers', { key: key.secret }), 401, 'invalid_api_key');
    const list = await viaOther('/v1/suppliers');
    assert.equal(list.statusCode, 401, list.body);
    // Decision 39: found dead only after the request was counted, still no rate-limit headers.
    assert.equal(list.headers['x-ratelimit-limit'], undefined);
    const one = await viaOther('/v1/suppliers?limit=1');
    assert.equal(one.statusCode, 401);
  });

  test('downgraded: the next request gets 403 plan_upgrade_required on every instance, an upgrade restores access', async () => {
    const w = await h.workspace();
    await h.import(w.id, { suppliers: [{ name: 'Only' }] });
    const other = await h.secondInstance();
    const viaOther = () =>
      other.inject({ method: 'GET', url: '/v1/suppliers', headers: { authorization: `Bearer ${w.key}` } });
    assert.equal((await viaOther()).statusCode, 200);
    await h.adminClient.updateWorkspace({ params: { id: w.id }, body: { plan: 'business' } });
    const refused = await viaOther();
    assert.equal(refused.statusCode, 403);
    assert.equal(JSON.parse(refused.body).error.code, 'plan_upgrade_required');
    assertError(await h.api('GET', '/suppliers', { key: w.key }), 403, 'plan_upgrade_required');
    await h.adminClient.updateWorkspace({ params: { id: w.id }, body: { plan: 'enterprise' } });
    assert.equal((await viaOther()).statusCode, 200);
  });

  test('writes too: a key revoked since another instance cached it writes nothing there, stores no idempotent response, and gets its 401 even with a malformed body', async () => {
    const key = await h.key(ws.id, ws.userId, SCOPES);
    const other = await h.secondInstance();
    const write = (payload: string, idempotencyKey = crypto.randomUUID()) =>
      other.inject({
        method: 'POST',
        url: '/v1/suppliers',
        headers: {
          authorization: `Bearer ${key.secret}`,
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
        },
        payload,
      });
    assert.equal((await write(JSON.stringify({ name: 'Before revocation' }))).statusCode, 201); // cached now
    await h.adminClient.revokeApiKey({ params: { id: key.id } });
    const reused = crypto.randomUUID();
    const refused = await write(JSON.stringify({ name: 'After revocation' }), reused);
    assert.equal(refused.statusCode, 401, refused.body);
    assert.equal(JSON.parse(refused.body).error.code, 'invalid_api_key');
    assert.equal((await write('{"name": ')).statusCode, 401, 'malformed body');
    assert.equal((await write(JSON.stringify({ name: '' }))).statusCode, 401, 'invalid body');
    const rows = await h.db.query("select 1 from suppliers where name = 'After revocation'");
    assert.equal(rows.length, 0);
    // The refused request stored nothing under its Idempotency-Key: a valid key may use it.
    const created = await h.api('POST', '/suppliers', {
      key: ws.key,
      body: { name: 'After revocation' },
      headers: { 'idempotency-key': reused },
    });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.headers['idempotent-replayed'], undefined);
  });

  test('writes too: a downgrade refuses the next write on an instance that cached the key', async () => {
    const w = await h.workspace();
    const other = await h.secondInstance();
    const write = (name: string) =>
      other.inject({
        method: 'PUT',
        url: '/v1/assets',
        headers: { authorization: `Bearer ${w.key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({
          source: 'manual',
          assets: [{ external_id: name, name, asset_type: 'data' }],
        }),
      });
    assert.equal((await write('before')).statusCode, 200);
    await h.adminClient.updateWorkspace({ params: { id: w.id }, body: { plan: 'business' } });
    const refused = await write('after');
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(JSON.parse(refused.body).error.code, 'plan_upgrade_required');
    const rows = await h.db.query("select 1 from assets where workspace_id = $1 and external_id = 'after'", [
      w.id,
    ]);
    assert.equal(rows.length, 0);
  });

  test('expired: a key past its expiry is refused although it was valid a moment ago', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const key = await h.key(ws.id, ws.userId, SCOPES, expiresAt);
    assert.equal((await h.api('GET', '/suppliers', { key: key.secret })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    assertError(await h.api('GET', '/suppliers', { key: key.secret }), 401, 'invalid_api_key');
  });
});

describe('pii:read is additive', () => {
  test('without it personal fields are absent (never null); with it they are present', async () => {
    const plain = await h.key(ws.id, ws.userId, ['suppliers:read']);
    const withPii = await h.key(ws.id, ws.userId, ['suppliers:read', 'pii:read']);
    const without = await h.api('GET', '/suppliers', { key: plain.secret });
    const supplier = without.json.data.find((s: { domain: string }) => s.domain === 'pii.example');
    for (const field of ['email', 'contacts', 'onboarding_data']) assert.ok(!(field in supplier), field);
    const one = await h.api('GET', `/suppliers/${supplier.id}`, { key: plain.secret });
    for (const field of ['email', 'contacts', 'onboarding_data']) assert.ok(!(field in one.json), field);
    const full = await h.api('GET', `/suppliers/${supplier.id}`, { key: withPii.secret });
    assert.equal(full.json.email, 'risk@pii.example');
    assert.deepEqual(full.json.contacts, [{ name: 'Ann', email: 'ann@pii.example' }]);
    assert.deepEqual(full.json.onboarding_data, { step: 3 });
  });

  test('a key with only pii:read reaches no endpoint', async () => {
    const key = await h.key(ws.id, ws.userId, ['pii:read']);
    assertError(await h.api('GET', '/suppliers', { key: key.secret }), 403, 'insufficient_scope');
  });
});

describe('the workspace is derived from the key', () => {
  test('no endpoint accepts an organization id: passing one is an unknown parameter', async () => {
    const res = await h.api('GET', `/suppliers?organization_id=${ws.id}`, { key: ws.key });
    assertError(res, 400, 'invalid_request');
  });

  test('rate limits are per workspace: two keys of one workspace share one budget', async () => {
    const tight = await Harness.start({
      buckets: { workspace: [{ name: 'second', limit: 3, windowMs: 60_000 }] },
    });
    try {
      const w = await tight.workspace();
      const second = await tight.key(w.id, w.userId, SCOPES);
      const statuses = [];
      for (const key of [w.key, second.secret, w.key, second.secret]) {
        statuses.push((await tight.api('GET', '/suppliers', { key })).status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      const otherWorkspace = await tight.workspace();
      assert.equal((await tight.api('GET', '/suppliers', { key: otherWorkspace.key })).status, 200);
    } finally {
      await tight.close();
    }
  });
});
