// Two tenants, every route (risk-data-api.md "What the service does" 3, "Authentication" 7): tenants A and B
// hold the same records except ids and a marker in free text (test/support/twin-tenants.ts), and C holds
// A's very ids. Every route is called by each tenant with every id of the others in its path and in its id
// filters, and every list with every filter; no answer may carry an id or a marker of another tenant, an id
// of another tenant is a 404 (path) or an empty result (filter), a cursor of another tenant is a 400, and C
// sees exactly what A saw before C existed, its own marker aside. Writes with the others' ids leave the
// others' rows
// byte for byte unchanged. A route or an Import collection added without coverage fails the first tests.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ApiKeyAuth, Operation } from '../../src/contract/operation.js';
import { importCollectionNames } from '../../src/management/import.js';
import { publicOperations } from '../../src/resources/operations.js';
import { type Response, useHarness } from '../support/harness.js';
import { invariantProblems, routeKey } from '../support/invariants.js';
import { createTwin, ROUTE_COVERAGE, type Tenant, TWIN_RECORDS } from '../support/twin-tenants.js';

let A: Tenant;
let B: Tenant;
let C: Tenant;
let tenants: Tenant[];
const reads = publicOperations.filter((route) => route.method === 'GET');
const writes = publicOperations.filter((route) => route.method !== 'GET');
const startedAt = new Date().toISOString();
const requests = { sent: 0 };

/** What A saw of each read before C, holding A's ids, existed: the views of A and C must not have moved. */
const seenBeforeC = new Map<string, string>();

/** Ids of a tenant's records (C's are A's): C must see through them what A saw before C existed. */
const recordIds = (tenant: Tenant) => [...tenant.ids.values()].flat();
/** The ids another tenant tries: its records', what TWIN_SETUP made, its workspace's, user's and key's. */
const probeIds = (tenant: Tenant) => [
  tenant.ws.id,
  tenant.ws.userId,
  tenant.ws.keyId,
  ...recordIds(tenant),
  ...[...tenant.made.values()].flat(),
];

const { h } = useHarness({}, async () => {
  A = await createTwin(h, 'A');
  B = await createTwin(h, 'B');
  tenants = [A, B];
  for (const route of reads)
    for (const variant of variantsOf(route, recordIds(A))) {
      const res = await h.api('GET', variant.url, { key: A.ws.key });
      requests.sent++;
      seenBeforeC.set(variant.url, asSeenByA(A, res));
    }
  C = await createTwin(h, 'C', A);
  tenants = [A, B, C];
});

const others = (caller: Tenant) => tenants.filter((tenant) => tenant !== caller);
/** An id that names something of another tenant and nothing of the caller's. */
const foreignOnly = (caller: Tenant, id: string) => !caller.allIds.has(id);

const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Ids and markers of other tenants in a response (ids the request itself carried are its own echo). */
function leaks(caller: Tenant, sent: string, res: Response): string[] {
  const found: string[] = [];
  for (const id of new Set(res.body.match(UUIDS) ?? []))
    if (foreignOnly(caller, id) && others(caller).some((t) => t.allIds.has(id)) && !sent.includes(id))
      found.push(`id ${id} of another tenant`);
  for (const other of others(caller))
    for (const marker of [other.marker, other.piiMarker, other.evidenceMarker])
      if (res.body.includes(marker)) found.push(`marker of tenant ${other.label}`);
  return found;
}

/** One request of `caller`; every problem of contract or tenancy goes to `failures`. */
async function send(
  failures: string[],
  caller: Tenant,
  method: string,
  url: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const res = await h.api(method, url, { key: caller.ws.key, ...options });
  requests.sent++;
  const sent = `${url} ${JSON.stringify(options.body ?? '')}`;
  for (const problem of [...invariantProblems(res, method), ...leaks(caller, sent, res)])
    failures.push(
      `${caller.label}: ${method} ${url} ${options.body ? JSON.stringify(options.body) : ''} → ${res.status}: ${problem}`,
    );
  return res;
}

function expect(failures: string[], caller: Tenant, what: string, ok: boolean, res: Response): void {
  if (!ok) failures.push(`${caller.label}: ${what}, got ${res.status} ${res.body.slice(0, 200)}`);
}

function settle(failures: string[]): void {
  assert.deepEqual(failures.slice(0, 25), [], `${failures.length} failures`);
}

