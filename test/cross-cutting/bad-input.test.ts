// Hostile and malformed input (issue requirement: "Every malformed header, query, path id, cursor or body gets
// the documented 4xx in the error shape … None may produce a 5xx or a partial write."), on the suppliers
// endpoints; decisions 1-3, 10, 14, 27, 32 and risk-data-api.md "Errors", "Shared parameters", "Limits".
//
// Every refusal is checked with `refused`: exact status and code in the error shape (so never a 5xx), and
// the workspace's suppliers, assessments and audit entries counted before and after (never a partial write).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertError, type Harness, type Response, useHarness } from '../support/harness.js';
import { rawRequest } from '../support/raw-http.js';

const TAGGED = randomUUID(); // the one supplier carrying the tag `cloud`

const { h, ws, other } = useHarness({ workspaces: ['ws', 'other'] }, async () => {
  const suppliers = [
    { id: TAGGED, name: 'Tagged', tags: ['cloud'], status: 'active', created_at: '2025-01-03T00:00:00Z' },
    { name: 'Second', status: 'pending', created_at: '2025-01-02T00:00:00Z' },
    { name: 'Third', status: 'pending', created_at: '2025-01-01T00:00:00Z' },
  ];
  await h.import(ws.id, { suppliers });
  await h.import(other.id, { suppliers: suppliers.map(({ id: _id, ...rest }) => rest) });
});

type ApiOptions = Parameters<Harness['api']>[2];

async function writes(workspaceId: string): Promise<string> {
  const [row] = await h.db.query<{ n: string }>(
    `select (select count(*) from suppliers where workspace_id = $1) || '/' ||
            (select count(*) from assessments where workspace_id = $1) || '/' ||
            (select count(*) from audit_logs where workspace_id = $1) as n`,
    [workspaceId],
  );
  return row?.n ?? '';
}

/** Sends a request that must be refused with `status`/`code` and must leave the workspace unchanged. */
async function refused(
  status: number,
  code: string,
  method: string,
  url: string,
  options: ApiOptions = {},
): Promise<Response> {
  const before = await writes(ws.id);
  const res = await h.api(method, url, { key: ws.key, ...options });
  try {
    assertError(res, status, code);
  } catch (error) {
    throw new Error(`${method} ${url}: ${(error as Error).message}`);
  }
  assert.equal(await writes(ws.id), before, `${method} ${url} wrote something`);
  return res;
}

const JSON_TYPE = { 'content-type': 'application/json' };
const idempotent = (headers: Record<string, string> = {}) => ({
  'idempotency-key': randomUUID(),
  ...headers,
});
/** POST /suppliers with a body given as raw bytes. */
const postRaw = (status: number, code: string, rawBody: string | Buffer, headers = JSON_TYPE) =>
  refused(status, code, 'POST', '/suppliers', { rawBody, headers: idempotent(headers) });
const postJson = (status: number, code: string, body: unknown) =>
  refused(status, code, 'POST', '/suppliers', { body, headers: idempotent() });
const list = (status: number, code: string, query: string) =>
  refused(status, code, 'GET', `/suppliers?${query}`);

