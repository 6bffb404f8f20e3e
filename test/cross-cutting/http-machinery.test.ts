// The shared HTTP machinery, proved on the suppliers endpoints: decisions 1-5, 31, 32 and risk-data-api.md
// "Errors", "Endpoints" (intro), "Authentication", "What the service does" 2.
//
// Every request of this file goes through `call`, which checks the properties every response must have
// (decisions 5, 31, risk-data-api.md "Errors"): a fresh uuid X-Request-Id, Cache-Control: no-store, no
// Access-Control-* header, never a 5xx, and for errors the one shape with `request_id` equal to the header
// and nothing internal (SQL, stack traces, host names) in the body.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ERROR_STATUS } from '../../src/contract/errors.js';
import { adminOperations } from '../../src/management/admin-operations.js';
import { publicOperations } from '../../src/resources/operations.js';
import { Harness, type Response, useHarness } from '../support/harness.js';
import { parseResponses, type RawResponse, rawConnection, rawRequest } from '../support/raw-http.js';

// One window that never rolls over during the run, so counting tests can compare X-RateLimit-Remaining.
const NEVER_RESETS = [{ name: 'test-run', limit: 1_000_000, windowMs: 2 ** 42 }];

const { h, ws } = useHarness({ buckets: { workspace: NEVER_RESETS }, workspaces: ['ws'] });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** What an error body must never reveal (decision 31). */
const LEAKS: RegExp[] = [
  /\bselect\s/i,
  /\binsert\s+into\b/i,
  /\bat\s.*\.[cm]?[jt]s:\d+/,
  /node_modules/,
  /invalid input syntax|out of range|violates|syntax error|relation "|duplicate key|timestamptz/i,
  /localhost|127\.0\.0\.1|:5432\b/,
  new RegExp(`\\b${escapeRegExp(hostname())}\\b`, 'i'),
];
const seenRequestIds = new Set<string>();

type ApiOptions = Parameters<Harness['api']>[2];

/** A public API request (under /v1) whose response is checked against the rules of every response. */
async function call(method: string, url: string, options: ApiOptions = {}): Promise<Response> {
  return checked(method, url, await h.api(method, url, options));
}

