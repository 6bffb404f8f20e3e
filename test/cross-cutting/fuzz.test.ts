// Fuzzing from the contract: requests generated from the route table (test/support/fuzz-requests.ts) against
// two tenants with overlapping data (test/support/twin-tenants.ts), every response checked for the
// invariants of the whole API: never a 5xx; the error shape, with a code that matches the status; an
// X-Request-Id; no Access-Control-* header (test/support/invariants.ts); a response that validates against
// the OpenAPI document (test/support/contract.ts, applied by the harness to every injected response: an
// undeclared status or a body off its schema throws); no id or marker of another workspace; no personal
// field without pii:read; no evidence without evidence:read.
//
// Seeded and reproducible: FUZZ_SEED (printed at the start and in every failure) and FUZZ_RUNS (requests in
// all; default 10,000 on PostgreSQL, fewer on the embedded store). Rerun one failure with the printed
// command; fast-check shrinks a failing request to a small one before reporting it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { ApiKeyAuth, Operation } from '../../src/contract/operation.js';
import { publicOperations } from '../../src/resources/operations.js';
import { SCOPES, type Scope } from '../../src/schema/fields.js';
import {
  downloadRequests,
  type FuzzCaller,
  type FuzzRequest,
  type FuzzWorld,
  routeRequests,
  strayRequests,
} from '../support/fuzz-requests.js';
import { ENGINE, type Response, useHarness } from '../support/harness.js';
import { invariantProblems, omissibleFields } from '../support/invariants.js';
import { createTwin, ROUTE_COVERAGE, type Tenant } from '../support/twin-tenants.js';

// risk-data-api.md "Authentication" 6 and "Gap": the personal fields, shown only with pii:read, and the
// evidence array, shown only with evidence:read.
const PERSONAL = ['contacts', 'email', 'onboarding_data', 'owner_name'];
const EVIDENCE = ['evidence'];

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FUZZ_RUNS ?? (ENGINE === 'postgres' ? 10_000 : 2_000));

const targets: { name: string; requests: () => fc.Arbitrary<FuzzRequest> }[] = [
  ...publicOperations.map((route) => ({
    name: `${route.method} ${route.path}`,
    requests: () => routeRequests(route, world),
  })),
  { name: 'GET /files/:token', requests: () => downloadRequests(world) },
  { name: 'paths and methods outside the API', requests: () => strayRequests(world) },
];
const runsPerTarget = Math.ceil(RUNS / targets.length);

let tenants: Tenant[];
let world: FuzzWorld;
const statuses = new Map<number, number>();