describe('bodies (decision 3: not JSON or not an object → 400; a bad field → 422)', () => {
  test('a NUL character in a string is a 422 naming the field, wherever it is', async () => {
    let res = await postJson(422, 'validation_failed', { name: 'Acme\u0000Corp' });
    assert.ok(res.json.error.details.fields.name);
    res = await postJson(422, 'validation_failed', { name: 'Acme', tags: ['ok', 'b\u0000d'] });
    assert.deepEqual(res.json.error.details.fields, { tags: 'item 1 must not contain NUL characters' });
  });

  // Decision 3: `details.fields` maps each bad *field* (P77): a client branching on `details.fields.tags` sees
  // every problem of `tags`, and the message says which items.
  test('bad items of an array field are reported under the field, the message naming the items', async () => {
    let res = await postJson(422, 'validation_failed', { name: 'Acme', tags: [1, 2] });
    assert.deepEqual(res.json.error.details.fields, { tags: 'items 0 and 1 must be strings' });
    res = await postJson(422, 'validation_failed', { name: '', tags: ['ok', 7, 'b\u0000d', true] });
    assert.deepEqual(res.json.error.details.fields, {
      name: 'must NOT have fewer than 1 characters',
      tags: 'items 1 and 3 must be strings; item 2 must not contain NUL characters',
    });
    res = await postJson(422, 'validation_failed', {
      name: 'Acme',
      tags: Array.from({ length: 14 }, (_, i) => i),
    });
    // A long list is cut: the first ten items are named, the others counted.
    assert.deepEqual(res.json.error.details.fields, {
      tags: 'items 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 4 others must be strings',
    });
  });

  test('a problem inside an object field is reported under the top-level field', async () => {
    // `source` is accepted and ignored (decision 3), but text that cannot be stored is refused wherever it is.
    const res = await postRaw(
      422,
      'validation_failed',
      '{"name":"Acme","source":{"system":{"id":"a\\u0000"}}}',
    );
    assert.deepEqual(res.json.error.details.fields, { source: 'system.id must not contain NUL characters' });
  });

  test('a lone surrogate (\\ud800) is a 422: it is not Unicode text', async () => {
    const res = await postRaw(422, 'validation_failed', '{"name":"Acme \\ud800"}');
    assert.ok(res.json.error.details.fields.name);
  });

  test('a 10 MB body is a 400 invalid_request', async () => {
    // 400, not 413: the error codes are a closed list (risk-data-api.md "Errors") and the status follows
    // from the code; an oversized body is a malformed request (invalid_request), refused at the 4 MB limit.
    await postRaw(400, 'invalid_request', JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024) }));
  });

  test('bytes that are not UTF-8 are a 400, not silently replaced characters', async () => {
    const latin1 = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    await postRaw(400, 'invalid_request', latin1);
    await postRaw(400, 'invalid_request', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
  });

  test('JSON nested 100,000 levels deep is a 400, and the service keeps answering', async () => {
    const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    await postRaw(400, 'invalid_request', deep(100_000));
    await postRaw(400, 'invalid_request', `{"name":"x","source":${deep(100_000)}}`);
    const objects = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    await postRaw(400, 'invalid_request', objects);
    // The limit is 64 levels: `source` (accepted and ignored, decision 3) at 63 levels inside the body is fine.
    const res = await h.api('POST', '/suppliers', {
      key: ws.key,
      rawBody: `{"name":"Deep but allowed","source":${deep(63)}}`,
      headers: idempotent(JSON_TYPE),
    });
    assert.equal(res.status, 201, res.body);
    await postRaw(400, 'invalid_request', `{"name":"One level too deep","source":${deep(64)}}`);
  });

  test('a body that is JSON but not an object is a 400', async () => {
    for (const body of ['[]', '[{"name":"x"}]', '"x"', 'null', '1', 'true'])
      await postRaw(400, 'invalid_request', body);
  });

  test('an empty or malformed JSON body is a 400', async () => {
    for (const body of [
      '',
      '   ',
      '{',
      '{"name":"x"',
      '{"name":"x"} trailing',
      "{'name':'x'}",
      '{"name":"x",}',
    ])
      await postRaw(400, 'invalid_request', body);
    // No body at all (and no Content-Type) is not an object either.
    await refused(400, 'invalid_request', 'POST', '/suppliers', { headers: idempotent() });
  });

  test('a Content-Type other than JSON is a 400, even when the bytes are JSON', async () => {
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
    ])
      await postRaw(400, 'invalid_request', '{"name":"x"}', { 'content-type': type });
    await postRaw(400, 'invalid_request', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    // A body without any Content-Type.
    await refused(400, 'invalid_request', 'POST', '/suppliers', {
      rawBody: '{"name":"x"}',
      headers: idempotent(),
    });
  });

  test('property names that exist on every JavaScript object are unknown fields (422), not ignored', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const res = await postRaw(422, 'validation_failed', `{"name":"x","${name}":{"polluted":true}}`);
      assert.deepEqual(Object.keys(res.json.error.details.fields), [name]);
    }
  });

  test('SQL-looking text in a body is stored verbatim, as data', async () => {
    const name = "Robert'); drop table suppliers; --";
    const res = await h.api('POST', '/suppliers', {
      key: ws.key,
      body: { name, tags: ["' or 1=1 --"] },
      headers: idempotent(),
    });
    assert.equal(res.status, 201, res.body);
    const read = await h.api('GET', `/suppliers/${res.json.id}`, { key: ws.key });
    assert.equal(read.json.name, name);
    assert.deepEqual(read.json.tags, ["' or 1=1 --"]);
  });
});

