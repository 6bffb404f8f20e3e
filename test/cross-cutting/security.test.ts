// The shared security suite, run on EVERY public route by walking the route table (risk-data-api.md
// "Authentication" 1-7, decisions 1 and 27): no key, unknown key, revoked key, expired key, a workspace not on
// Enterprise, a key without the route's scope, a key holding only pii:read. A route added to the table is
// covered without touching this file.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ApiKeyAuth, Operation } from '../../src/contract/operation.js';
import { publicOperations } from '../../src/resources/operations.js';
import { SCOPES } from '../../src/schema/fields.js';
import { assertError, type Harness, useHarness } from '../support/harness.js';

const keys: Record<string, string> = {};

const { h, ws } = useHarness({ workspaces: ['ws'] }, async () => {
  keys.revoked = (await h.key(ws.id, ws.userId, SCOPES)).secret;
  const revokedId = (await h.admin('GET', `/admin/workspaces/${ws.id}/api-keys`)).json.data.find(
    (key: { id: string }) => key.id !== ws.keyId,
  ).id;
  await h.admin('POST', `/admin/api-keys/${revokedId}/revoke`);
  keys.expired = (await h.key(ws.id, ws.userId, SCOPES, new Date(Date.now() - 1000).toISOString())).secret;
  keys.business = (await h.workspace({ plan: 'business' })).key;
  keys.starter = (await h.workspace({ plan: 'starter' })).key;
  keys.piiOnly = (await h.key(ws.id, ws.userId, ['pii:read'])).secret;
  keys.unknown = `tprm_0123abcd_${'A'.repeat(43)}`;
});

function call(route: Operation<ApiKeyAuth>, key: string | null): ReturnType<Harness['api']> {
  const path = route.path.replace(/:\w+/g, randomUUID());
  if (route.method === 'GET') return h.api('GET', path, { key });
  return h.api(route.method, path, { key, body: {}, headers: { 'idempotency-key': randomUUID() } });
}

describe('route table', () => {
  test('every route declares a scope of the specification, never pii:read alone', () => {
    assert.ok(publicOperations.length > 0);
    for (const route of publicOperations) {
      assert.ok((SCOPES as readonly string[]).includes(route.auth.scope), `${route.method} ${route.path}`);
      assert.notEqual(route.auth.scope, 'pii:read', `${route.method} ${route.path}`);
    }
  });
  test('operation ids are unique', () => {
    const ids = publicOperations.map((route) => route.id);
    assert.equal(new Set(ids).size, ids.length);
  });
});

for (const route of publicOperations) {
  describe(`${route.method} ${route.path}`, () => {
    test('no key, unknown key, revoked key, expired key: the same 401 invalid_api_key', async () => {
      const bodies = new Set<string>();
      for (const key of [
        null,
        keys.unknown as string,
        keys.revoked as string,
        keys.expired as string,
        'not-even-a-key',
      ]) {
        const res = await call(route, key);
        assertError(res, 401, 'invalid_api_key');
        assert.equal(res.headers['x-ratelimit-limit'], undefined, 'a 401 carries no rate-limit headers');
        bodies.add(res.json.error.message);
      }
      assert.equal(bodies.size, 1, 'every failure mode gets the same message');
    });

    test('a workspace not on Enterprise: 403 plan_upgrade_required', async () => {
      assertError(await call(route, keys.business as string), 403, 'plan_upgrade_required');
      assertError(await call(route, keys.starter as string), 403, 'plan_upgrade_required');
    });

    test('a key without the scope: 403 insufficient_scope naming it, even for an id that does not exist', async () => {
      const others = SCOPES.filter((scope) => scope !== route.auth.scope);
      const key = (await h.key(ws.id, ws.userId, others)).secret;
      const res = await call(route, key);
      assertError(res, 403, 'insufficient_scope');
      assert.deepEqual(res.json.error.details, { required_scope: route.auth.scope });
    });

    test('a key holding only pii:read reaches nothing', async () => {
      assertError(await call(route, keys.piiOnly as string), 403, 'insufficient_scope');
    });
  });
}
