// The OpenAPI document (developer-experience issue "OpenAPI 3.1"; decision 4): generated from the route tables,
// valid for an independent validator, complete (every route with its scope, both risk-matrix row shapes and
// both alert scopes, the errors the pipeline produces), with examples that match their own schemas, committed
// as openapi.json without drift, and served without a key at GET /openapi.json. The contract check that every
// test response obeys the document lives in support/contract.ts; its own failures are tested here. Examples
// are seed records and a create's is the API's own answer (P88); the description states the limits and the
// webhook retry schedule, and every operation's code samples run against the service (P89).
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import addFormatsModule from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { EventTypes } from '../../src/contract/events.js';
import { isUuid } from '../../src/http/validation.js';
import { adminOperations } from '../../src/management/admin-operations.js';
import { importCollectionNames } from '../../src/management/import.js';
import { adminDocumentText } from '../../src/openapi/admin-document.js';
import { apiDocumentText } from '../../src/openapi/document.js';
import { exampleOf } from '../../src/openapi/examples.js';
import { REFERENCE_FILES, referenceOperations } from '../../src/openapi/reference-operations.js';
import { EXAMPLE_SEED } from '../../src/openapi/seed-samples.js';
import { openOperations, publicOperations } from '../../src/resources/operations.js';
import { generateSeedDocument } from '../../src/seed/index.js';
import { adminContract, contract } from '../support/contract.js';
import { assertError, Harness, type TestWorkspace, useHarness } from '../support/harness.js';
import { freePort } from '../support/redis.js';

const ROOT = new URL('../../../', import.meta.url);
const SDK_DIR = new URL('sdk/', ROOT).pathname;

const committedText = () => readFileSync(new URL('openapi.json', ROOT), 'utf8');
// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
type Json = any;
const document: Json = JSON.parse(apiDocumentText());
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

const adminDocument: Json = JSON.parse(adminDocumentText());
const operations = () => operationsOf(document);
/** A `#/…` reference of the public document followed to its target. */
const deref = (value: Json): Json => derefIn(document, value);

/** The operations of a document. */
const operationsOf = (doc: Json): { path: string; method: string; operation: Json }[] =>
  Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] })),
  );