describe('query strings (decision 2: malformed → 400 invalid_request naming the parameter)', () => {
  test('a NUL character in a query value is a 400 naming the parameter', async () => {
    const res = await list(400, 'invalid_request', 'tag=a%00b');
    assert.equal(res.json.error.details.parameter, 'tag');
  });

  test('SQL-looking filter values: a free-text filter finds nothing, an enum filter is a 400', async () => {
    // The control: the tag filter does select.
    const cloud = await h.api('GET', '/suppliers?tag=cloud', { key: ws.key });
    assert.deepEqual(
      cloud.json.data.map((row: { id: string }) => row.id),
      [TAGGED],
    );
    for (const value of ["' or 1=1 --", "cloud' --", "x'; drop table suppliers; --", '%', '_', '*']) {
      const res = await h.api('GET', `/suppliers?tag=${encodeURIComponent(value)}`, { key: ws.key });
      assert.equal(res.status, 200, res.body);
      // The supplier created verbatim with the tag "' or 1=1 --" is the only possible match.
      for (const row of res.json.data) assert.deepEqual(row.tags, [value]);
      assert.ok(res.json.data.length <= 1, value);
    }
    for (const name of ['status', 'criticality', 'risk_group', 'vendor_profile']) {
      const res = await list(400, 'invalid_request', `${name}=${encodeURIComponent("active' or 1=1 --")}`);
      assert.equal(res.json.error.details.parameter, name);
    }
  });

  test('limit outside 1-200 or not a decimal integer is a 400', async () => {
    const control = await h.api('GET', '/suppliers?limit=1', { key: ws.key });
    assert.equal(control.json.data.length, 1);
    for (const value of [
      '0',
      '201',
      '-1',
      '1.5',
      'abc',
      '',
      '1e2',
      '0x10',
      '%205',
      '1,2',
      '99999999999999999999',
    ]) {
      const res = await list(400, 'invalid_request', `limit=${value}`);
      assert.equal(res.json.error.details.parameter, 'limit', `limit=${value}`);
    }
    await list(400, 'invalid_request', 'limit');
  });

  test('an unknown parameter is a 400 naming it, inherited object property names included', async () => {
    for (const name of [
      'colour',
      'offset',
      'page',
      'workspace_id',
      'constructor',
      '__proto__',
      'toString',
      'status[x]',
    ]) {
      const res = await list(400, 'invalid_request', `${encodeURIComponent(name)}=1`);
      assert.equal(res.json.error.details.parameter, name);
    }
  });

  test('a repeated parameter is a 400', async () => {
    for (const query of ['status=active&status=pending', 'limit=1&limit=1', 'tag=a&tag=b']) {
      const res = await list(400, 'invalid_request', query);
      assert.ok(['status', 'limit', 'tag'].includes(res.json.error.details.parameter));
    }
  });

  test('date-times must be real instants PostgreSQL can hold (decision 32)', async () => {
    for (const good of ['2024-02-29T00:00:00Z', '2016-12-31T23:59:60Z', '2016-12-31T20:59:60.000-03:00']) {
      const control = await h.api('GET', `/suppliers?updated_since=${encodeURIComponent(good)}`, {
        key: ws.key,
      });
      assert.equal(control.status, 200, control.body);
    }
    for (const value of [
      '2024-02-30T00:00:00Z',
      '2023-02-29T00:00:00Z',
      '2024-04-31T00:00:00Z',
      '2024-13-01T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T00:00:00', // no offset
      '2024-01-01',
      '0000-01-01T00:00:00Z', // PostgreSQL has no year 0
      '2024-01-01T00:00:00+16:00', // nor offsets of 16 hours or more
      '2016-12-31T23:59:60.5Z', // nor a leap second with a fraction
      '2016-12-31T20:59:60.000001-03:00',
      '2024-01-01T12:30:60Z', // a leap second is the last second of a UTC day
      'yesterday',
      '',
    ]) {
      const res = await list(400, 'invalid_request', `updated_since=${encodeURIComponent(value)}`);
      assert.equal(res.json.error.details.parameter, 'updated_since', value);
    }
  });

  test('a uuid filter that is not a uuid is a 400', async () => {
    for (const value of [
      'not-a-uuid',
      `urn:uuid:${randomUUID()}`,
      `{${randomUUID()}}`,
      `${randomUUID()}x`,
      "' or 1=1 --",
    ]) {
      const res = await refused(
        400,
        'invalid_request',
        'GET',
        `/assessments?supplier_id=${encodeURIComponent(value)}`,
      );
      assert.equal(res.json.error.details.parameter, 'supplier_id');
    }
  });
});

