// management-api.md: authentication, endpoints, import document; decisions 26, 28, 30, 42.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { ADMIN_FAILURE_BUCKETS, createMemoryRateLimiter } from '../../src/http/rate-limit.js';
import { adminDocumentText } from '../../src/openapi/admin-document.js';
import { adminTokenWeakness, generateAdminToken } from '../../src/security/secrets.js';
import { assertError, Harness, type Response, useHarness } from '../support/harness.js';

const { h, ws } = useHarness({ workspaces: ['ws'] });

const auditActions = async (workspaceId: string) =>
  (
    await h.db.query<{ action: string }>(
      'select action from audit_logs where workspace_id = $1 order by occurred_at, id',
      [workspaceId],
    )
  ).map((row) => row.action);

describe('admin authentication', () => {
  test('a missing or wrong token is a 401 in the error shape; the admin token is compared by hash', async () => {
    assertError(await h.admin('GET', '/admin/workspaces', undefined, null), 401, 'invalid_api_key');
    assertError(
      await h.admin('GET', '/admin/workspaces', undefined, 'tprm_admin_wrong'),
      401,
      'invalid_api_key',
    );
    assertError(await h.admin('GET', '/admin/workspaces', undefined, ws.key), 401, 'invalid_api_key');
  });

  test('the admin token sent in two Authorization headers is no token (P46)', async () => {
    const headers: Record<string, string[]> = {
      authorization: [`Bearer ${h.adminToken}`, `Bearer ${h.adminToken}`],
    };
    const res = await h.adminApp.inject({ method: 'GET', url: '/admin/workspaces', headers });
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(JSON.parse(res.body).error.code, 'invalid_api_key');
  });

  test('/healthz, /readyz and /metrics need no token', async () => {
    assert.equal((await h.adminApp.inject('/healthz')).statusCode, 200);
    const ready = await h.adminApp.inject('/readyz');
    assert.equal(ready.statusCode, 200, ready.body);
    const metrics = await h.adminApp.inject('/metrics');
    assert.equal(metrics.statusCode, 200);
    assert.match(metrics.body, /tprm_http_requests_total/);
  });
});