/** A `#/…` reference of `doc` followed to its target. */
function derefIn(doc: Json, value: Json): Json {
  if (!value?.$ref) return value;
  const target = (value.$ref as string)
    .slice(2)
    .split('/')
    .reduce((node: Json, segment) => node[segment.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
  return derefIn(doc, target);
}

/** Checks every example of every operation of `doc` against its schema, in place; the number checked. */
function checkExamples(doc: Json): number {
  const require = createRequire(import.meta.url);
  const { default: Ajv2020 } = require('ajv/dist/2020.js');
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as typeof addFormatsModule.default)(ajv, [
    'date-time',
    'date',
    'email',
    'uri',
  ]);
  ajv.addFormat('uuid', { validate: isUuid });
  ajv.addSchema(doc, 'openapi');
  let checked = 0;
  const checkMedia = (media: Json, where: string) => {
    if (!media.schema) return;
    const values =
      'example' in media
        ? [media.example]
        : Object.values((media.examples ?? {}) as Record<string, Json>).map((example) => example.value);
    assert.ok(values.length > 0, `${where} has an example`);
    const validate = ajv.compile({ $ref: `openapi#${pointerOf(media.schema)}` });
    for (const value of values) {
      assert.ok(validate(value), `${where}: ${JSON.stringify(validate.errors)}`);
      checked++;
    }
  };
  // Schemas are checked in place: inline ones through their position in the document.
  const pointers = new Map<Json, string>();
  const index = (value: Json, pointer: string) => {
    if (!value || typeof value !== 'object') return;
    pointers.set(value, pointer);
    for (const [key, child] of Object.entries(value))
      index(child, `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  };
  index(doc, '');
  const pointerOf = (schema: Json) => pointers.get(schema) as string;
  for (const { operation } of operationsOf(doc)) {
    const id = operation.operationId;
    if (operation.requestBody)
      checkMedia(operation.requestBody.content['application/json'], `${id} request body`);
    for (const [status, reference] of Object.entries(operation.responses as Record<string, Json>)) {
      for (const [type, media] of Object.entries(
        (derefIn(doc, reference).content ?? {}) as Record<string, Json>,
      ))
        checkMedia(media, `${id} ${status} ${type}`);
    }
  }
  return checked;
}

const { h, ws } = useHarness({ workspaces: ['ws'] });

describe('the document', () => {
  test('is a valid OpenAPI 3.1 document for @apidevtools/swagger-parser', async () => {
    const api = await SwaggerParser.validate(structuredClone(document), { resolve: { external: false } });
    assert.equal((api as Json).openapi, '3.1.0');
    assert.equal(document.info.version, '1.0.0', 'risk-data-api.md "Versioning" 1');
    assert.deepEqual(
      document.servers.map((server: Json) => server.url),
      ['/v1'],
    );
  });

  test('has every route of the table, with its scope, and the public routes outside /v1 without one', () => {
    const byId = new Map(operations().map((entry) => [entry.operation.operationId, entry]));
    assert.equal(
      byId.size,
      publicOperations.length + openOperations.length + referenceOperations.length,
      'one operation per contract',
    );
    for (const route of publicOperations) {
      const entry = byId.get(route.id);
      assert.ok(entry, route.id);
      assert.equal(entry.path, route.path.replace(/:(\w+)/g, '{$1}'));
      assert.equal(entry.method, route.method.toLowerCase());
      assert.equal(entry.operation['x-required-scope'], route.auth.scope);
      assert.deepEqual(entry.operation.security, [{ bearerAuth: [route.auth.scope] }]);
      assert.match(entry.operation.description, new RegExp(`\`${route.auth.scope}\``));
      for (const status of ['400', '401', '403', '429', '500'])
        assert.ok(entry.operation.responses[status], `${route.id} declares ${status}`);
      if (route.path.includes(':')) assert.ok(entry.operation.responses['404'], `${route.id} 404`);
      if (route.body) assert.ok(entry.operation.responses['422'], `${route.id} 422`);
      if (route.idempotent) {
        assert.ok(entry.operation.responses['409'], `${route.id} 409`);
        const key = entry.operation.parameters.find((p: Json) => p.name === 'Idempotency-Key');
        assert.equal(key?.in, 'header');
        assert.equal(key?.required, true);
        assert.equal(key?.schema.maxLength, 255);
      }
      const tooMany = deref(entry.operation.responses['429']);
      assert.equal(deref(tooMany.headers['Retry-After']).required, true, 'risk-data-api.md "Errors": 429');
    }
    for (const route of [...openOperations, ...referenceOperations]) {
      const entry = byId.get(route.id);
      assert.ok(entry, route.id);
      assert.deepEqual(entry.operation.security, [], `${route.id} needs no key`);
      assert.equal(document.paths[entry.path].servers[0].url, '/', 'outside /v1');
    }
    assert.equal(document.components.securitySchemes.bearerAuth.scheme, 'bearer');
  });

  test('has both risk-matrix row shapes and both alert scopes, discriminated by scope', () => {
    const schemas = document.components.schemas;
    const shapes = (name: string) => {
      const { oneOf, discriminator } = schemas[name];
      assert.equal(discriminator.propertyName, 'scope');
      return Object.fromEntries(
        oneOf.map((branch: Json) => [deref(branch).properties.scope.enum[0], branch.$ref as string]),
      );
    };
    const matrix = shapes('RiskMatrixRow');
    assert.deepEqual(matrix, {
      cyber: '#/components/schemas/RiskMatrixCyberRow',
      organizational: '#/components/schemas/RiskMatrixOrganizationalRow',
    });
    assert.deepEqual(schemas.RiskMatrixRow.discriminator.mapping, matrix);
    assert.ok(
      schemas.RiskMatrixCyberRow.properties.asset_id && !schemas.RiskMatrixCyberRow.properties.category,
    );
    assert.ok(schemas.RiskMatrixOrganizationalRow.properties.category);
    const alerts = shapes('AlertRow');
    assert.deepEqual(alerts, {
      supplier: '#/components/schemas/SupplierAlert',
      org: '#/components/schemas/OrgAlert',
    });
    assert.deepEqual(schemas.AlertRow.discriminator.mapping, alerts);
    assert.equal(schemas.OrgAlert.properties.supplier_id.type, 'null');
    const matrixPage = document.paths['/risk-matrix'].get.responses['200'].content['application/json'].schema;
    assert.equal(matrixPage.properties.data.items.$ref, '#/components/schemas/RiskMatrixRow');
    const alertPage = document.paths['/alerts'].get.responses['200'].content['application/json'].schema;
    assert.equal(alertPage.properties.data.items.$ref, '#/components/schemas/AlertRow');
  });

  test('every error response uses the one Error shape', () => {
    for (const { operation } of operations()) {
      for (const [status, reference] of Object.entries(operation.responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        const schema = deref(reference).content['application/json'].schema;
        assert.equal(schema.$ref, '#/components/schemas/Error', `${operation.operationId} ${status}`);
      }
    }
    assert.deepEqual(document.components.schemas.Error.properties.error.required, [
      'code',
      'message',
      'request_id',
    ]);
  });

  test('says of every object schema whether it admits other fields', () => {
    const open: string[] = [];
    const walk = (value: Json, path: string) => {
      if (!value || typeof value !== 'object' || /\/examples?(\/|$)/.test(path)) return;
      if (value.type === 'object' && value.properties && value.additionalProperties === undefined)
        open.push(path);
      for (const [key, child] of Object.entries(value)) walk(child, `${path}/${key}`);
    };
    walk(document, '#');
    assert.deepEqual(open, []);
  });

  test('describes the delivery of each event type under webhooks, with an example of its payload', () => {
    assert.deepEqual(Object.keys(document.webhooks).sort(), [...EventTypes].sort());
    for (const type of EventTypes) {
      const { post } = document.webhooks[type];
      assert.deepEqual(post.security, [], `${type}: the receiver is not called with an API key`);
      assert.equal(post.parameters[0].name, 'Service-Signature');
      const media = post.requestBody.content['application/json'];
      const schema = deref(media.schema);
      assert.deepEqual(schema.properties.type.enum, [type]);
      assert.deepEqual(schema.required, ['event_id', 'type', 'occurred_at', 'organization_id', 'data']);
      // The example is a payload of its type; real deliveries are checked in sdk.test.ts.
      contract().checkEvent(media.example);
    }
  });

  test('every operation has examples, and each matches its own schema', () => {
    const checked = checkExamples(document);
    assert.ok(checked > 100, `${checked} examples checked`);
  });
});