console.log(`Contract fuzz: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} (${runsPerTarget} requests per target)`);
const { h } = useHarness({}, async () => {
  const A = await createTwin(h, 'A');
  const B = await createTwin(h, 'B');
  tenants = [A, B];
  const all = new Set<string>(SCOPES);
  const without = (...scopes: string[]) => SCOPES.filter((scope) => !scopes.includes(scope));
  const keyed = async (label: string, tenant: Tenant, scopes: readonly Scope[]): Promise<FuzzCaller> => ({
    label,
    authorization: `Bearer ${(await h.key(tenant.ws.id, tenant.ws.userId, scopes)).secret}`,
    tenant,
    scopes: new Set(scopes),
    weight: 4,
  });
  const nobody = (label: string, authorization?: string | string[]): FuzzCaller => ({
    label,
    authorization,
    tenant: null,
    scopes: new Set(),
    weight: 1,
  });
  const revoked = await h.key(A.ws.id, A.ws.userId, SCOPES);
  await h.admin('POST', `/admin/api-keys/${revoked.id}/revoke`);
  const business = await h.workspace({ plan: 'business' });
  // Mostly valid keys, so requests get past authentication; a third of them without a valid key.
  const owner: FuzzCaller = {
    label: 'A all scopes',
    authorization: `Bearer ${A.ws.key}`,
    tenant: A,
    scopes: all,
    weight: 8,
  };
  const callers: FuzzCaller[] = [
    owner,
    await keyed('A without pii:read', A, without('pii:read')),
    await keyed('A without evidence:read', A, without('evidence:read')),
    await keyed(
      'A reads only',
      A,
      without('pii:read', 'evidence:read').filter((s) => s.endsWith(':read')),
    ),
    { ...(await keyed('A pii:read only', A, ['pii:read'])), weight: 1 },
    { label: 'B all scopes', authorization: `Bearer ${B.ws.key}`, tenant: B, scopes: all, weight: 4 },
    nobody('no key'),
    nobody('revoked key', `Bearer ${revoked.secret}`),
    nobody('business plan', `Bearer ${business.key}`),
    nobody('unknown key', `Bearer tprm_0123abcd_${'A'.repeat(43)}`),
    nobody('A key, wrong secret', `Bearer ${A.ws.key.slice(0, 14)}${'B'.repeat(43)}`),
    nobody('malformed key', 'Bearer not-a-key'),
    nobody('lowercase scheme', `bearer ${A.ws.key}`),
    nobody('Basic scheme', `Basic ${Buffer.from(`${A.ws.key}:`).toString('base64')}`),
    nobody('key with spaces', `Bearer  ${A.ws.key} `),
    nobody('two Authorization headers', [`Bearer ${A.ws.key}`, `Bearer ${B.ws.key}`]),
    nobody('the same key twice', [`Bearer ${A.ws.key}`, `Bearer ${A.ws.key}`]),
  ];
  const cursors: string[] = [];
  for (const route of publicOperations)
    if (route.method === 'GET' && route.query?.properties && 'cursor' in route.query.properties)
      for (const tenant of tenants) {
        const res = await h.api('GET', `${route.path}?limit=1`, { key: tenant.ws.key });
        if (res.json?.meta?.next_cursor) cursors.push(res.json.meta.next_cursor);
      }
  const downloads: string[] = [];
  for (const tenant of tenants) {
    const res = await h.api('GET', `/reports/${tenant.ids.get('reports')?.[0]}/pdf`, { key: tenant.ws.key });
    downloads.push(
      new URL(res.headers.location as string).pathname + new URL(res.headers.location as string).search,
    );
  }
  world = {
    callers,
    owner: {
      caller: owner,
      ids: [...A.allIds],
      pathIds: Object.fromEntries(
        Object.entries(ROUTE_COVERAGE).flatMap(([route, { pathIds }]) =>
          pathIds ? [[route, A.ids.get(pathIds) ?? A.made.get(pathIds) ?? []]] : [],
        ),
      ),
    },
    ids: tenants.flatMap((tenant) => [...tenant.allIds]),
    cursors,
    downloads,
  };
});

const routeMatchers = publicOperations.map((route) => ({
  route,
  pattern: new RegExp(`^/v1${route.path.replace(/:\w+/g, '[^/]+')}$`),
}));

/** The operation a request reaches (HEAD is GET without a body, decision 1). */
function operationOf(method: string, url: string): Operation<ApiKeyAuth> | 'file' | null {
  const path = url.split('?')[0] as string;
  const verb = method === 'HEAD' ? 'GET' : method;
  if (verb === 'GET' && /^\/files\/[^/]+$/.test(path)) return 'file';
  return routeMatchers.find((m) => m.route.method === verb && m.pattern.test(path))?.route ?? null;
}

function propertyNames(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) propertyNames(item, found);
  else if (value && typeof value === 'object')
    for (const [name, item] of Object.entries(value)) {
      found.add(name);
      propertyNames(item, found);
    }
  return found;
}

const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

async function send(request: FuzzRequest): Promise<Response> {
  const injected = await h.publicApp.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: request.headers,
    payload: request.payload,
  });
  let json: unknown;
  try {
    json = injected.body ? JSON.parse(injected.body) : undefined;
  } catch {
    json = undefined;
  }
  statuses.set(injected.statusCode, (statuses.get(injected.statusCode) ?? 0) + 1);
  return { status: injected.statusCode, headers: injected.headers, body: injected.body, json };
}