/** The rows of a 200 body: a collection's (or what ROUTE_COVERAGE says), or the single resource itself. */
const rowsOf = (route: Operation<ApiKeyAuth>, res: Response): unknown[] =>
  (ROUTE_COVERAGE[routeKey(route)]?.rows ?? ((json) => (Array.isArray(json.data) ? json.data : [json])))(
    res.json,
  );

/** An audit entry's hashes, and the heads workspace.data_imported records (P102). */
const CHAIN_HASH_FIELDS = new Set(['hash', 'previous_hash', 'head_before', 'head_after']);

/**
 * A response of C as A would see it: C's own markers and workspace ids read as A's, cursors (bound to the
 * workspace) and request ids dropped, server-made ids and instants of this run (audit entries) blanked, and
 * the audit chain's hashes (derived from those ids and instants, P97) blanked when set.
 */
function asSeenByA(tenant: Tenant, res: Response): string {
  let text = res.body;
  const swaps: [string, string][] = [
    [tenant.marker, 'MARKER'],
    [tenant.piiMarker, 'PII'],
    [tenant.evidenceMarker, 'EVIDENCE'],
    [tenant.ws.id, 'WORKSPACE'],
    [tenant.ws.userId, 'USER'],
    [tenant.ws.keyId, 'KEY'],
  ];
  for (const [from, to] of swaps) text = text.replaceAll(from, to);
  const known = new Set(tenants.flatMap(recordIds));
  const json = text ? JSON.parse(text) : null;
  const blank = (value: unknown, key?: string): unknown => {
    if (key === 'next_cursor' || key === 'request_id') return '-';
    if (CHAIN_HASH_FIELDS.has(key as string) && typeof value === 'string') return 'HASH';
    // The OCSF form (P188): `time` is an instant in milliseconds, the chain's hashes are tags.
    if (key === 'time' && typeof value === 'number' && value >= Date.parse(startedAt)) return 'NOW';
    const tag = value as { name?: unknown; value?: unknown } | null;
    if (key === undefined && CHAIN_HASH_FIELDS.has(tag?.name as string) && typeof tag?.value === 'string')
      return { ...tag, value: 'HASH' };
    if (typeof value === 'string') {
      if (/^[0-9a-f-]{36}$/.test(value) && !known.has(value)) return 'GENERATED';
      if (/^\d{4}-\d\d-\d\dT/.test(value) && value >= startedAt) return 'NOW';
      return value;
    }
    if (Array.isArray(value)) return value.map((item) => blank(item));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, blank(v, k)]));
    return value;
  };
  return `${res.status} ${JSON.stringify(blank(json))}`;
}

type Schema = { type?: string; format?: string; enum?: unknown[]; anyOf?: Schema[] };

/** The values tried for one query parameter: every value an enum allows, every id, the fixture's strings. */
function valuesFor(name: string, schema: Schema, ids: string[]): string[] {
  if (schema.enum) return schema.enum.map(String);
  if (schema.type === 'boolean') return ['true', 'false'];
  if (schema.format === 'uuid') return ids;
  if (schema.format === 'date-time') return ['2025-01-10T00:00:00Z', startedAt];
  if (schema.type === 'integer') return ['1', '200'];
  // Free strings (tag, type, legal_basis, data_category, cve_id, status, action): the values the twins
  // share in a field of that name (tags for tag, data_categories for data_category).
  const fields = new Set([name, `${name}s`, name.replace(/y$/, 'ies')]);
  const found = new Set<string>();
  for (const records of Object.values(A.document))
    for (const record of records)
      for (const [field, value] of Object.entries(record))
        if (fields.has(field))
          for (const item of [value].flat()) if (typeof item === 'string') found.add(item);
  return found.size > 0 ? [...found] : ['x'];
}

interface Variant {
  url: string;
  /** The id the path or an id filter carries. */
  id?: string;
  idFilter?: boolean;
}

/** A read route with each of `ids` in its path, or with each filter at each of its values (one at a time). */
function variantsOf(route: Operation<ApiKeyAuth>, ids: string[]): Variant[] {
  if (route.path.includes(':id')) return ids.map((id) => ({ url: route.path.replace(':id', id), id }));
  const variants: Variant[] = [{ url: route.path }];
  const properties = (route.query?.properties ?? {}) as Record<string, Schema>;
  for (const [name, schema] of Object.entries(properties)) {
    if (name === 'cursor') continue;
    const idFilter = schema.format === 'uuid';
    for (const value of valuesFor(name, schema, ids))
      variants.push({
        url: `${route.path}?${name}=${encodeURIComponent(value)}`,
        id: idFilter ? value : undefined,
        idFilter,
      });
  }
  return variants;
}

