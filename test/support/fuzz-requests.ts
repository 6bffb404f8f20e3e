// Requests generated from the route table for test/cross-cutting/fuzz.test.ts: the RouteDef query and body schemas (JSON
// Schema) give valid values, and each part of a request may instead be hostile — path ids that are not
// uuids or belong to another tenant, wrong query values, tampered and foreign cursors, bodies of the wrong
// type with unknown fields, huge and empty strings, NUL, lone surrogates, invalid UTF-8, deep nesting,
// numbers at the edges, wrong content types, duplicate Authorization headers, odd Idempotency-Keys.
import fc from 'fast-check';
import type { RouteDef } from '../../src/http/route.js';
import type { Tenant } from './twin-tenants.js';

/** Who sends a request, and therefore what it may see. */
export interface FuzzCaller {
  label: string;
  /** The Authorization header (several values: sent repeated), or none. */
  authorization?: string | string[];
  /** The tenant whose data the caller may see; null: nobody's. */
  tenant: Tenant | null;
  scopes: ReadonlySet<string>;
  /** How often the caller is drawn, relative to the others. */
  weight: number;
}

/** What the generators draw from: the callers, and ids, cursors and download URLs that exist. */
export interface FuzzWorld {
  callers: FuzzCaller[];
  /**
   * The caller of well-formed requests, holding every scope, its own ids, and by route (`METHOD /url`) the
   * ids of the records its path names.
   */
  owner: { caller: FuzzCaller; ids: string[]; pathIds: Record<string, string[]> };
  ids: string[];
  cursors: string[];
  /** Signed download paths (`/files/…?expires=…&signature=…`). */
  downloads: string[];
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: string | Buffer;
  caller: FuzzCaller;
  /** Sent twice in a row: a write must then replay (POST) or change nothing (PUT). */
  repeat: boolean;
}

type Schema = {
  type?: string;
  format?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
};

const MiB = 1024 * 1024;
const enc = encodeURIComponent;
const clip = (text: string, length = 300) =>
  text.length > length ? `${text.slice(0, length)}… (${text.length} chars)` : text;

/** A request as a failure report shows it (fast-check prints values through this method). */
function described(request: FuzzRequest): FuzzRequest {
  return Object.assign(request, {
    [fc.toStringMethod]: () => {
      const payload =
        request.payload === undefined
          ? 'no body'
          : Buffer.isBuffer(request.payload)
            ? `bytes ${clip(request.payload.toString('hex'), 120)} (${request.payload.length} bytes)`
            : clip(JSON.stringify(request.payload));
      const headers = Object.entries(request.headers)
        .map(([name, value]) => `${name}: ${clip(JSON.stringify(value), 120)}`)
        .join(', ');
      const times = request.repeat ? ' (sent twice)' : '';
      return `[${request.caller.label}] ${request.method} ${clip(request.url)} {${headers}} ${payload}${times}`;
    },
  });
}

// ------------------------------------------------------------------------------------------------ values

const instant = fc
  .date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true })
  .chain((date) =>
    fc.constantFrom(
      date.toISOString(),
      date.toISOString().replace('Z', '+02:00'),
      date.toISOString().replace(/\.\d+Z$/, '.123456Z'),
      date.toISOString().slice(0, 19).concat('Z'),
      // A leap second, lowercase separators, many fractional digits: valid RFC 3339 that Date.parse may not read.
      date.toISOString().slice(0, 17).concat('60Z'),
      date.toISOString().toLowerCase(),
      date.toISOString().replace(/\.\d+Z$/, '.1234567890123Z'),
    ),
  );

const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\udc00\ud800',
  '\u202e\u200b',
  '日本語',
  '😀',
  '<script>alert(1)</script>',
  "' or 1=1 --",
  '$ws',
  '$1',
  '%s%n',
  '../../etc/passwd',
];