/** Sends one request (twice when asked); every broken invariant, as text. */
async function exchange(request: FuzzRequest): Promise<string[]> {
  const res = await send(request);
  const operation = operationOf(request.method, request.url);
  const problems = invariantProblems(res, request.method);
  if (request.repeat) {
    const again = await send(request);
    problems.push(...invariantProblems(again, request.method).map((problem) => `repeated: ${problem}`));
    // Decisions 8 and 39: a stored creation replays byte for byte; decision 34: a repeated upsert changes nothing.
    const route = operation === 'file' ? null : operation;
    if (route?.idempotent && res.status === 201)
      if (again.status !== 201 || again.body !== res.body || again.headers['idempotent-replayed'] !== 'true')
        problems.push(`the repeat was not a replay: ${again.status} ${again.body.slice(0, 200)}`);
    if (route?.id === 'upsertAssets' && res.status === 200)
      if (again.status !== 200 || again.json?.created !== 0 || again.json?.updated !== 0)
        problems.push(`a repeated upsert changed something: ${again.body.slice(0, 200)}`);
  }
  // A signed download URL is its own credential (risk-data-api.md "Reports"): whoever holds it gets the PDF.
  if (operation === 'file' && res.status === 200) return problems;
  const { caller } = request;
  const sent = `${request.url} ${request.payload?.toString() ?? ''}`;
  for (const tenant of tenants) {
    if (tenant === caller.tenant) continue;
    for (const id of new Set(res.body.match(UUIDS) ?? []))
      if (tenant.allIds.has(id) && !caller.tenant?.allIds.has(id) && !sent.includes(id))
        problems.push(`id ${id} of tenant ${tenant.label}`);
    for (const marker of [tenant.marker, tenant.piiMarker, tenant.evidenceMarker])
      if (res.body.includes(marker)) problems.push(`data of tenant ${tenant.label}`);
  }
  if (caller.tenant && !caller.scopes.has('pii:read') && res.body.includes(caller.tenant.piiMarker))
    problems.push('personal data without pii:read');
  if (caller.tenant && !caller.scopes.has('evidence:read') && res.body.includes(caller.tenant.evidenceMarker))
    problems.push('evidence without evidence:read');
  if (res.status < 300) {
    const names = propertyNames(res.json);
    const hidden = [
      ...(caller.scopes.has('pii:read') ? [] : PERSONAL),
      ...(caller.scopes.has('evidence:read') ? [] : EVIDENCE),
    ];
    for (const name of hidden) if (names.has(name)) problems.push(`field ${name} without its scope`);
  }
  return problems.map((problem) => `${res.status}: ${problem} (${res.body.slice(0, 300)})`);
}

test('the fields a response may omit are the personal fields and the evidence, nothing else', () => {
  assert.deepEqual(omissibleFields(publicOperations), [...PERSONAL, ...EVIDENCE].sort());
});

for (const target of targets) {
  test(target.name, async () => {
    try {
      await fc.assert(
        fc.asyncProperty(target.requests(), async (request) => {
          const problems = await exchange(request);
          if (problems.length > 0) throw new Error(problems.join('\n'));
        }),
        { seed: SEED, numRuns: runsPerTarget },
      );
    } catch (error) {
      (error as Error).message =
        `Rerun: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} npm test -- fuzz (test "${target.name}")\n${(error as Error).message}`;
      throw error;
    }
  });
}

test('the run reached every kind of answer, so no invariant held for want of responses', (t) => {
  const seen = Object.fromEntries([...statuses].sort(([a], [b]) => a - b));
  t.diagnostic(
    `FUZZ_SEED=${SEED}: ${[...statuses.values()].reduce((a, b) => a + b, 0)} responses ${JSON.stringify(seen)}`,
  );
  // Below 1,000 requests the rarer answers (302, 409) may not come up.
  const expected = RUNS >= 1000 ? [200, 201, 302, 400, 401, 403, 404, 409, 422] : [200, 400, 401];
  for (const status of expected) assert.ok(statuses.has(status), `no ${status} in ${JSON.stringify(seen)}`);
});