describe('the operator token (decision P68)', () => {
  test('a weak ADMIN_TOKEN stops the process at start: one line naming the variable, exit 2', () => {
    const weak = 'hunter2-hunter2';
    const started = spawnSync(process.execPath, [join(import.meta.dirname, '../../src/main.js')], {
      env: {
        PATH: process.env.PATH,
        ADMIN_TOKEN: weak,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'tprm-weak-token-')),
        PORT: '0',
        ADMIN_PORT: '0',
      },
      encoding: 'utf8',
      // A process that starts anyway is killed outright: it would take SIGTERM as a request to drain.
      timeout: 30_000,
      killSignal: 'SIGKILL',
    });
    const output = `${started.stdout}${started.stderr}`.trim();
    assert.equal(started.status, 2, output);
    assert.match(output, /^tprm-api: ADMIN_TOKEN is too weak: [^\n]*at least 32[^\n]*$/);
    assert.ok(!output.includes(weak), 'the token itself is never printed');
  });

  test('P115: short, non-ASCII and patterned tokens (repeats, sequences, keyboard walks) are refused; random ones pass, the generated one included', () => {
    const refused: [string, RegExp][] = [
      ['a', /1 characters, at least 32/],
      [`${'a'.repeat(31)}b`, /patterned/],
      ['a'.repeat(40), /patterned/],
      [`é${randomBytes(24).toString('base64')}`, /visible ASCII/],
      [`correct horse battery staple ${randomUUID()}`, /visible ASCII/],
      // Repeats of a shorter string, with or without a tail that breaks the exact repetition.
      ['changeme-changeme-changeme-changeme', /patterned/],
      [`${'ab'.repeat(20)}XY`, /patterned/],
      [`${'abc'.repeat(11)}X`, /patterned/],
      [`${'k3Xq9Pz2'.repeat(4)}X`, /patterned/],
      ['Summer2024!Summer2024!Summer2024!', /patterned/],
      ['abc123abc123abc123abc123abc123abc123', /patterned/],
      // Runs of one character, sequences.
      ['aaaabbbbccccddddeeeeffffgggghhhh', /patterned/],
      [`${'a'.repeat(16)}${'b'.repeat(16)}c`, /patterned/],
      ['0123456789'.repeat(4), /patterned/],
      ['abcdefghijklmnopqrstuvwxyzABCDEF', /patterned/],
      ['zyxwvutsrqponmlkjihgfedcba987654', /patterned/],
      ['acegikmoqsuwybdfhjlnprtvxz135790', /patterned/],
      ['a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6', /patterned/],
      ['aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpP', /patterned/],
      // Keyboard walks: rows, columns, shifted, backwards.
      ['qwertyuiopasdfghjklzxcvbnm123456', /patterned/],
      ['1234567890qwertyuiopasdfghjklzxcvbnm', /patterned/],
      ['poiuytrewqlkjhgfdsamnbvcxz098765', /patterned/],
      ['qazwsxedcrfvtgbyhnujmikolp1234567890', /patterned/],
      ['1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik,', /patterned/],
      ['!QAZ@WSX#EDC$RFV%TGB^YHN&UJM*IK<', /patterned/],
      ['1qaz!QAZ2wsx@WSX3edc#EDC4rfv$RFV', /patterned/],
      ['zaq12wsxcde34rfvbgt56yhnmju78ik,', /patterned/],
      ['asdfasdfasdfasdfjkl;jkl;jkl;jkl;', /patterned/],
    ];
    for (const [token, reason] of refused) {
      assert.match(adminTokenWeakness(token) ?? 'accepted', reason, JSON.stringify(token));
      assert.throws(() => loadConfig({ ADMIN_TOKEN: token }), ConfigError, JSON.stringify(token));
    }
    const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    const accepted = () => [
      generateAdminToken(),
      randomBytes(32).toString('base64'), // openssl rand -base64 32
      randomBytes(16).toString('hex'), // openssl rand -hex 16
      randomBytes(16).toString('hex').toUpperCase(),
      randomBytes(24).toString('base64url'),
      randomUUID(),
      `faults-admin-${randomUUID()}`,
      // A password manager's 32 letters and digits.
      Array.from(randomBytes(32), (byte) => ALPHANUMERIC[byte % 62]).join(''),
    ];
    for (let i = 0; i < 500; i++)
      for (const token of accepted()) assert.equal(loadConfig({ ADMIN_TOKEN: token }).adminToken, token);
  });
  test('wrong and missing tokens are limited per client address: past the limit a minute, every /admin request from it is a 429, a right token included; right tokens count nothing', async () => {
    let clock = Date.parse('2026-03-01T00:00:10.000Z');
    const t = await Harness.start({
      limiter: createMemoryRateLimiter({ now: () => clock }),
      buckets: { adminFailures: ADMIN_FAILURE_BUCKETS },
    });
    try {
      const send = async (token: string | null, remoteAddress: string, url = '/admin/workspaces') => {
        const res = await t.adminApp.inject({
          method: 'GET',
          url,
          headers: token === null ? {} : { authorization: `Bearer ${token}` },
          remoteAddress,
        });
        const json = res.headers['content-type']?.toString().startsWith('application/json')
          ? JSON.parse(res.body)
          : undefined;
        return { status: res.statusCode, headers: res.headers, body: res.body, json } as Response;
      };
      const [bucket] = ADMIN_FAILURE_BUCKETS;
      assert.ok(bucket);
      const wrong = `tprm_admin_${randomBytes(32).toString('base64url')}`;
      for (let i = 0; i < bucket.limit * 3; i++)
        assert.equal((await send(t.adminToken, '10.9.0.1')).status, 200);
      for (let i = 0; i < bucket.limit; i++)
        assertError(await send(i % 2 ? null : wrong, '10.9.0.1'), 401, 'invalid_api_key');

      const secondsLeft = String((bucket.windowMs - (clock % bucket.windowMs)) / 1000);
      for (const token of [wrong, null, t.adminToken]) {
        const limited = await send(token, '10.9.0.1');
        assertError(limited, 429, 'rate_limit_exceeded');
        assert.equal(limited.headers['retry-after'], secondsLeft);
        assert.deepEqual(
          Object.keys(limited.headers).filter((name) => name.startsWith('x-ratelimit')),
          [],
        );
        assert.equal(limited.headers['cache-control'], 'no-store');
      }
      // Another address is not concerned, and the probes need no token (exempt).
      assert.equal((await send(t.adminToken, '10.9.0.2')).status, 200);
      assertError(await send(wrong, '10.9.0.2'), 401, 'invalid_api_key');
      for (const probe of ['/healthz', '/readyz', '/metrics'])
        assert.equal((await send(null, '10.9.0.1', probe)).status, 200, probe);

      clock += Number(secondsLeft) * 1000;
      assert.equal((await send(t.adminToken, '10.9.0.1')).status, 200);
      assertError(await send(wrong, '10.9.0.1'), 401, 'invalid_api_key');
    } finally {
      await t.close();
    }
  });
});