/** Values of any type that are wrong somewhere: edges of numbers, huge and odd strings, nesting. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    ...HOSTILE_STRINGS,
    null,
    true,
    false,
    0,
    -0,
    1e308,
    -1e308,
    5e-324,
    2 ** 53 + 1,
    -(2 ** 53 + 1),
    2 ** 31,
    1.5,
    -1,
    [],
    {},
    [null],
    { '': '' },
    'x'.repeat(10_000),
    'x'.repeat(MiB),
  ),
  fc.jsonValue({ maxDepth: 3 }),
  fc.integer({ min: 1, max: 70 }).map((depth) => nested(depth)),
);

function nested(depth: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** A valid value of a JSON Schema (as TypeBox writes them), drawing ids from the world. */
function validValue(schema: Schema, world: FuzzWorld): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((branch) => validValue(branch, world)));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({
        min: schema.minimum ?? -1e9,
        max: schema.maximum ?? 1e9,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string':
      return validString(schema, world);
    case 'array': {
      const items = validValue(schema.items ?? {}, world);
      const constraints = { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) };
      return schema.uniqueItems
        ? fc.uniqueArray(items, { ...constraints, selector: (item) => JSON.stringify(item) })
        : fc.array(items, constraints);
    }
    case 'object': {
      if (schema.properties) {
        const model = Object.fromEntries(
          Object.entries(schema.properties).map(([name, property]) => [name, validValue(property, world)]),
        );
        return fc.record(model, { requiredKeys: schema.required ?? [] });
      }
      return fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function validString(schema: Schema, world: FuzzWorld): fc.Arbitrary<string> {
  const maxLength = Math.min(schema.maxLength ?? 40, 40);
  switch (schema.format) {
    case 'uuid':
      return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...world.ids) }, fc.uuid());
    case 'date-time':
      return instant;
    case 'date':
      return instant.map((value) => value.slice(0, 10));
    case 'email':
      return fc.emailAddress().filter((email) => email.length <= (schema.maxLength ?? 254));
  }
  // The one pattern of the route schemas is a domain name.
  if (schema.pattern) return fc.domain().filter((domain) => domain.length <= (schema.maxLength ?? 253));
  const strings = fc.string({
    unit: fc.oneof(fc.constantFrom('a', 'Z', '0', '-', ' '), fc.string({ unit: 'grapheme', maxLength: 1 })),
    minLength: schema.minLength ?? 0,
    maxLength: Math.max(maxLength, schema.minLength ?? 0),
  });
  if (schema.maxLength === undefined) return strings;
  // At the limit in characters and four times that in bytes (what an index entry or a column holds).
  const longest = fc
    .constantFrom('😀', '\u{10FFFF}', 'e\u0301')
    .map((unit) => [...unit.repeat(schema.maxLength as number)].slice(0, schema.maxLength).join(''));
  return fc.oneof({ weight: 5, arbitrary: strings }, { weight: 1, arbitrary: longest });
}

// ---------------------------------------------------------------------------------------------- the parts

const PATH_IDS = [
  '',
  'x',
  'null',
  '0',
  '-1',
  '%00',
  '%zz',
  '%ED%A0%80',
  '%FF',
  '..%2F..%2Fetc%2Fpasswd',
  enc('日本'),
  'x'.repeat(2049),
  'x'.repeat(3000),
  '00000000-0000-0000-0000-000000000000',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  'urn:uuid:00000000-0000-0000-0000-000000000000',
  '{id}',
  '%20',
];

function pathId(world: FuzzWorld): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...world.ids) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 2, arbitrary: fc.constantFrom(...PATH_IDS) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }).map(enc) },
  );
}

/** Query values that are wrong for some parameter, already percent-encoded. */
const HOSTILE_QUERY = [
  '',
  '%20',
  '-0',
  '0',
  '-1',
  '201',
  '1e308',
  '1e2',
  '0x10',
  '9007199254740993',
  'NaN',
  'Infinity',
  'true%20',
  'TRUE',
  '2024-02-30',
  '2024-13-01T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '2024-01-01T00:00:00%2B16:00',
  '9999-12-31T23:59:59.999999Z',
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%FF',
  '%C0%AF',
  '%zz',
  enc('日本'),
  enc('😀'),
  'x'.repeat(3000),
  enc("' or 1=1 --"),
  '%5B%5D',
  'a%26b%3Dc',
];

