// The typed admin client (src/management/client.ts): one method per admin operation, paths built from the
// contracts with every parameter percent-encoded, so a value cannot leave its path segment.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminOperations } from '../../src/management/admin-operations.js';
import { type AdminRequest, adminPath, createAdminClient } from '../../src/management/client.js';

describe('admin client', () => {
  test('has a method per admin operation, sending its method, path and body', async () => {
    const sent: AdminRequest[] = [];
    const client = createAdminClient(adminOperations, async (request) => {
      sent.push(request);
      return { ok: true };
    });
    assert.deepEqual(Object.keys(client).sort(), Object.keys(adminOperations).sort());
    await client.createUser({ params: { id: 'w1' }, body: { name: 'Ada', email: 'ada@example.test' } });
    await client.listWorkspaces();
    assert.deepEqual(sent, [
      {
        method: 'POST',
        path: '/admin/workspaces/w1/users',
        body: { name: 'Ada', email: 'ada@example.test' },
      },
      { method: 'GET', path: '/admin/workspaces', body: undefined },
    ]);
  });

  test('percent-encodes path parameters and refuses a missing one', () => {
    assert.equal(
      adminPath('/workspaces/:id/users', { id: '../api-keys/x?y#z' }),
      '/admin/workspaces/..%2Fapi-keys%2Fx%3Fy%23z/users',
    );
    assert.throws(() => adminPath('/workspaces/:id', {}), /missing path parameter id/);
  });
});