describe('process settings', () => {
  test('DATABASE_POOL_SIZE: 10 by default, an integer from 1 to 1000, anything else stops the start', () => {
    assert.equal(loadConfig({}).databasePoolSize, 10);
    assert.equal(loadConfig({ DATABASE_POOL_SIZE: '25' }).databasePoolSize, 25);
    for (const bad of ['0', '1001', '2.5', '-3', 'ten', '1e2'])
      assert.throws(
        () => loadConfig({ DATABASE_POOL_SIZE: bad }),
        /DATABASE_POOL_SIZE must be an integer from 1 to 1000/,
      );
  });
});

describe('workspaces and users', () => {
  test('create, read, list, update; the plan change takes effect on the next public request', async () => {
    const created = await h.admin('POST', '/admin/workspaces', { name: 'Ops', plan: 'starter' });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.json).sort(), [
      'assessment_quota',
      'created_at',
      'id',
      'name',
      'plan',
      'updated_at',
    ]);
    assert.equal(created.json.assessment_quota, 100);
    assert.equal((await h.admin('GET', `/admin/workspaces/${created.json.id}`)).json.name, 'Ops');
    assert.ok(
      (await h.admin('GET', '/admin/workspaces')).json.data.some(
        (w: { id: string }) => w.id === created.json.id,
      ),
    );
    const patched = await h.admin('PATCH', `/admin/workspaces/${created.json.id}`, {
      plan: 'enterprise',
      assessment_quota: 5,
    });
    assert.equal(patched.json.plan, 'enterprise');
    assert.equal(patched.json.assessment_quota, 5);
    assert.deepEqual(await auditActions(created.json.id), ['workspace.created', 'workspace.updated']);
  });

  test("a workspace's users are listed newest first; an unknown workspace is a 404", async () => {
    const w = await h.workspace();
    const added = await h.adminClient.createUser({
      params: { id: w.id },
      body: { name: 'Ada Lovelace', email: 'ada@test.example' },
    });
    const { data } = await h.adminClient.listUsers({ params: { id: w.id } });
    assert.deepEqual(
      data.map((user) => user.id),
      [added.id, w.userId],
    );
    assert.equal(data[0]?.email, 'ada@test.example');
    assertError(await h.admin('GET', `/admin/workspaces/${randomUUID()}/users`), 404, 'resource_not_found');
  });

  test('bad bodies are 422 with every field; unknown ids 404', async () => {
    const bad = await h.admin('POST', '/admin/workspaces', { name: '', plan: 'gold', extra: 1 });
    assertError(bad, 422, 'validation_failed');
    assert.deepEqual(Object.keys(bad.json.error.details.fields).sort(), ['extra', 'name', 'plan']);
    assertError(
      await h.admin('GET', '/admin/workspaces/00000000-0000-4000-8000-000000000000'),
      404,
      'resource_not_found',
    );
    assertError(await h.admin('GET', '/admin/workspaces/nope'), 404, 'resource_not_found');
    assertError(await h.admin('POST', '/admin/workspaces', '{"broken'), 400, 'invalid_request');
  });
});