function cursor(world: FuzzWorld): fc.Arbitrary<string> {
  const real = fc.constantFrom(...world.cursors);
  return fc
    .oneof(
      { weight: 3, arbitrary: real },
      {
        weight: 2,
        arbitrary: fc.tuple(real, fc.nat()).map(([value, n]) => {
          const at = n % value.length;
          const flipped = value[at] === 'A' ? 'B' : 'A';
          return [
            `${value.slice(0, at)}${flipped}${value.slice(at + 1)}`,
            value.slice(0, at),
            `${value}.x`,
            value.split('.').reverse().join('.'),
          ][n % 4] as string;
        }),
      },
      { weight: 1, arbitrary: fc.constantFrom('a.b', '.', 'W10.AAAA', 'x'.repeat(2049)) },
      { weight: 1, arbitrary: fc.base64String({ maxLength: 60 }) },
    )
    .map(enc);
}

function queryValue(name: string, schema: Schema, world: FuzzWorld): fc.Arbitrary<string> {
  if (name === 'cursor') return cursor(world);
  if (schema.enum) return fc.constantFrom(...schema.enum.map(String));
  if (schema.type === 'boolean') return fc.constantFrom('true', 'false');
  if (schema.type === 'integer')
    return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1000 }).map(String);
  return validString(schema, world).map(enc);
}

const EXTRA_QUERY = [
  'offset=10',
  'page=2',
  '__proto__=x',
  'constructor=x',
  'toString=x',
  'hasOwnProperty=x',
  'organization_id=00000000-0000-0000-0000-000000000000',
  'limit=1&limit=2',
  'cursor',
  '=x',
  '&&',
  'a[b]=c',
  'limit[]=1',
  'limit=%00',
];

function query(route: RouteDef | null, world: FuzzWorld): fc.Arbitrary<string> {
  const properties = (route?.query?.properties ?? {}) as Record<string, Schema>;
  const parts = Object.entries(properties).map(([name, schema]) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 3, arbitrary: queryValue(name, schema, world).map((value) => `${name}=${value}`) },
      { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_QUERY).map((value) => `${name}=${value}`) },
    ),
  );
  const extra = fc.oneof(
    { weight: 6, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom(...EXTRA_QUERY) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }))
        .map(([name, value]) => `${enc(name)}=${enc(value)}`),
    },
  );
  return fc.tuple(fc.tuple(...parts), extra).map(([values, more]) => {
    const text = [...values, more].filter((part) => part !== null).join('&');
    return text ? `?${text}` : '';
  });
}