/** The same for a path taken literally (the harness prefixes `/v1`), e.g. `/v2/suppliers`. */
async function callPath(method: string, url: string, key: string | null, body?: unknown): Promise<Response> {
  const res: LightMyRequestResponse = await h.publicApp.inject({
    method: method as 'GET',
    url,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      'idempotency-key': crypto.randomUUID(),
    },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = res.body ? JSON.parse(res.body) : undefined;
  return checked(method, url, { status: res.statusCode, headers: res.headers, body: res.body, json });
}

function checked(method: string, url: string, res: Response): Response {
  const where = `${method} ${url} → ${res.status}`;
  const requestId = res.headers['x-request-id'];
  assert.match(String(requestId), UUID, `${where}: X-Request-Id`);
  assert.ok(!seenRequestIds.has(String(requestId)), `${where}: X-Request-Id reused`);
  seenRequestIds.add(String(requestId));
  assert.equal(res.headers['cache-control'], 'no-store', `${where}: Cache-Control`);
  const cors = Object.keys(res.headers).filter((name) => name.toLowerCase().startsWith('access-control-'));
  assert.deepEqual(cors, [], `${where}: CORS headers`);
  assert.ok(res.status < 500, `${where}: ${res.body}`);
  if (res.status >= 400 && method !== 'HEAD') assertErrorShape(res, where);
  return res;
}

function assertErrorShape(res: Response, where: string): void {
  const error = res.json?.error;
  assert.ok(error, `${where}: not the error shape: ${res.body}`);
  assert.equal(ERROR_STATUS[error.code as keyof typeof ERROR_STATUS], res.status, `${where}: code/status`);
  assert.equal(typeof error.message, 'string');
  assert.equal(error.request_id, res.headers['x-request-id'], `${where}: error.request_id ≠ header`);
  for (const leak of LEAKS) assert.doesNotMatch(res.body, leak, `${where}: body leaks ${leak}`);
}

function assertCode(res: Response, status: number, code: string): void {
  assert.equal(res.status, status, res.body);
  assert.equal(res.json?.error?.code, code, res.body);
}

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
const rateHeaders = (res: Response) => RATE_HEADERS.filter((name) => res.headers[name] !== undefined);
const remaining = (res: Response) => Number(res.headers['x-ratelimit-remaining']);

const create = (body: unknown, key = ws.key) =>
  call('POST', '/suppliers', { key, body, headers: { 'idempotency-key': crypto.randomUUID() } });

describe('headers of every response (decisions 4, 5, 31; "Errors")', () => {
  test('successes and errors alike carry a unique X-Request-Id, no-store and no CORS header, also with Origin', async () => {
    const origin = { origin: 'https://browser.example' };
    const created = await create({ name: 'Headers', domain: 'headers.example' });
    assert.equal(created.status, 201);
    const readOnly = await h.workspace({ scopes: ['assessments:read'] });
    const business = await h.workspace({ plan: 'business' });
    const post = (body: unknown) =>
      call('POST', '/suppliers', {
        key: ws.key,
        body,
        headers: { ...origin, 'idempotency-key': crypto.randomUUID() },
      });
    const cases: [number, string, () => Promise<Response>][] = [
      [200, 'list', () => call('GET', '/suppliers', { key: ws.key, headers: origin })],
      [200, 'get', () => call('GET', `/suppliers/${created.json.id}`, { key: ws.key, headers: origin })],
      [201, 'create', () => post({ name: 'Created with Origin' })],
      [401, 'invalid_api_key', () => call('GET', '/suppliers', { headers: origin })],
      [403, 'insufficient_scope', () => call('GET', '/suppliers', { key: readOnly.key, headers: origin })],
      [403, 'plan_upgrade_required', () => call('GET', '/suppliers', { key: business.key, headers: origin })],
      [404, 'unknown path', () => call('GET', '/nope', { key: ws.key, headers: origin })],
      [
        404,
        'missing id',
        () => call('GET', `/suppliers/${crypto.randomUUID()}`, { key: ws.key, headers: origin }),
      ],
      [404, 'undecodable path', () => call('GET', '/suppliers/%zz', { key: ws.key, headers: origin })],
      [400, 'bad query', () => call('GET', '/suppliers?limit=0', { key: ws.key, headers: origin })],
      [
        400,
        'bad JSON',
        () =>
          call('POST', '/suppliers', {
            key: ws.key,
            rawBody: '{',
            headers: { ...origin, 'content-type': 'application/json' },
          }),
      ],
      [422, 'bad field', () => post({ name: '' })],
      [409, 'duplicate domain', () => post({ name: 'Again', domain: 'headers.example' })],
    ];
    for (const [status, label, send] of cases) assert.equal((await send()).status, status, label);
  });

  test('a client-sent X-Request-Id is not echoed: the service generates its own', async () => {
    for (const sent of ['client-chosen-id', crypto.randomUUID()]) {
      const ok = await call('GET', '/suppliers', { key: ws.key, headers: { 'x-request-id': sent } });
      assert.notEqual(ok.headers['x-request-id'], sent);
      const error = await call('GET', '/suppliers?limit=0', {
        key: ws.key,
        headers: { 'x-request-id': sent },
      });
      assert.notEqual(error.json.error.request_id, sent);
    }
  });

  test('an internal failure is a 500 internal_error with a generic body: no SQL, stack or host name', async () => {
    // The database fails with the kind of message a driver produces; none of it may reach the client.
    const original = { query: h.db.query, queryArrays: h.db.queryArrays };
    const fail = async () => {
      throw new Error(`relation "suppliers" does not exist: select * from suppliers t where t.id = $1
    at query (/srv/app/node_modules/pg/lib/client.js:526:17) on db.${hostname()}:5432`);
    };
    h.db.query = fail;
    h.db.queryArrays = fail;
    try {
      const res = await h.api('GET', '/suppliers', { key: ws.key });
      assertCode(res, 500, 'internal_error');
      assertErrorShape(res, 'GET /suppliers with a failing database');
      assert.equal(res.headers['cache-control'], 'no-store');
    } finally {
      Object.assign(h.db, original);
    }
  });
});

describe('unknown paths and methods (decisions 1, 4, 32)', () => {
  test('OPTIONS is 404 resource_not_found before authentication, without rate-limit headers, counting nothing', async () => {
    const preflight = {
      origin: 'https://browser.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    };
    const before = await call('GET', '/suppliers', { key: ws.key });
    for (const key of [null, ws.key, 'tprm_notakey']) {
      for (const url of ['/suppliers', `/suppliers/${crypto.randomUUID()}`, '/nope']) {
        const res = await call('OPTIONS', url, { key, headers: preflight });
        assertCode(res, 404, 'resource_not_found');
        assert.deepEqual(rateHeaders(res), [], `OPTIONS ${url}`);
      }
    }
    // A malformed body does not turn the 404 into a 400: nothing is read before the answer.
    const withBody = await call('OPTIONS', '/suppliers', {
      key: ws.key,
      rawBody: '{',
      headers: { 'content-type': 'application/json' },
    });
    assertCode(withBody, 404, 'resource_not_found');
    const after = await call('GET', '/suppliers', { key: ws.key });
    assert.equal(remaining(after), remaining(before) - 1, 'only the second GET counted');
  });

  test('methods and paths outside the specification are 404 in the error shape, with or without a key', async () => {
    const id = crypto.randomUUID();
    const outside: [string, string][] = [
      ['DELETE', '/v1/suppliers'],
      ['PUT', '/v1/suppliers'],
      ['PATCH', `/v1/suppliers/${id}`],
      ['POST', `/v1/suppliers/${id}`],
      ['DELETE', `/v1/suppliers/${id}`],
      ['GET', '/v1/nope'],
      ['GET', '/v2/suppliers'],
      ['GET', '/suppliers'],
      ['GET', '/'],
      ['GET', '/v1'],
      ['GET', '/v1/'],
      ['GET', '/v1//suppliers'],
      // Paths are case-sensitive (decision 32).
      ['GET', '/v1/Suppliers'],
      ['GET', '/V1/suppliers'],
      ['GET', '/v1/SUPPLIERS'],
      // Decided: no trailing-slash leniency on a collection's item path either.
      ['GET', `/v1/suppliers/${id}/`],
      // A path that cannot be percent-decoded names nothing (the router's own 400 is not used).
      ['GET', '/v1/suppliers/%zz'],
      ['GET', '/v1/%'],
    ];
    for (const [method, url] of outside) {
      for (const key of [ws.key, null]) {
        const body = method === 'GET' || method === 'DELETE' ? undefined : { name: 'x' };
        const res = await callPath(method, url, key, body);
        assertCode(res, 404, 'resource_not_found');
        // Unknown paths are answered before authentication: they count against no workspace.
        assert.deepEqual(rateHeaders(res), [], `${method} ${url}`);
      }
    }
  });

  test('a trailing slash on /v1/suppliers/ is the item route with an empty id: 401 without key, 404 with one', async () => {
    // Decided: paths are matched exactly (no trailing-slash folding); `/suppliers/` is `/suppliers/{id}`
    // with an id that is not a uuid, which decision 3 answers 404, after authentication (decision 1).
    assertCode(await call('GET', '/suppliers/'), 401, 'invalid_api_key');
    const res = await call('GET', '/suppliers/', { key: ws.key });
    assertCode(res, 404, 'resource_not_found');
    assert.deepEqual(rateHeaders(res), RATE_HEADERS);
  });

  test('HEAD behaves as GET without a body: same status and headers (decision 1)', async () => {
    const created = await create({ name: 'Head' });
    const urls = [
      '/suppliers',
      '/suppliers?limit=1',
      `/suppliers/${created.json.id}`,
      `/suppliers/${crypto.randomUUID()}`,
      '/suppliers?limit=0',
    ];
    for (const key of [ws.key, null]) {
      for (const url of urls) {
        const get = await call('GET', url, { key });
        const head = await call('HEAD', url, { key });
        assert.equal(head.status, get.status, `HEAD ${url}`);
        assert.equal(head.body, '', `HEAD ${url} has no body`);
        const names = (res: Response) =>
          Object.keys(res.headers)
            .filter((name) => name !== 'date')
            .sort();
        assert.deepEqual(names(head), names(get), `HEAD ${url} headers`);
        for (const name of ['content-type', 'content-length', 'cache-control', 'x-ratelimit-limit'])
          assert.equal(head.headers[name], get.headers[name], `HEAD ${url} ${name}`);
      }
    }
  });
});

describe('check order: 401 → 429 → 403 plan → 403 scope → 400/422 → 404 (decision 1, "Authentication")', () => {
  test('no key, or a key that is not one, is a 401 whatever else is wrong with the request', async () => {
    for (const key of [null, 'tprm_00000000_notavalidkeynotavalidkeynotavalidkeynotava', 'nope']) {
      assertCode(await call('GET', '/suppliers?limit=abc&colour=red', { key }), 401, 'invalid_api_key');
      assertCode(await call('GET', '/suppliers/not-a-uuid?colour=red', { key }), 401, 'invalid_api_key');
      assertCode(
        await call('POST', '/suppliers', {
          key,
          body: { colour: 'red' },
          headers: { 'idempotency-key': '' },
        }),
        401,
        'invalid_api_key',
      );
    }
  });

  test('a key lacking the scope gets 403 insufficient_scope naming it, even for a missing id and a malformed query', async () => {
    const reader = await h.workspace({ scopes: ['suppliers:read'] });
    const other = await h.workspace({ scopes: ['assessments:read', 'pii:read'] });
    const checks: [string, string, ApiOptions, string][] = [
      ['GET', `/suppliers/${crypto.randomUUID()}?limit=abc`, { key: other.key }, 'suppliers:read'],
      ['GET', '/suppliers/not-a-uuid?colour=red', { key: other.key }, 'suppliers:read'],
      ['GET', '/suppliers?limit=0&status=unknown', { key: other.key }, 'suppliers:read'],
      // No Idempotency-Key, invalid body: the scope is checked first.
      ['POST', '/suppliers', { key: reader.key, body: { colour: 'red' } }, 'suppliers:write'],
    ];
    for (const [method, url, options, scope] of checks) {
      const res = await call(method, url, options);
      assertCode(res, 403, 'insufficient_scope');
      assert.equal(res.json.error.details.required_scope, scope, `${method} ${url}`);
    }
  });

  test('a key of a workspace not on Enterprise gets 403 plan_upgrade_required before the scope check', async () => {
    for (const plan of ['business', 'starter'] as const) {
      const everything = await h.workspace({ plan });
      const lacking = await h.workspace({ plan, scopes: ['assessments:read'] });
      for (const key of [everything.key, lacking.key]) {
        assertCode(await call('GET', '/suppliers?limit=abc', { key }), 403, 'plan_upgrade_required');
        assertCode(
          await call('GET', `/suppliers/${crypto.randomUUID()}`, { key }),
          403,
          'plan_upgrade_required',
        );
        assertCode(await call('POST', '/suppliers', { key, body: {} }), 403, 'plan_upgrade_required');
      }
    }
  });

  test('request validation (400/422) comes before existence (404) and conflicts (409)', async () => {
    const missing = crypto.randomUUID();
    const res = await call('GET', `/suppliers/${missing}?colour=red`, { key: ws.key });
    assertCode(res, 400, 'invalid_request');
    assert.equal(res.json.error.details.parameter, 'colour');
    // A well-formed, valid request for the same id is the 404: the 400 above was not an accident.
    assertCode(await call('GET', `/suppliers/${missing}`, { key: ws.key }), 404, 'resource_not_found');
    // An invalid body naming an existing domain is a 422, not the duplicate-domain 409.
    assert.equal((await create({ name: 'Order', domain: 'order.example' })).status, 201);
    assertCode(await create({ name: '', domain: 'order.example' }), 422, 'validation_failed');
    // Idempotency-Key (400) is checked before the body (422).
    assertCode(await call('POST', '/suppliers', { key: ws.key, body: { name: '' } }), 400, 'invalid_request');
  });

  test('a path id that is not a uuid is a 404 "like a missing one", so a malformed query still wins (400)', async () => {
    const res = await call('GET', '/suppliers/not-a-uuid?colour=red', { key: ws.key });
    assertCode(res, 400, 'invalid_request');
  });

  test('a request without a valid key gets 401 even when its body is malformed', async () => {
    const bodies: [string, string | Buffer][] = [
      ['application/json', '{'],
      ['text/plain', 'name=x'],
      ['application/json', Buffer.from([0x7b, 0xff, 0x7d])],
      ['application/json', 'x'.repeat(5 * 1024 * 1024)],
    ];
    for (const [type, rawBody] of bodies) {
      const res = await call('POST', '/suppliers', {
        rawBody,
        headers: { 'content-type': type, 'idempotency-key': crypto.randomUUID() },
      });
      assertCode(res, 401, 'invalid_api_key');
    }
  });
});

describe('rate-limit headers (decisions 5, 20, 39)', () => {
  test('a 401 carries none: the workspace is unknown', async () => {
    for (const key of [null, 'tprm_notakey']) {
      const res = await call('GET', '/suppliers', { key });
      assertCode(res, 401, 'invalid_api_key');
      assert.deepEqual(rateHeaders(res), []);
    }
  });

  test('every authenticated response carries them, 4xx included, as integers', async () => {
    const reader = await h.workspace({ scopes: ['suppliers:read'] });
    const business = await h.workspace({ plan: 'business' });
    const responses = [
      await call('GET', '/suppliers', { key: ws.key }),
      await create({ name: 'Counted' }),
      await call('GET', '/suppliers?limit=0', { key: ws.key }),
      await call('GET', `/suppliers/${crypto.randomUUID()}`, { key: ws.key }),
      await create({ name: '' }),
      await call('POST', '/suppliers', { key: reader.key, body: { name: 'x' } }),
      await call('GET', '/suppliers', { key: business.key }),
    ];
    assert.deepEqual(
      responses.map((res) => res.status),
      [200, 201, 400, 404, 422, 403, 403],
    );
    for (const res of responses) {
      assert.deepEqual(rateHeaders(res), RATE_HEADERS, `${res.status}`);
      for (const name of RATE_HEADERS) assert.match(String(res.headers[name]), /^\d+$/, name);
    }
  });
});

describe('error bodies reveal nothing internal (decision 31)', () => {
  test('inputs that reach the database or the parser answer in the error shape, never with SQL or a stack', async () => {
    // Each of these once reached PostgreSQL (year 0000, a 16-hour offset) or overflowed the stack (deep JSON)
    // and answered 500; all requests of this file are also checked by `call`.
    const post = (rawBody: string) =>
      call('POST', '/suppliers', {
        key: ws.key,
        rawBody,
        headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      });
    const cases: [number, () => Promise<Response>][] = [
      [400, () => call('GET', '/suppliers?updated_since=0000-01-01T00:00:00Z', { key: ws.key })],
      [
        400,
        () =>
          call('GET', `/suppliers?updated_since=${encodeURIComponent('2024-01-01T00:00:00+16:00')}`, {
            key: ws.key,
          }),
      ],
      [
        400,
        () =>
          call('GET', `/suppliers?tag=${encodeURIComponent("x'); select pg_sleep(1); --")}&limit=x`, {
            key: ws.key,
          }),
      ],
      [400, () => post(`{"name":"x","source":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)],
      [400, () => post('{"name": select}')],
      [422, () => post('{"name":"x","domain":"drop table suppliers;--"}')],
      [404, () => call('GET', `/suppliers/${encodeURIComponent("' or 1=1 --")}`, { key: ws.key })],
    ];
    for (const [status, send] of cases) assert.equal((await send()).status, status);
  });
});

/**
 * A response written on a raw connection, in the error shape with `code`, the id of every response and
 * no-store (decisions 5, 31; risk-data-api.md "Errors").
 */
function assertRawError(res: RawResponse | undefined, status: number, code: string, where: string): void {
  assert.ok(res, `${where}: no response`);
  assert.equal(res.status, status, `${where}: ${res.body}`);
  const { error } = JSON.parse(res.body);
  assert.equal(error.code, code, where);
  assert.match(res.headers['x-request-id'] ?? '', UUID, where);
  assert.equal(error.request_id, res.headers['x-request-id'], where);
  assert.equal(res.headers['cache-control'], 'no-store', where);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', where);
}

describe('requests that arrive too slowly, and idle connections (decision P66)', () => {
  // REQUEST_TIMEOUT and KEEP_ALIVE_TIMEOUT short enough for a test; the defaults are 30 s and 5 s.
  const REQUEST_TIMEOUT_MS = 800;
  const KEEP_ALIVE_TIMEOUT_MS = 400;
  // Node looks for late requests every quarter of the timeout: closed by 1.25 × it, plus scheduling slack.
  const CLOSED_BY_MS = REQUEST_TIMEOUT_MS * 1.25 + 1000;
  let edge: Harness;
  let key: string;
  before(async () => {
    edge = await Harness.start({
      env: { REQUEST_TIMEOUT: `${REQUEST_TIMEOUT_MS}ms`, KEEP_ALIVE_TIMEOUT: `${KEEP_ALIVE_TIMEOUT_MS}ms` },
    });
    key = (await edge.workspace()).key;
  });
  after(() => edge.close());

  /**
   * Writes `text` on a new connection, then (with `trickle`) one byte of body every 100 ms, until the service
   * closes it: the statuses it answered and when it closed (at most `limitMs` after opening).
   */
  async function send(
    app: FastifyInstance,
    text: string,
    options: { trickle?: boolean; limitMs?: number } = {},
  ) {
    const connection = await rawConnection(app);
    connection.write(text);
    const timer = options.trickle ? setInterval(() => connection.write('{'), 100) : undefined;
    try {
      const { closed, afterMs, received } = await connection.closed(options.limitMs ?? CLOSED_BY_MS + 2000);
      const responses = parseResponses(received);
      const what = `${JSON.stringify(text.slice(0, 30))}: closed ${closed} after ${Math.round(afterMs)} ms, answered ${responses.map((r) => r.status)}`;
      return { closed, afterMs, responses, what };
    } finally {
      clearInterval(timer);
    }
  }

  test('headers that never end: 408 in the error shape (invalid_request), then the connection is closed', async () => {
    for (const [app, path] of [
      [edge.publicApp, '/v1/suppliers'],
      [edge.adminApp, '/healthz'],
    ] as const) {
      const sent = await send(
        app,
        `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n`,
      );
      assert.ok(sent.closed && sent.afterMs <= CLOSED_BY_MS, sent.what);
      assert.ok(sent.afterMs >= REQUEST_TIMEOUT_MS - 100, `closed early: ${sent.what}`);
      assert.equal(sent.responses.length, 1, sent.what);
      assertRawError(sent.responses[0], 408, 'invalid_request', sent.what);
    }
  });

  test('a body trickled a byte at a time: 408 within REQUEST_TIMEOUT of the first byte, on both listeners', async () => {
    const post = (path: string, auth: string) =>
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${auth}\r\n` +
      `Content-Type: application/json\r\nIdempotency-Key: ${crypto.randomUUID()}\r\nContent-Length: 100\r\n\r\n`;
    for (const [app, text] of [
      [edge.publicApp, post('/v1/suppliers', key)],
      [edge.adminApp, post('/admin/workspaces', edge.adminToken)],
    ] as const) {
      const sent = await send(app, text, { trickle: true });
      assert.ok(sent.closed && sent.afterMs <= CLOSED_BY_MS, sent.what);
      assert.equal(sent.responses.length, 1, sent.what);
      assertRawError(sent.responses[0], 408, 'invalid_request', sent.what);
    }
  });

  test('a request answered before its body arrived (a 401 without a key) is closed in bounded time, without a second response', async () => {
    const text =
      'POST /v1/suppliers HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
      'Content-Length: 100\r\n\r\n';
    for (const trickle of [false, true]) {
      const sent = await send(edge.publicApp, text, { trickle });
      assert.ok(sent.closed && sent.afterMs <= CLOSED_BY_MS, sent.what);
      assert.deepEqual(
        sent.responses.map((r) => r.status),
        [401],
        sent.what,
      );
      assertRawError(sent.responses[0], 401, 'invalid_api_key', sent.what);
    }
  });

  test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT (and the second of grace Node adds)', async () => {
    for (const [app, path] of [
      [edge.adminApp, '/healthz'],
      [edge.publicApp, '/v1/suppliers?limit=1'],
    ] as const) {
      const text = `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\n\r\n`;
      const sent = await send(app, text, { limitMs: KEEP_ALIVE_TIMEOUT_MS + 4000 });
      assert.deepEqual(
        sent.responses.map((r) => r.status),
        [200],
        sent.what,
      );
      assert.ok(sent.closed && sent.afterMs <= KEEP_ALIVE_TIMEOUT_MS + 1000 + 1000, sent.what);
    }
  });
});

describe('Host and Expect headers (RFC 9112 3.2, RFC 9110 10.1.1; decision P67)', () => {
  const listeners = () =>
    [
      ['public', h.publicApp, `GET /v1/suppliers?limit=1 HTTP/1.1\r\nAuthorization: Bearer ${ws.key}\r\n`],
      ['admin', h.adminApp, 'GET /healthz HTTP/1.1\r\n'],
    ] as const;

  test('Host sent twice, or not a host: 400 invalid_request in the error shape on both listeners', async () => {
    for (const hostLines of [
      'Host: localhost\r\nHost: localhost\r\n',
      'Host: localhost\r\nHost: evil.example\r\n',
      'Host: a b\r\n',
      'Host: [::1\r\n',
      'Host: [not-an-address]\r\n',
      'Host: \r\n',
      'Host: localhost:80a\r\n',
      'Host: a/b\r\n',
      'Host: user@localhost\r\n',
    ]) {
      for (const [listener, app, start] of listeners()) {
        const where = `${listener} ${JSON.stringify(hostLines)}`;
        const res = await rawRequest(app, `${start}${hostLines}Connection: close\r\n\r\n`);
        assertRawError(res, 400, 'invalid_request', where);
        assert.deepEqual(JSON.parse(res.body).error.details, { header: 'Host' }, where);
      }
    }
  });

  test('valid hosts are served', async () => {
    for (const host of ['localhost', '127.0.0.1:3000', '[::1]:8080', 'api.example.com', 'API.Example.com.']) {
      for (const [listener, app, start] of listeners()) {
        const res = await rawRequest(app, `${start}Host: ${host}\r\nConnection: close\r\n\r\n`);
        assert.equal(res.status, 200, `${listener} ${host}: ${res.body}`);
      }
    }
  });

  test('Expect other than 100-continue: 400 invalid_request in the error shape on both listeners, not a bare 417', async () => {
    for (const expect of ['bogus', '200-ok', 'foo=bar']) {
      for (const [listener, app, start] of listeners()) {
        const where = `${listener} Expect: ${expect}`;
        const res = await rawRequest(
          app,
          `${start}Host: localhost\r\nExpect: ${expect}\r\nConnection: close\r\n\r\n`,
        );
        assertRawError(res, 400, 'invalid_request', where);
        assert.deepEqual(JSON.parse(res.body).error.details, { header: 'Expect' }, where);
      }
    }
    // 100-continue is still honoured.
    for (const [listener, app, start] of listeners()) {
      const res = await rawRequest(
        app,
        `${start}Host: localhost\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(res.status, 200, `${listener}: ${res.body}`);
    }
  });
});

describe('request lines of an HTTP version other than 1.1 and 1.0 (decision P111)', () => {
  const listeners = () =>
    [
      ['public', h.publicApp, '/v1/suppliers?limit=1', `Authorization: Bearer ${ws.key}\r\n`],
      ['admin', h.adminApp, '/healthz', ''],
    ] as const;

  test('HTTP/2.0, HTTP/0.9 and versions Node refuses: 400 invalid_request in the error shape on both listeners, before routing', async () => {
    for (const [listener, app, path, auth] of listeners()) {
      // An unknown or undecodable path is refused for its version too, not answered 404.
      for (const target of [path, '/nope', '/v1/suppliers/%zz']) {
        for (const version of ['HTTP/2.0', 'HTTP/0.9', 'HTTP/1.2', 'HTTP/2.1', 'HTTP/3.0']) {
          const where = `${listener} GET ${target} ${version}`;
          const res = await rawRequest(
            app,
            `GET ${target} ${version}\r\nHost: localhost\r\n${auth}Connection: close\r\n\r\n`,
          );
          assertRawError(res, 400, 'invalid_request', where);
          assert.match(JSON.parse(res.body).error.message, /not valid HTTP/, where);
        }
      }
      // A request line without a version is an HTTP/0.9 request to Node.
      const bare = await rawRequest(app, `GET ${path}\r\n\r\n`);
      assertRawError(bare, 400, 'invalid_request', `${listener} GET ${path} without a version`);
      assert.match(JSON.parse(bare.body).error.message, /HTTP\/0\.9 is not supported/);
    }
  });

  test('HTTP/1.1 and HTTP/1.0 are served', async () => {
    for (const [listener, app, path, auth] of listeners()) {
      for (const version of ['HTTP/1.1', 'HTTP/1.0']) {
        const res = await rawRequest(
          app,
          `GET ${path} ${version}\r\nHost: localhost\r\n${auth}Connection: close\r\n\r\n`,
        );
        assert.equal(res.status, 200, `${listener} ${version}: ${res.body}`);
      }
    }
  });
});

describe('a body sent to a route that takes none (decision P114)', () => {
  const NO_BODY = 'This endpoint takes no request body.';
  const withId = (url: string) => url.replace(/:\w+/g, () => crypto.randomUUID()) as `/${string}`;
  // JSON that says something, JSON that does not parse, something else, bytes without a Content-Type.
  const BODIES: [string | undefined, string][] = [
    ['application/json', '{"reason":"rotated"}'],
    ['application/json', '[]'],
    ['application/json', '{'],
    ['text/plain', 'x'],
    [undefined, 'x'],
  ];
  // JSON that says nothing: a POST or DELETE that reads its body takes it; a GET never reads one.
  const EMPTY_OBJECTS = ['{}', ' { \n} '];
  const json = { 'content-type': 'application/json' };

  test('every GET of the API refuses one with 400 invalid_request, after the key and its scope are checked', async () => {
    const gets = publicOperations.filter((route) => route.method === 'GET');
    assert.ok(gets.length > 20, `${gets.length} GET routes`);
    const bodies = [...BODIES, ...EMPTY_OBJECTS.map((body) => ['application/json', body] as const)];
    for (const route of gets) {
      const url = withId(route.path);
      for (const [type, rawBody] of bodies) {
        const headers: Record<string, string> = type ? { 'content-type': type } : {};
        const res = await call('GET', url, { key: ws.key, rawBody, headers });
        assertCode(res, 400, 'invalid_request');
        assert.equal(res.json.error.message, NO_BODY, `GET ${route.path} with ${type} ${rawBody}`);
      }
    }
    const head = await call('HEAD', '/suppliers', { key: ws.key, rawBody: '{}', headers: json });
    assert.equal(head.status, 400);
    assertCode(await call('GET', '/suppliers', { rawBody: '{}', headers: json }), 401, 'invalid_api_key');
    const reader = await h.workspace({ scopes: ['assessments:read'] });
    assertCode(
      await call('GET', '/suppliers', { key: reader.key, rawBody: '{}', headers: json }),
      403,
      'insufficient_scope',
    );
    // No bytes is no body, whatever the Content-Type says.
    assert.equal((await call('GET', '/suppliers', { key: ws.key, rawBody: '', headers: json })).status, 200);
    const chunked = await rawRequest(
      h.publicApp,
      `GET /v1/suppliers HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${ws.key}\r\n` +
        'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    );
    assertRawError(chunked, 400, 'invalid_request', 'chunked GET');
    assert.equal(JSON.parse(chunked.body).error.message, NO_BODY);
  });

  /** An admin request from its own address: the missing token below counts against no other test's (P68). */
  const admin = (method: string, url: string, type: string | undefined, payload: string, token = true) =>
    h.adminApp.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(token ? { authorization: `Bearer ${h.adminToken}` } : {}),
        ...(type ? { 'content-type': type } : {}),
      },
      payload,
      remoteAddress: '192.0.2.14',
    });
  const errorOf = (res: { body: string }) => {
    const { code, message } = JSON.parse(res.body).error ?? {};
    return { code, message };
  };

  test('every admin route without a body refuses one with 400 invalid_request after the token, whatever its bytes or framing', async () => {
    const bodiless = Object.values(adminOperations).filter((route) => !route.body);
    assert.ok(
      bodiless.some((route) => route.method === 'POST') &&
        bodiless.some((route) => route.method === 'DELETE'),
      'POST actions and a DELETE among them',
    );
    for (const route of bodiless) {
      const url = `/admin${withId(route.path)}`;
      const bodies = [
        ...BODIES,
        // A GET's body is not read: an empty object is refused like any other.
        ...(route.method === 'GET' ? EMPTY_OBJECTS.map((body) => ['application/json', body] as const) : []),
      ];
      for (const [type, payload] of bodies) {
        const res = await admin(route.method, url, type, payload);
        const where = `${route.method} ${route.path} with ${type} ${payload}`;
        assert.equal(res.statusCode, 400, `${where}: ${res.body}`);
        assert.deepEqual(errorOf(res), { code: 'invalid_request', message: NO_BODY }, where);
      }
    }
    // The token is checked first: a request without one is a 401 whatever its body.
    const anonymous = await admin(
      'POST',
      `/admin/api-keys/${crypto.randomUUID()}/revoke`,
      'application/json',
      '{',
      false,
    );
    assert.equal(anonymous.statusCode, 401, anonymous.body);
    const chunked = await rawRequest(
      h.adminApp,
      `DELETE /admin/webhook-endpoints/${crypto.randomUUID()} HTTP/1.1\r\nHost: localhost\r\n` +
        `Authorization: Bearer ${h.adminToken}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
        '2\r\nxy\r\n0\r\n\r\n',
    );
    assertRawError(chunked, 400, 'invalid_request', 'chunked DELETE');
    assert.equal(JSON.parse(chunked.body).error.message, NO_BODY);
  });

  test('an admin action sent no bytes, whatever its Content-Type, or an empty JSON object, is served', async () => {
    const revoke = async (type: string | undefined, payload: string) => {
      const key = await h.key(ws.id, ws.userId, ['suppliers:read']);
      const res = await admin('POST', `/admin/api-keys/${key.id}/revoke`, type, payload);
      assert.equal(res.statusCode, 200, `${type} ${JSON.stringify(payload)}: ${res.body}`);
      assert.notEqual(JSON.parse(res.body).revoked_at, null);
    };
    await revoke('application/json', '');
    await revoke(undefined, '');
    for (const body of EMPTY_OBJECTS) await revoke('application/json', body);
    // A DELETE with an empty object reaches its handler: the endpoint does not exist.
    const gone = await admin(
      'DELETE',
      `/admin/webhook-endpoints/${crypto.randomUUID()}`,
      'application/json',
      '{}',
    );
    assert.equal(gone.statusCode, 404, gone.body);
    assert.equal(errorOf(gone).code, 'resource_not_found');
  });
});