describe('openapi.json', () => {
  test('is the document the code generates (no drift), and the check fails when it differs', async () => {
    assert.equal(committedText(), apiDocumentText(), 'run `npm run openapi` and commit openapi.json');
    const script = new URL('scripts/openapi.mjs', ROOT).pathname;
    const ok = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    const stale = await mkdtemp(join(tmpdir(), 'openapi-'));
    writeFileSync(
      join(stale, 'openapi.json'),
      committedText().replace('"Third-party risk data API"', '"Renamed"'),
    );
    writeFileSync(join(stale, 'openapi.admin.json'), adminDocumentText());
    const drift = spawnSync(process.execPath, [script, '--check', stale], { encoding: 'utf8' });
    assert.equal(drift.status, 1);
    assert.match(drift.stderr, /openapi\.json is out of date/);
    assert.match(drift.stdout, /openapi\.admin\.json matches/);
  });

  test('GET /openapi.json is served without a key and equals the committed file', async () => {
    const res = await h.api('GET', '/openapi.json', { key: null });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.body, committedText());
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.ok(isUuid(String(res.headers['x-request-id'])));
    // A key is neither needed nor looked at: no rate-limit headers.
    const withKey = await h.api('GET', '/openapi.json', { key: ws.key });
    assert.equal(withKey.headers['x-ratelimit-limit'], undefined);
    assertError(await h.api('GET', '/v1/openapi.json', { key: ws.key }), 404, 'resource_not_found');
  });

  test('GET /docs is served without a key, with a policy that lets the page load only its own files', async () => {
    const res = await h.api('GET', '/docs');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const policy = String(res.headers['content-security-policy']);
    assert.match(policy, /default-src 'none'/);
    for (const directive of policy.split('; ').filter((d) => !d.startsWith('img-src')))
      assert.doesNotMatch(directive, /https?:|\*/, directive);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    for (const src of res.body.match(/(?:src|href)="[^"]+"/g) ?? [])
      assert.match(src, /="(\/docs\/|data:)/, `${src} is local`);
    for (const file of REFERENCE_FILES) {
      const asset = await h.api('GET', `/docs/${file}`);
      assert.equal(asset.status, 200, file);
    }
    // The bundle as served names no other origin (its one such URL, the Redocly logo, is replaced).
    const bundle = await h.api('GET', '/docs/redoc.standalone.js');
    assert.doesNotMatch(bundle.body, /cdn\.redoc\.ly/);
    assertError(await h.api('GET', '/docs/index.html'), 404, 'resource_not_found');
    assertError(await h.api('GET', '/docs/constructor'), 404, 'resource_not_found');
  });

  test('the document and the page files carry an ETag; a conditional GET naming it is a 304 without a body, still no-store (decisions 31, P69)', async () => {
    const tags = new Set<string>();
    const paths = ['/openapi.json', '/docs', ...REFERENCE_FILES.map((file) => `/docs/${file}`)];
    for (const path of paths) {
      const first = await h.api('GET', path);
      const tag = String(first.headers.etag);
      assert.match(tag, /^"[\w-]{16,}"$/, `${path}: ETag`);
      assert.equal((await h.api('GET', path)).headers.etag, tag, `${path}: the same file, the same tag`);
      tags.add(tag);
      for (const ifNoneMatch of [tag, `W/${tag}`, `"other", ${tag}`, '*']) {
        const again = await h.api('GET', path, { headers: { 'if-none-match': ifNoneMatch } });
        assert.equal(again.status, 304, `${path} If-None-Match: ${ifNoneMatch}`);
        assert.equal(again.body, '');
        assert.equal(again.headers.etag, tag);
        assert.equal(again.headers['cache-control'], 'no-store');
        assert.ok(isUuid(String(again.headers['x-request-id'])));
      }
      const changed = await h.api('GET', path, { headers: { 'if-none-match': '"an-older-copy"' } });
      assert.equal(changed.status, 200, path);
      assert.equal(changed.body, first.body, path);
      assert.equal(changed.headers['cache-control'], 'no-store', path);
    }
    assert.equal(tags.size, paths.length, 'each file has its own tag');
  });
});

describe('openapi.admin.json (the management listener)', () => {
  test('is valid OpenAPI 3.1 for @apidevtools/swagger-parser and has one operation per admin route', async () => {
    const api = await SwaggerParser.validate(structuredClone(adminDocument), {
      resolve: { external: false },
    });
    assert.equal((api as Json).openapi, '3.1.0');
    const documented = Object.entries(adminDocument.paths as Record<string, Json>).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map(
        (method) => `${method.toUpperCase()} ${path} ${item[method].operationId}`,
      ),
    );
    const declared = Object.entries(adminOperations).map(
      ([operationId, operation]) =>
        `${operation.method} /admin${operation.path.replace(/:(\w+)/g, '{$1}')} ${operationId}`,
    );
    for (const operation of declared) assert.ok(documented.includes(operation), `${operation} is documented`);
    assert.equal(
      documented.length,
      declared.length + 6,
      'the admin routes plus the 3 probes, the document, its page and the page files',
    );
  });

  test('is committed without drift and served at GET /openapi.json on the admin listener, without the token', async () => {
    const committed = readFileSync(new URL('openapi.admin.json', ROOT), 'utf8');
    assert.equal(committed, adminDocumentText(), 'run `npm run openapi` and commit openapi.admin.json');
    const res = await h.admin('GET', '/openapi.json', undefined, null);
    assert.equal(res.status, 200);
    assert.equal(res.body, committed);
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  test('its reference page and the page files are served on the admin listener without the token (P120)', async () => {
    const page = await h.admin('GET', '/docs', undefined, null);
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /management reference/);
    const publicPage = await h.api('GET', '/docs');
    assert.equal(page.headers['content-security-policy'], publicPage.headers['content-security-policy']);
    for (const file of REFERENCE_FILES) {
      const admin = await h.admin('GET', `/docs/${file}`, undefined, null);
      assert.equal(admin.status, 200, file);
      assert.equal(admin.body, (await h.api('GET', `/docs/${file}`)).body, `${file}: the public listener's`);
    }
    const tag = String(page.headers.etag);
    const again = await h.adminApp.inject({ method: 'GET', url: '/docs', headers: { 'if-none-match': tag } });
    assert.equal(again.statusCode, 304);
    assertError(await h.admin('GET', '/docs/index.html', undefined, null), 404, 'resource_not_found');
  });
});

describe('examples are demo records, samples run, the publisher is named (P121, P122)', () => {
  const documents = { 'openapi.json': document, 'openapi.admin.json': adminDocument };

  test('no example of either document is a placeholder: no "Example …" text, no dummy 42', () => {
    for (const [name, doc] of Object.entries(documents)) {
      const placeholders: string[] = [];
      const walk = (value: Json, path: string, inExample: boolean) => {
        if (value && typeof value === 'object') {
          for (const [key, child] of Object.entries(value))
            walk(child, `${path}/${key}`, inExample || key === 'example' || key === 'examples');
        } else if (inExample && ((typeof value === 'string' && /\bExample\b/.test(value)) || value === 42))
          placeholders.push(`${path}: ${JSON.stringify(value)}`);
      };
      walk(doc, '#', false);
      assert.deepEqual(placeholders, [], name);
    }
  });

  test('the examples of the management document match their schemas too', () => {
    const checked = checkExamples(adminDocument);
    assert.ok(checked > 60, `${checked} examples checked`);
  });

  test('a field that neither a demo record nor its schema gives a value fails the build, not a placeholder', () => {
    const note = { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] };
    assert.throws(() => exampleOf(note, { minimal: true }), /no example for "note"/);
    const count = { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] };
    assert.throws(() => exampleOf(count, { minimal: true }), /no example for "count"/);
    assert.deepEqual(exampleOf(note, { minimal: true, record: { note: 'Checked by Grace' } }), {
      note: 'Checked by Grace',
    });
  });

  test('the management document shows the demo set-up: the ids of its paths are those of its examples', () => {
    const workspace =
      adminDocument.paths['/admin/workspaces/{id}'].get.responses['200'].content['application/json'].example;
    assert.equal(workspace.name, 'Demo workspace');
    const users = adminDocument.paths['/admin/workspaces/{id}/users'];
    assert.match(
      users.get['x-codeSamples'][0].source,
      new RegExp(`/admin/workspaces/${workspace.id}/users"`),
    );
    const key =
      adminDocument.paths['/admin/workspaces/{id}/api-keys'].post.responses['201'].content['application/json']
        .example;
    assert.match(key.secret, /^tprm_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/, 'a key of the real form');
    assert.equal(key.secret.slice(0, 13), key.prefix);
  });

  test('both documents name their contact and license', () => {
    for (const [name, doc] of Object.entries(documents)) {
      assert.deepEqual(Object.keys(doc.info.contact).sort(), ['email', 'name', 'url'], name);
      assert.match(doc.info.license.name, /Proprietary/, name);
      assert.equal(doc.info.license.identifier, 'LicenseRef-Proprietary', name);
    }
  });

  test('every operation of the management document has a curl sample, with the token where one is needed', () => {
    for (const { path, operation } of operationsOf(adminDocument)) {
      const samples = operation['x-codeSamples'] as { lang: string; label: string; source: string }[];
      assert.deepEqual(
        samples.map((sample) => sample.label),
        ['curl'],
        operation.operationId,
      );
      const source = samples[0]?.source ?? '';
      assert.match(source, /^curl /, operation.operationId);
      const concrete = path.replace(/\{\w+\}/g, '[^"/]+');
      assert.match(source, new RegExp(`"\\$ADMIN_URL${concrete}"`), `${operation.operationId}: ${source}`);
      const open = Array.isArray(operation.security) && operation.security.length === 0;
      assert.equal(source.includes('Bearer $ADMIN_TOKEN'), !open, operation.operationId);
    }
  });
});