describe('coverage', () => {
  test('every Import collection has twin records (test/support/twin-tenants.ts TWIN_RECORDS)', () => {
    assert.deepEqual(Object.keys(TWIN_RECORDS).sort(), importCollectionNames().sort());
  });

  test('every public route has an entry in ROUTE_COVERAGE, and every entry is a route', () => {
    assert.deepEqual(Object.keys(ROUTE_COVERAGE).sort(), publicOperations.map(routeKey).sort());
  });

  test('the twins overlap: same values, ids of their own (C: the ids of A)', () => {
    for (const collection of Object.keys(TWIN_RECORDS)) {
      const a = A.ids.get(collection) ?? [];
      assert.deepEqual(C.ids.get(collection) ?? [], a, collection);
      for (const id of B.ids.get(collection) ?? []) assert.ok(!A.allIds.has(id), collection);
    }
  });
});

describe('reads: every tenant, every id of the others, every filter', () => {
  for (const route of reads) {
    const coverage = ROUTE_COVERAGE[routeKey(route)] ?? {};
    test(routeKey(route), async () => {
      const failures: string[] = [];
      for (const caller of tenants) {
        // Every id of the others; C keeps the ids of A's records, which are its own too (the mirror check).
        const ids = [...new Set(others(caller).flatMap(probeIds))].filter(
          (id) => caller === C || foreignOnly(caller, id),
        );
        for (const variant of variantsOf(route, ids)) {
          const res = await send(failures, caller, 'GET', variant.url);
          if (variant.id && foreignOnly(caller, variant.id)) {
            if (variant.idFilter)
              expect(
                failures,
                caller,
                `${variant.url}: no rows`,
                res.status === 200 && rowsOf(route, res).length === 0,
                res,
              );
            else
              expect(
                failures,
                caller,
                `${variant.url}: 404`,
                res.json?.error?.code === 'resource_not_found',
                res,
              );
          }
          // Every row served is one of the caller's (a row of a fourth workspace would not show as foreign).
          if (res.status === 200)
            for (const row of rowsOf(route, res) as { id?: unknown }[])
              if (typeof row.id === 'string' && !caller.allIds.has(row.id))
                failures.push(`${caller.label}: ${variant.url} served row ${row.id}, not one of its own`);
          // C sees through A's ids what A saw before C existed (a join on id alone would add A's rows).
          const mirrored = !variant.id || recordIds(A).includes(variant.id);
          const seen = seenBeforeC.get(variant.url);
          if (caller === C && mirrored && seen !== asSeenByA(caller, res))
            failures.push(
              `${caller.label} differs from A before C on ${variant.url}:\n  ${seen}\n  ${asSeenByA(caller, res)}`,
            );
        }
      }
      // Not vacuous: each tenant sees rows of its own through this route.
      for (const caller of tenants) {
        if (coverage.pathIds) {
          const own = caller.ids.get(coverage.pathIds) ?? caller.made.get(coverage.pathIds) ?? [];
          const statuses = [];
          for (const id of own)
            statuses.push((await send(failures, caller, 'GET', route.path.replace(':id', id))).status);
          assert.ok(
            statuses.some((status) => status < 400),
            `${caller.label}: no own ${coverage.pathIds} id answers ${routeKey(route)}: ${statuses}`,
          );
        } else {
          const res = await send(failures, caller, 'GET', route.path);
          assert.ok(rowsOf(route, res).length > 0, `${caller.label} sees no row of its own: ${res.body}`);
        }
      }
      // A cursor is bound to its workspace: another tenant's is refused, never served.
      if (route.query?.properties && 'cursor' in route.query.properties) {
        for (const caller of tenants)
          for (const other of others(caller)) {
            const page = await send(failures, other, 'GET', `${route.path}?limit=1`);
            const cursor = page.json?.meta?.next_cursor;
            assert.ok(cursor, `${other.label} got no cursor from ${route.path}?limit=1`);
            const res = await send(
              failures,
              caller,
              'GET',
              `${route.path}?cursor=${encodeURIComponent(cursor)}`,
              route,
            );
            expect(
              failures,
              caller,
              `cursor of ${other.label}: 400`,
              res.json?.error?.code === 'invalid_request',
              res,
            );
          }
      }
      settle(failures);
    });
  }
});