describe('API keys', () => {
  test('created_by must be a user of the same workspace', async () => {
    const other = await h.workspace();
    const res = await h.admin('POST', `/admin/workspaces/${ws.id}/api-keys`, {
      name: 'x',
      scopes: ['suppliers:read'],
      created_by: other.userId,
    });
    assertError(res, 422, 'validation_failed');
    assert.ok('created_by' in res.json.error.details.fields);
  });

  test('unknown scopes are refused', async () => {
    const res = await h.admin('POST', `/admin/workspaces/${ws.id}/api-keys`, {
      name: 'x',
      scopes: ['everything'],
      created_by: ws.userId,
    });
    assertError(res, 422, 'validation_failed');
  });

  test('revocation: 200 with revoked_at, audited, and the next public request gets 401', async () => {
    const key = await h.key(ws.id, ws.userId, ['suppliers:read']);
    assert.equal((await h.api('GET', '/suppliers', { key: key.secret })).status, 200);
    const revoked = await h.admin('POST', `/admin/api-keys/${key.id}/revoke`);
    assert.equal(revoked.status, 200);
    assert.ok(revoked.json.revoked_at);
    assert.ok(!('secret' in revoked.json));
    assertError(await h.api('GET', '/suppliers', { key: key.secret }), 401, 'invalid_api_key');
    const actions = await auditActions(ws.id);
    assert.ok(actions.includes('api_key.created') && actions.includes('api_key.revoked'));
  });
});