describe('bad values in a body are 422, with the field named (decisions 3, 32)', () => {
  const assess = (body: Record<string, unknown>) =>
    refused(422, 'validation_failed', 'POST', '/assessments', { body, headers: idempotent() });

  test('an impossible calendar date, year 0000 and a bad uuid', async () => {
    for (const deadline of ['2099-02-30T00:00:00Z', '0000-01-01T00:00:00Z', '2099-01-01T00:00:00+16:00']) {
      const res = await assess({ supplier_id: TAGGED, assessment_type: 'self', deadline });
      assert.deepEqual(Object.keys(res.json.error.details.fields), ['deadline'], deadline);
    }
    const res = await assess({ supplier_id: 'not-a-uuid', assessment_type: 'self' });
    assert.deepEqual(Object.keys(res.json.error.details.fields), ['supplier_id']);
    // The control: the same body with a real date is accepted.
    const ok = await h.api('POST', '/assessments', {
      key: ws.key,
      body: { supplier_id: TAGGED, assessment_type: 'self', deadline: '2099-02-28T00:00:00Z' },
      headers: idempotent(),
    });
    assert.equal(ok.status, 201, ok.body);
  });
});

describe('cursors (decisions 2, 14: not issued for this endpoint, filters and workspace → 400, never rows)', () => {
  const firstCursor = async (key: string, url: string) => {
    const res = await h.api('GET', url, { key });
    assert.equal(res.status, 200, res.body);
    assert.ok(res.json.meta.next_cursor, `${url} has a next page`);
    return res.json.meta.next_cursor as string;
  };
  const badCursor = async (url: string, cursor: string) => {
    const res = await refused(
      400,
      'invalid_request',
      'GET',
      `${url}${url.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`,
    );
    assert.equal(res.json.error.details.parameter, 'cursor');
    assert.equal(res.json.data, undefined);
  };

  test('the control: a cursor works with its own filters, whatever the limit', async () => {
    const ids = (res: Response) => res.json.data.map((row: { id: string }) => row.id);
    const three = await h.api('GET', '/suppliers?limit=3', { key: ws.key });
    const cursor = await firstCursor(ws.key, '/suppliers?limit=1');
    const next = await h.api('GET', `/suppliers?limit=2&cursor=${encodeURIComponent(cursor)}`, {
      key: ws.key,
    });
    assert.equal(next.status, 200, next.body);
    assert.deepEqual(ids(next), ids(three).slice(1));
  });

  test('garbage, truncated or tampered cursors are 400', async () => {
    const cursor = await firstCursor(ws.key, '/suppliers?limit=1');
    const [payload = '', signature = ''] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify(['2999-01-01T00:00:00.000000Z', randomUUID()])).toString(
      'base64url',
    );
    for (const bad of [
      'garbage',
      '.',
      '..',
      '%%%',
      cursor.slice(0, -2),
      cursor.slice(0, cursor.indexOf('.')),
      `${cursor}.extra`,
      `${forged}.${signature}`,
      `${payload}.${Buffer.alloc(16).toString('base64url')}`,
      `${payload}x.${signature}`,
      'x'.repeat(2049),
      "' or 1=1 --",
    ])
      await badCursor('/suppliers?limit=1', bad);
  });

  test('a cursor of another filter set, another endpoint or another workspace is a 400', async () => {
    const cursor = await firstCursor(ws.key, '/suppliers?limit=1');
    await badCursor('/suppliers?limit=1&status=pending', cursor);
    const pending = await firstCursor(ws.key, '/suppliers?limit=1&status=pending');
    await badCursor('/suppliers?limit=1', pending);
    await badCursor('/suppliers?limit=1&status=active', pending);
    await badCursor('/assessments?limit=1', cursor);
    const theirs = await firstCursor(other.key, '/suppliers?limit=1');
    await badCursor('/suppliers?limit=1', theirs);
  });
});

describe('path ids (decision 3: not a uuid → 404, like a missing one)', () => {
  test('traversal, NUL, over-long and almost-uuid ids are 404', async () => {
    for (const id of [
      '..%2F..%2Fetc%2Fpasswd',
      '%2e%2e',
      '%00',
      `${randomUUID()}%00`,
      'a'.repeat(300),
      'a'.repeat(5000),
      `urn:uuid:${randomUUID()}`,
      `{${randomUUID()}}`,
      randomUUID().replaceAll('-', ''),
      `${randomUUID()}x`,
      encodeURIComponent("' or 1=1 --"),
      '%zz',
    ])
      await refused(404, 'resource_not_found', 'GET', `/suppliers/${id}`);
    await refused(404, 'resource_not_found', 'GET', '/v1/suppliers/../../etc');
  });
});