describe('the contract check of test responses', () => {
  const copy = (
    res: LightMyRequestResponse,
    changes: { body?: string; headers?: Json; statusCode?: number },
  ) =>
    ({
      ...res,
      statusCode: changes.statusCode ?? res.statusCode,
      headers: changes.headers ?? res.headers,
      body: changes.body ?? res.body,
      rawPayload: Buffer.from(changes.body ?? res.body),
    }) as LightMyRequestResponse;
  const rejects = (method: string, url: string, res: LightMyRequestResponse, problem: RegExp) =>
    assert.throws(() => contract().check(method, url, res), problem);

  test('refuses an undeclared field, a missing field, an undeclared status or a missing header', async () => {
    await h.import(ws.id, { suppliers: [{ name: 'Acme' }] });
    const url = '/v1/suppliers';
    const res = await h.publicApp.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${ws.key}` },
    });
    assert.equal(res.statusCode, 200);
    contract().check('GET', url, res);
    const page = JSON.parse(res.body);
    const [supplier] = page.data;
    const extra = { ...page, data: [{ ...supplier, internal_score: 3 }] };
    rejects(
      'GET',
      url,
      copy(res, { body: JSON.stringify(extra) }),
      /listSuppliers.*200.*additional properties/s,
    );
    const { name: _name, ...missing } = supplier;
    const noName = { ...page, data: [missing] };
    rejects('GET', url, copy(res, { body: JSON.stringify(noName) }), /required property 'name'/);
    rejects('GET', url, copy(res, { statusCode: 204 }), /status 204 is not declared/);
    const { 'x-request-id': _id, ...headers } = res.headers;
    rejects('GET', url, copy(res, { headers }), /required header X-Request-Id/);
  });

  test('refuses rate-limit headers on a 401, and anything but the NotFound response on an unknown path', async () => {
    const refused = await h.api('GET', '/suppliers');
    assert.equal(refused.status, 401);
    const unauthorized = await h.publicApp.inject({ method: 'GET', url: '/v1/suppliers' });
    rejects(
      'GET',
      '/v1/suppliers',
      copy(unauthorized, { headers: { ...unauthorized.headers, 'x-ratelimit-limit': '60' } }),
      /header x-ratelimit-limit is not declared/,
    );
    const unknown = await h.publicApp.inject({ method: 'GET', url: '/v1/nothing-here' });
    assert.equal(unknown.statusCode, 404);
    rejects('GET', '/v1/nothing-here', copy(unknown, { statusCode: 200 }), /outside the document/);
  });
  test('checks the admin listener against its own document', async () => {
    const url = `/admin/workspaces/${ws.id}`;
    const res = await h.adminApp.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${h.adminToken}` },
    });
    assert.equal(res.statusCode, 200);
    adminContract().check('GET', url, res);
    const refuses = (changed: LightMyRequestResponse, problem: RegExp) =>
      assert.throws(() => adminContract().check('GET', url, changed), problem);
    refuses(copy(res, { statusCode: 418 }), /getWorkspace.*status 418 is not declared/);
    refuses(copy(res, { body: JSON.stringify({ ...res.json(), secret: 'x' }) }), /additional properties/);
  });
});