describe('webhook endpoints', () => {
  test('https only (decision 30); the signing secret is shown once, at registration', async () => {
    for (const url of [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://10.0.0.1/x',
      'https://[::1]/x',
      'https://localhost/x',
      'not a url',
    ]) {
      const res = await h.admin('POST', `/admin/workspaces/${ws.id}/webhook-endpoints`, {
        url,
        events: ['alert.created'],
      });
      assertError(res, 422, 'validation_failed');
      assert.ok('url' in res.json.error.details.fields, url);
    }
    const created = await h.admin('POST', `/admin/workspaces/${ws.id}/webhook-endpoints`, {
      url: 'https://hooks.example.com/tprm',
      events: ['alert.created', 'report.ready'],
      description: 'SIEM',
    });
    assert.equal(created.status, 201);
    assert.match(created.json.signing_secret, /^whsec_/);
    assert.equal(created.json.enabled, true);
    const patched = await h.admin('PATCH', `/admin/webhook-endpoints/${created.json.id}`, {
      enabled: false,
      description: null,
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.enabled, false);
    assert.equal(patched.json.description, null);
    assert.ok(!('signing_secret' in patched.json));
    assert.equal((await h.admin('DELETE', `/admin/webhook-endpoints/${created.json.id}`)).status, 204);
    assertError(
      await h.admin('DELETE', `/admin/webhook-endpoints/${created.json.id}`),
      404,
      'resource_not_found',
    );
  });

  test("a workspace's endpoints are listed newest first and read one by one, never with a secret", async () => {
    const w = await h.workspace();
    const admin = h.adminClient;
    const url = 'https://hooks.example.com/tprm';
    const first = await admin.createWebhookEndpoint({
      params: { id: w.id },
      body: { url, events: ['alert.created'] },
    });
    const second = await admin.createWebhookEndpoint({
      params: { id: w.id },
      body: { url, events: ['report.ready'], description: 'second' },
    });
    const listed = await admin.listWebhookEndpoints({ params: { id: w.id } });
    assert.deepEqual(
      listed.data.map((endpoint) => endpoint.id),
      [second.id, first.id],
    );
    const { signing_secret: _secret, ...withoutSecret } = second;
    assert.deepEqual(await admin.getWebhookEndpoint({ params: { id: second.id } }), withoutSecret);
    assert.ok(!(await h.admin('GET', `/admin/webhook-endpoints/${second.id}`)).body.includes('whsec_'));
    assertError(await h.admin('GET', `/admin/webhook-endpoints/${randomUUID()}`), 404, 'resource_not_found');
    assertError(
      await h.admin('GET', `/admin/workspaces/${randomUUID()}/webhook-endpoints`),
      404,
      'resource_not_found',
    );
  });

  test('WEBHOOK_ALLOW_INSECURE_URLS=true allows http and loopback targets', async () => {
    const insecure = await Harness.start({ env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true' } });
    try {
      const w = await insecure.workspace();
      const res = await insecure.admin('POST', `/admin/workspaces/${w.id}/webhook-endpoints`, {
        url: 'http://127.0.0.1:9/x',
        events: ['alert.created'],
      });
      assert.equal(res.status, 201);
    } finally {
      await insecure.close();
    }
  });
});

describe('import', () => {
  test('one invalid record fails the whole document with 422 and field paths; nothing is written', async () => {
    const w = await h.workspace();
    const res = await h.admin('POST', `/admin/workspaces/${w.id}/import`, {
      suppliers: [
        { name: 'Good' },
        { name: 'Bad', criticality: 'extreme' },
        { name: 'Worse', colour: 'red' },
      ],
      assessments: [{ supplier_id: '00000000-0000-4000-8000-000000000000', assessment_type: 'self' }],
    });
    assertError(res, 422, 'validation_failed');
    assert.ok('suppliers[1].criticality' in res.json.error.details.fields);
    assert.ok('suppliers[2].colour' in res.json.error.details.fields);
    const n = await h.db.query('select 1 from suppliers where workspace_id = $1', [w.id]);
    assert.equal(n.length, 0);
  });

  test('references must resolve inside the same workspace', async () => {
    const w = await h.workspace();
    const other = await h.workspace();
    const theirs = await h.import(other.id, { suppliers: [{ name: 'Theirs' }] });
    assert.deepEqual(theirs.json.created, { suppliers: 1 });
    const [supplier] = await h.db.query<{ id: string }>('select id from suppliers where workspace_id = $1', [
      other.id,
    ]);
    const res = await h.admin('POST', `/admin/workspaces/${w.id}/import`, {
      assessments: [{ supplier_id: supplier?.id, assessment_type: 'self' }],
    });
    assertError(res, 422, 'validation_failed');
    assert.ok('assessments[0].supplier_id' in res.json.error.details.fields);
  });

  test('records may carry their own ids and instants; computed fields are ignored; unique domains enforced', async () => {
    const w = await h.workspace();
    const id = '11111111-1111-4111-8111-111111111111';
    const res = await h.import(w.id, {
      suppliers: [
        {
          id,
          name: 'Own',
          domain: 'OWN.example',
          created_at: '2020-02-29T12:00:00.123456Z',
          assessment_count: 99,
          is_active: false,
          status: 'active',
        },
      ],
      assessments: [
        {
          supplier_id: id,
          assessment_type: 'supplier',
          status: 'completed',
          completed_at: '2024-01-01T00:00:00Z',
          gap_count: 5,
          expires_at: '1999-01-01T00:00:00Z',
        },
      ],
    });
    assert.deepEqual(res.json.created, { suppliers: 1, assessments: 1 });
    const one = await h.api('GET', `/suppliers/${id}`, { key: w.key });
    assert.equal(one.json.created_at, '2020-02-29T12:00:00.123456Z');
    assert.equal(one.json.domain, 'own.example');
    assert.equal(one.json.assessment_count, 1);
    assert.equal(one.json.is_active, true);
    const dup = await h.admin('POST', `/admin/workspaces/${w.id}/import`, {
      suppliers: [{ name: 'Again', domain: 'own.example' }],
    });
    assertError(dup, 422, 'validation_failed');
    assert.ok('suppliers[0].domain' in dup.json.error.details.fields);
    const twice = await h.admin('POST', `/admin/workspaces/${w.id}/import`, {
      suppliers: [
        { name: 'a', domain: 'x.example' },
        { name: 'b', domain: 'x.example' },
      ],
    });
    assertError(twice, 422, 'validation_failed');
    assert.ok((await auditActions(w.id)).includes('workspace.data_imported'));
  });

  test('a leap second is read whole as the next minute; with a fraction it is a 422, never a 500 (P17)', async () => {
    const w = await h.workspace();
    const refused = await h.admin('POST', `/admin/workspaces/${w.id}/import`, {
      suppliers: [
        { name: 'Whole', updated_at: '2016-12-31T23:59:60Z' },
        { name: 'Fraction', updated_at: '2016-12-31T23:59:60.5Z' },
      ],
    });
    assertError(refused, 422, 'validation_failed');
    assert.deepEqual(Object.keys(refused.json.error.details.fields), ['suppliers[1].updated_at']);
    assert.equal((await h.db.query('select 1 from suppliers where workspace_id = $1', [w.id])).length, 0);
    await h.import(w.id, { suppliers: [{ name: 'Whole', updated_at: '2016-12-31T23:59:60Z' }] });
    const listed = await h.api('GET', '/suppliers', { key: w.key });
    assert.equal(listed.json.data[0].updated_at, '2017-01-01T00:00:00.000000Z');
  });

  test('an unknown collection or a non-array is a 422', async () => {
    assertError(
      await h.admin('POST', `/admin/workspaces/${ws.id}/import`, { vendors: [] }),
      422,
      'validation_failed',
    );
    assertError(
      await h.admin('POST', `/admin/workspaces/${ws.id}/import`, { suppliers: {} }),
      422,
      'validation_failed',
    );
  });

  test('an import emits no webhook event', async () => {
    const w = await h.workspace();
    await h.import(w.id, { suppliers: [{ name: 'Quiet' }] });
    assert.equal((await h.db.query('select 1 from events where workspace_id = $1', [w.id])).length, 0);
  });
});

describe('import of ids already stored', () => {
  test('a record whose id exists in the workspace is a 422 naming it, not a 500', async () => {
    const w = await h.workspace();
    const id = '22222222-2222-4222-8222-222222222222';
    await h.import(w.id, { suppliers: [{ id, name: 'First' }] });
    const again = await h.admin('POST', `/admin/workspaces/${w.id}/import`, {
      suppliers: [{ id, name: 'Second' }],
    });
    assertError(again, 422, 'validation_failed');
    assert.ok('suppliers[0].id' in again.json.error.details.fields);
  });
});

describe('query parameters (P158)', () => {
  test('an operation that takes none refuses one with the 400 its document shows, naming the parameter', async () => {
    const document = JSON.parse(adminDocumentText()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    for (const [method, path, url] of [
      ['GET', '/admin/workspaces', '/admin/workspaces?unknown=1'],
      ['GET', '/admin/workspaces/{id}/users', `/admin/workspaces/${ws.id}/users?unknown=1`],
      ['POST', '/admin/api-keys/{id}/revoke', `/admin/api-keys/${randomUUID()}/revoke?unknown=1`],
    ] as const) {
      const documented = document.paths[path]?.[method.toLowerCase()]?.responses['400'] as {
        content: {
          'application/json': { examples: Record<string, { value: { error: { message: string } } }> };
        };
      };
      const example = documented.content['application/json'].examples.invalid_request?.value.error;
      const res = await h.admin(method, url);
      assertError(res, 400, 'invalid_request');
      const error = (res.json as { error: { message: string; details?: unknown } }).error;
      assert.equal(error.message, example?.message, url);
      assert.deepEqual(error.details, { parameter: 'unknown' }, url);
    }
  });
});