describe('Authorization header variants (decision 27: one 401 body for every bad credential)', () => {
  test('all are 401 invalid_api_key with the same body', async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Bearer ' },
      { authorization: `Basic ${Buffer.from(`${ws.key}:`).toString('base64')}` },
      { authorization: `bearer ${ws.key}` },
      { authorization: `BEARER ${ws.key}` },
      { authorization: `Bearer  ${ws.key}` },
      { authorization: `Bearer\t${ws.key}` },
      { authorization: `Token ${ws.key}` },
      { authorization: ws.key },
      { authorization: `Bearer ${ws.key}x` },
      { authorization: `Bearer ${'a'.repeat(10 * 1024)}` },
      { authorization: `Bearer ${ws.key.slice(0, -1)}é` },
      { authorization: `Bearer ${ws.key.replace('tprm_', 'tprm_admin_')}` },
      { cookie: `authorization=Bearer ${ws.key}` },
      { 'x-api-key': ws.key },
    ];
    const bodies = new Set<string>();
    for (const headers of variants) {
      const res = await refused(401, 'invalid_api_key', 'GET', '/suppliers', { key: null, headers });
      const { request_id: _requestId, ...rest } = res.json.error;
      bodies.add(JSON.stringify(rest));
    }
    // The key in the query string is not a credential either (and the unknown parameter is not reached).
    await refused(401, 'invalid_api_key', 'GET', `/suppliers?api_key=${ws.key}`, { key: null });
    assert.equal(bodies.size, 1, [...bodies].join('\n'));
  });
});

describe('Idempotency-Key (risk-data-api.md "Shared parameters", decision 10)', () => {
  test('missing, empty, 256 characters or not printable ASCII is a 400; exactly 255 is accepted', async () => {
    const post = (headers: Record<string, string>) =>
      refused(400, 'invalid_request', 'POST', '/suppliers', { body: { name: 'Keyed' }, headers });
    await post({});
    await post({ 'idempotency-key': '' });
    await post({ 'idempotency-key': 'k'.repeat(256) });
    await post({ 'idempotency-key': 'clé' });
    const res = await h.api('POST', '/suppliers', {
      key: ws.key,
      body: { name: 'Keyed' },
      headers: { 'idempotency-key': 'k'.repeat(255) },
    });
    assert.equal(res.status, 201, res.body);
  });

  test('Idempotency-Key or Content-Type sent twice is a 400 naming the header, even with equal values (P64)', async () => {
    for (const [header, values] of [
      ['Idempotency-Key', [randomUUID(), randomUUID()]],
      ['Idempotency-Key', ['same', 'same']],
      ['Content-Type', ['application/json', 'text/plain']],
      ['Content-Type', ['application/json', 'application/json']],
    ] as const) {
      const headers = { ...idempotent(JSON_TYPE), [header.toLowerCase()]: [...values] };
      const res = await refused(400, 'invalid_request', 'POST', '/suppliers', {
        rawBody: JSON.stringify({ name: 'Twice' }),
        headers,
      });
      assert.equal(res.json.error.details.header, header);
    }
    // Once each, the same request is created.
    const once = await h.api('POST', '/suppliers', {
      key: ws.key,
      rawBody: JSON.stringify({ name: 'Twice' }),
      headers: idempotent(JSON_TYPE),
    });
    assert.equal(once.status, 201, once.body);
  });
});

describe('requests that are not valid HTTP (risk-data-api.md "Errors": one shape everywhere; decision 5)', () => {
  test('refused by the HTTP parser, they still get 400 invalid_request in the error shape with X-Request-Id', async () => {
    // Found by probing the real listener: these never reach Fastify, which answered with its own body and no
    // X-Request-Id. In-process injection cannot send them, so they go over a real connection.
    const auth = `Authorization: Bearer ${ws.key}\r\n`;
    const before = await writes(ws.id);
    for (const request of [
      `GET /v1/suppliers HTTP/1.1\r\nHost: x\r\n${auth}Idempotency-Key: a\u0001b\r\n\r\n`,
      `GET /v1/suppliers HTTP/1.1\r\nHost: x\r\n${auth}X-Padding: ${'a'.repeat(20_000)}\r\n\r\n`,
      `POST /v1/suppliers HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: abc\r\n\r\n`,
      `POST /v1/suppliers HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 15\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      `G@T /v1/suppliers HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /v1/suppliers HTTP/9.9\r\nHost: x\r\n\r\n`,
      `GET /v1/suppliers HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`,
    ]) {
      const res = await rawRequest(h.publicApp, request);
      const what = JSON.stringify(request.slice(0, 60));
      assert.equal(res.status, 400, `${what}: ${res.body}`);
      const { error } = JSON.parse(res.body);
      assert.equal(error.code, 'invalid_request', what);
      assert.match(res.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/, what);
      assert.equal(error.request_id, res.headers['x-request-id'], what);
      assert.equal(res.headers['cache-control'], 'no-store', what);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', what);
    }
    assert.equal(await writes(ws.id), before);
  });
});