/** Raw bodies that no JSON parser should turn into a 500. Built once: some weigh megabytes. */
const RAW_BODIES: (string | Buffer)[] = [
  Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
  Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
  Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
  Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]),
  Buffer.concat([Buffer.from('{"name":"x'), Buffer.from([0xe2, 0x82]), Buffer.from('"}')]),
  '{"name":',
  '{"name":"x",}',
  "{'name':'x'}",
  'null',
  '[]',
  '"x"',
  '1',
  'true',
  '',
  '   ',
  '\ufeff{"name":"BOM"}',
  '{"name":"x"}{"name":"y"}',
  '{"name":NaN}',
  '{"name":"x","validity_days":1e999,"score":-1e999}',
  '{"name":"x","validity_days":-0,"supplier_id":"00000000-0000-0000-0000-000000000000"}',
  '{"name":"x","validity_days":9007199254740993,"assessment_type":"self"}',
  '{"status":"completed","note":-0}',
  '{"__proto__":{"polluted":true},"name":"x"}',
  '{"constructor":{"prototype":{"polluted":true}},"name":"x"}',
  '{"name":"a","name":"b"}',
  '{"name":"\\u0000"}',
  '{"name":"\\ud800"}',
  '{"name":"\\udc00\\ud800"}',
  '{"name":"x" /* comment */}',
  '['.repeat(10_000),
  `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
  `{"name":"${'x'.repeat(4 * MiB - 100)}"}`,
  `{"name":"${'x'.repeat(4 * MiB)}"}`,
  `{"assets":[${Array.from({ length: 600 }, () => '{}').join(',')}],"source":"manual"}`,
];

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'application/json;charset=UTF-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
  'application/json-patch+json',
  'application/json, text/plain',
  '*/*',
  '',
];

/** A body: valid, valid with one field made hostile, or raw bytes; with a content type that may be wrong. */
function body(route: RouteDef | null, world: FuzzWorld) {
  const schema = route?.body as Schema | undefined;
  const json = schema ? validValue(schema, world) : fc.jsonValue({ maxDepth: 2 });
  const keys = Object.keys(schema?.properties ?? {});
  const mutated = fc
    .tuple(
      json,
      fc.constantFrom(...keys, 'unknown_field', '__proto__', 'constructor', 'id', 'workspace_id', 'source'),
      hostileValue,
    )
    .map(([value, key, hostile]) =>
      value !== null && typeof value === 'object' && !Array.isArray(value)
        ? Object.defineProperty({ ...value }, key, { value: hostile, enumerable: true })
        : hostile,
    );
  // One item of an array field (PUT /assets) made hostile, the others valid.
  const itemMutated = fc.tuple(json, hostileValue).map(([value, hostile]) => {
    const record = value as Record<string, unknown>;
    const [arrayField] = Object.entries(record ?? {}).find(([, item]) => Array.isArray(item)) ?? [];
    return arrayField ? { ...record, [arrayField]: [...(record[arrayField] as unknown[]), hostile] } : record;
  });
  const payload = fc.oneof(
    {
      weight: route?.method === 'GET' || !route ? 1 : 5,
      arbitrary: json.map((value) => JSON.stringify(value)),
    },
    { weight: 5, arbitrary: mutated.map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: itemMutated.map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_BODIES) },
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const withBody = fc.record({ payload, contentType });
  const none = fc.record({ payload: fc.constant(undefined), contentType: fc.constant(undefined) });
  return route?.body
    ? fc.oneof({ weight: 12, arbitrary: withBody }, { weight: 1, arbitrary: none })
    : fc.oneof({ weight: 8, arbitrary: none }, { weight: 1, arbitrary: withBody });
}

const IDEMPOTENCY_KEYS = [
  '',
  ' ',
  'x'.repeat(255),
  'x'.repeat(256),
  'k'.repeat(10_000),
  'clé-€-日本',
  'a\u0001b',
  'tab\tkey',
  '\u007f',
  'a,b',
  'shared-key-1',
  'shared-key-2',
];

function headers(world: FuzzWorld) {
  return fc.record({
    caller: fc.oneof(
      ...world.callers.map((caller) => ({ weight: caller.weight, arbitrary: fc.constant(caller) })),
    ),
    idempotencyKey: fc.oneof(
      { weight: 6, arbitrary: fc.uuid() },
      { weight: 3, arbitrary: fc.constantFrom<string | undefined>(undefined, ...IDEMPOTENCY_KEYS) },
    ),
    origin: fc.option(fc.constant('https://evil.example'), { freq: 8 }),
    requestId: fc.option(fc.constant('client-chosen-id'), { freq: 8 }),
    repeat: twice,
  });
}

const twice = fc.oneof(
  { weight: 7, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);

function assemble(
  method: string,
  url: string,
  parts: {
    caller: FuzzCaller;
    idempotencyKey?: string;
    origin: string | null;
    requestId: string | null;
    repeat: boolean;
  },
  content: { payload?: string | Buffer; contentType?: string },
): FuzzRequest {
  const headers: Record<string, string | string[]> = {};
  if (parts.caller.authorization !== undefined) headers.authorization = parts.caller.authorization;
  if (parts.idempotencyKey !== undefined) headers['idempotency-key'] = parts.idempotencyKey;
  if (parts.origin) headers.origin = parts.origin;
  if (parts.requestId) headers['x-request-id'] = parts.requestId;
  if (content.contentType !== undefined) headers['content-type'] = content.contentType;
  return described({
    method,
    url,
    headers,
    payload: content.payload,
    caller: parts.caller,
    repeat: parts.repeat,
  });
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

/**
 * Requests aimed at one route. A third are well formed (the owner's key, its ids, valid query values and
 * body), so that success bodies get checked against their schema; the others may be hostile anywhere.
 */
export function routeRequests(route: RouteDef, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const withId = (id: string) => `/v1${route.url.replace(/:\w+/g, id)}`;
  const properties = Object.entries((route.query?.properties ?? {}) as Record<string, Schema>).filter(
    ([name]) => name !== 'cursor',
  );
  const wellFormed = fc
    .tuple(
      fc
        .constantFrom(...(world.owner.pathIds[`${route.method} ${route.url}`] ?? world.owner.ids))
        .map(withId),
      fc.tuple(
        ...properties.map(([name, schema]) =>
          fc.option(
            queryValue(name, schema, { ...world, ids: world.owner.ids }).map((v) => `${name}=${v}`),
            {
              freq: 2,
            },
          ),
        ),
      ),
      route.body
        ? validValue(route.body as Schema, { ...world, ids: world.owner.ids })
        : fc.constant(undefined),
      fc.uuid(),
      twice,
    )
    .map(([path, values, json, idempotencyKey, repeat]) => {
      const search = values.filter((value) => value !== null).join('&');
      return assemble(
        route.method,
        `${path}${search ? `?${search}` : ''}`,
        { caller: world.owner.caller, idempotencyKey, origin: null, requestId: null, repeat },
        json === undefined ? {} : { payload: JSON.stringify(json), contentType: 'application/json' },
      );
    });
  const method = fc.oneof(
    { weight: 12, arbitrary: fc.constant(route.method) },
    { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
  );
  const hostile = fc
    .tuple(method, pathId(world).map(withId), query(route, world), headers(world), body(route, world))
    .map(([verb, where, search, parts, content]) => assemble(verb, `${where}${search}`, parts, content));
  return fc.oneof({ weight: 1, arbitrary: wellFormed }, { weight: 2, arbitrary: hostile });
}

/** The signed download: issued URLs, then tampered, expired-looking, truncated or duplicated parameters. */
export function downloadRequests(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const url = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...world.downloads) },
    {
      weight: 3,
      arbitrary: fc.tuple(fc.constantFrom(...world.downloads), fc.nat()).map(([issued, n]) => {
        const [path, search = ''] = issued.split('?');
        const token = (path as string).slice('/files/'.length);
        const at = n % token.length;
        const tampered = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
        return [
          `/files/${tampered}?${search}`,
          `${path}?${search.replace(/expires=\d+/, 'expires=9999999999')}`,
          `${path}?${search.replace(/&signature=.*/, '')}`,
          `${path}?${search}&expires=1`,
          `${path}?${search}&signature=x`,
          `${path}`,
          `/files/${token.slice(0, at)}?${search}`,
        ][n % 7] as string;
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.string({ maxLength: 60 }), fc.string({ maxLength: 20 }), fc.string({ maxLength: 50 }))
        .map(
          ([token, expires, signature]) =>
            `/files/${enc(token) || 'x'}?expires=${enc(expires)}&signature=${enc(signature)}`,
        ),
    },
    { weight: 1, arbitrary: fc.constantFrom(...PATH_IDS).map((token) => `/files/${token}`) },
  );
  const method = fc.oneof(
    { weight: 10, arbitrary: fc.constant('GET') },
    { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
  );
  return fc
    .tuple(method, url, headers(world), body(null, world))
    .map(([verb, where, parts, content]) => assemble(verb, where, parts, content));
}

const STRAY_PATHS = [
  '/',
  '/v1',
  '/v1/',
  '/v2/suppliers',
  '/V1/suppliers',
  '/v1/Suppliers',
  '/v1/suppliers/x/y',
  '/v1/suppliers/00000000-0000-0000-0000-000000000000/',
  '/v1//suppliers',
  '/v1/suppliers%2F',
  '/v1/webhooks',
  '/v1/controls',
  '/v1/organizations',
  '/admin/workspaces',
  '/metrics',
  '/healthz',
  '/files',
  '/files/',
  '/%zz',
  '/v1/%00',
];

/** Paths and methods outside the specification (decision 4). */
export function strayRequests(world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const path = fc.oneof(
    fc.constantFrom(...STRAY_PATHS),
    fc
      .array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 4 })
      .map((segments) => `/v1/${segments.map(enc).join('/')}`),
  );
  return fc
    .tuple(fc.constantFrom(...METHODS), path, query(null, world), headers(world), body(null, world))
    .map(([verb, where, search, parts, content]) => assemble(verb, `${where}${search}`, parts, content));
}