describe('examples from the seed generator, the limits in the description, code samples (P88, P89)', () => {
  let own: Harness;
  let origin: string;
  let seeded: TestWorkspace;
  const seed = generateSeedDocument(EXAMPLE_SEED);
  const exampleOfOperation = (path: string, method: string, status: string) =>
    deref(document.paths[path][method].responses[status]).content['application/json'].example;

  before(async () => {
    // A service of its own, on a port known in advance: the signed PDF URL names PUBLIC_BASE_URL.
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    own = await Harness.start({ env: { PUBLIC_BASE_URL: origin } });
    await own.publicApp.listen({ port, host: '127.0.0.1' });
    seeded = await own.workspace();
    const known = new Set(importCollectionNames());
    const imported = await own.import(
      seeded.id,
      Object.fromEntries(Object.entries(seed).filter(([name]) => known.has(name))),
    );
    assert.equal(imported.status, 200, imported.body);
  });
  after(() => own.close());

  test('a resource example is its seed record as the API serves it', async () => {
    const example = exampleOfOperation('/suppliers/{id}', 'get', '200');
    assert.equal(example.id, seed.suppliers?.[0]?.id);
    const served = await own.api('GET', `/suppliers/${example.id}`, { key: seeded.key });
    assert.equal(served.status, 200);
    // Every field but the count, which the example cannot know, is what the API answers for that record.
    const { assessment_count: _count, ...stored } = served.json;
    const { assessment_count: _example, ...shown } = example;
    assert.deepEqual(shown, stored);
  });

  test('the 201 of POST /suppliers is what the API answers to the request example: pending, source import', async () => {
    const request = document.paths['/suppliers'].post.requestBody.content['application/json'].example;
    const example = exampleOfOperation('/suppliers', 'post', '201');
    assert.deepEqual([example.status, example.source, example.is_active], ['pending', 'import', false]);
    const created = await own.api('POST', '/suppliers', {
      key: seeded.key,
      body: request,
      headers: { 'idempotency-key': randomUUID() },
    });
    assert.equal(created.status, 201);
    // Only the id and the timestamps differ from one create to the next.
    const varying = ['id', 'created_at', 'updated_at'];
    const without = (body: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(body).filter(([key]) => !varying.includes(key)));
    assert.deepEqual(without(example), without(created.json));
    assert.deepEqual(Object.keys(example), Object.keys(created.json));
  });

  test('the description states the three rate-limit windows and the webhook retry schedule', () => {
    const text: string = document.info.description;
    // risk-data-api.md "Limits" and decision 21.
    assert.match(text, /60 requests per second, 600 per minute and 5000 per hour/);
    assert.match(text, /`GET \/reports\/\{id\}\/pdf` also 60 requests per hour/);
    assert.match(text, /retried after\s+1 min, 5 min, 30 min, 2 h and 6 h \(6 attempts in all/);
    assert.match(text, /`Retry-After`/);
  });

  // The curl samples run in bash and call curl, od, tr and xargs: without one of them, this test skips.
  const missing = ['bash', 'curl', 'od', 'tr', 'xargs'].filter(
    (command) => spawnSync('sh', ['-c', `command -v ${command}`]).status !== 0,
  );
  test('every operation has a curl sample and every /v1 operation an SDK sample; each runs against the service', {
    skip: missing.length > 0 ? `not installed: ${missing.join(', ')}` : false,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tprm-samples-'));
    // curl fails on an error status (exit 22), quietly but for the error.
    writeFileSync(join(dir, '.curlrc'), '--fail-with-body\n--silent\n--show-error\n');
    mkdirSync(join(dir, 'node_modules', '@tprm'), { recursive: true });
    symlinkSync(SDK_DIR, join(dir, 'node_modules', '@tprm', 'client'), 'dir');
    const env = { ...process.env, CURL_HOME: dir, TPRM_API_URL: `${origin}/v1`, TPRM_API_KEY: seeded.key };
    const report = seed.reports?.[0]?.id as string;
    assert.equal((await own.admin('POST', `/admin/reports/${report}/render`, {})).status, 200);

    let ran = 0;
    for (const { path, operation } of operations()) {
      const samples = operation['x-codeSamples'] as { lang: string; label: string; source: string }[];
      const labels = samples.map((sample) => sample.label);
      const open = document.paths[path].servers !== undefined;
      assert.deepEqual(labels, open ? ['curl'] : ['curl', 'SDK'], operation.operationId);
      // The signed-URL download cannot be named in advance: its sample is the PDF operation's second step.
      if (path === '/files/{token}') continue;
      for (const sample of samples) {
        const where = `${operation.operationId} (${sample.label})`;
        // Asynchronous: the service answering the sample runs in this process.
        const [command, args] =
          sample.label === 'curl'
            ? ['bash', ['-o', 'pipefail', '-c', sample.source]]
            : (() => {
                const file = join(dir, `${operation.operationId}.mjs`);
                // TypeScript that is plain JavaScript too: it runs as an ES module (top-level await) as it is.
                writeFileSync(file, sample.source);
                return [process.execPath, [file]];
              })();
        const run = await new Promise<{ code: number | null; output: string }>((resolve) => {
          execFile(
            command as string,
            args as string[],
            { cwd: dir, env, timeout: 30_000, maxBuffer: 2 ** 26 },
            (error, out, err) =>
              resolve({
                code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
                output: `${err}${out}`,
              }),
          );
        });
        assert.equal(run.code, 0, `${where}: ${run.output.slice(0, 800)}`);
        ran++;
      }
    }
    assert.equal(readFileSync(join(dir, 'download')).subarray(0, 5).toString('latin1'), '%PDF-');
    assert.ok(ran >= 50, `${ran} samples ran`);
  });
});