/** Every row of every table that holds tenant data, and the workspace row: what a write must not touch. */
async function snapshot(tenant: Tenant): Promise<string> {
  const tables = await h.db.query<{ table_name: string }>(
    `select table_name from information_schema.columns
      where column_name = 'workspace_id' and table_schema = current_schema() order by table_name`,
  );
  const dump: string[] = [];
  for (const { table_name: table } of tables) {
    // last_used_at is written off the request path by any key's use: not data of the tenant's records.
    const [row] = await h.db.query<{ rows: string }>(
      `select coalesce(json_agg(x.j order by x.j), '[]')::text as rows
         from (select (to_jsonb(t) - 'last_used_at')::text as j from ${table} t where workspace_id = $1) x`,
      [tenant.ws.id],
    );
    dump.push(`${table}: ${row?.rows}`);
  }
  const [workspace] = await h.db.query<{ j: string }>(
    'select to_jsonb(w)::text as j from workspaces w where id = $1',
    [tenant.ws.id],
  );
  return [...dump, `workspace: ${workspace?.j}`].join('\n');
}

describe("writes with the others' ids leave the others untouched", () => {
  for (const route of writes) {
    const coverage = ROUTE_COVERAGE[routeKey(route)] ?? {};
    test(routeKey(route), async () => {
      assert.ok(coverage.body, `ROUTE_COVERAGE['${routeKey(route)}'] needs a body`);
      const failures: string[] = [];
      const uuidFields = Object.entries(
        (route.body as { properties?: Record<string, Schema> }).properties ?? {},
      )
        .filter(([, schema]) => schema.format === 'uuid' || schema.anyOf?.some((s) => s.format === 'uuid'))
        .map(([name]) => name);
      // A and B are mirror images, so one direction each way; C writes through the ids it shares with A.
      for (const [caller, foreign] of [
        [A, B],
        [B, A],
        [C, A],
      ] as const) {
        const untouched = others(caller);
        const before = await Promise.all(untouched.map(snapshot));
        let call = 0;
        // Idempotency keys are shared across tenants: each tenant's first use must not replay another's.
        const write = async (url: string, body: Record<string, unknown>) => {
          const headers: Record<string, string> = route.idempotent
            ? { 'idempotency-key': `${foreign.label}-${route.id}-${call++}` }
            : {};
          const res = await send(failures, caller, route.method, url, { body, headers });
          if (res.headers['idempotent-replayed'])
            failures.push(`${caller.label}: ${route.method} ${url} replayed another tenant's response`);
          return res;
        };
        const base = (coverage.body as NonNullable<typeof coverage.body>)(caller.context);
        if (route.path.includes(':id')) {
          for (const id of probeIds(foreign)) {
            const res = await write(route.path.replace(':id', id), base);
            if (foreignOnly(caller, id))
              expect(
                failures,
                caller,
                `${route.path} with ${foreign.label}'s ${id}: 404`,
                res.status === 404,
                res,
              );
          }
        } else {
          await write(route.path, base);
          for (const field of uuidFields)
            for (const id of probeIds(foreign)) {
              const res = await write(route.path, { ...base, [field]: id });
              if (foreignOnly(caller, id))
                expect(
                  failures,
                  caller,
                  `${field} = ${foreign.label}'s ${id}: 422 naming ${field}`,
                  res.status === 422 && res.json?.error?.details?.fields?.[field] !== undefined,
                  res,
                );
            }
        }
        const afterwards = await Promise.all(untouched.map(snapshot));
        untouched.forEach((tenant, index) => {
          if (afterwards[index] !== before[index])
            failures.push(
              `${caller.label} writing with ${foreign.label}'s ids changed tenant ${tenant.label}`,
            );
        });
      }
      settle(failures);
    });
  }

  test('after the writes, every list still shows each tenant only its own rows', async (t) => {
    const failures: string[] = [];
    for (const route of reads.filter((r) => !r.path.includes(':id')))
      for (const caller of tenants) await send(failures, caller, 'GET', route.path);
    settle(failures);
    t.diagnostic(`${requests.sent} requests in this file`);
  });
});
