// risk-data-api.md "Risks" (scope risks:read for all), resources.md "Risk", "Risk treatment", "Risk scores",
// "Risk matrix row", "Risk acceptance letter"; decisions 2, 15, 36, 37, 38, 40, 42.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { TSchema } from 'typebox';
import { checker } from '../../src/http/validation.js';
import { risksOperations } from '../../src/resources/risks/operations.js';
import { generateSeedDocument } from '../../src/seed/index.js';
import { assertError, type Response, type TestWorkspace, useHarness } from '../support/harness.js';

let ws: TestWorkspace;
let other: TestWorkspace;

const { h } = useHarness({}, async () => {
  [ws, other] = await Promise.all([h.workspace(), h.workspace({ name: 'Other' })]);
});

type Rec = Record<string, unknown>;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const BASE = Date.UTC(2024, 0, 1);

let counter = 0;
/** A risk record of the import document; every risk gets a fresh code and a later created_at. */
function risk(overrides: Rec = {}): Rec {
  counter += 1;
  return {
    id: randomUUID(),
    code: `R-${String(counter).padStart(4, '0')}`,
    title: `Risk ${counter}`,
    description: 'A risk.',
    risk_type: 'organizational',
    status: 'open',
    category: 'technological',
    source_domain: 'vendor',
    supplier_id: null,
    likelihood: 2,
    impact: 3,
    financial_exposure: 1000,
    created_at: iso(BASE + counter * 1000),
    ...overrides,
  };
}
const supplier = (overrides: Rec = {}): Rec => ({ id: randomUUID(), name: 'Supplier', ...overrides });

const get = (path: string, key = ws.key) => h.api('GET', path, { key });
const ids = (res: Response): string[] => res.json.data.map((row: Rec) => row.id);
const sorted = (values: unknown[]) => [...values].map(String).sort();

/** The shape of a response answered in one piece (risk-data-api.md "Limits": has_more false). */
function assertOneResponse(res: Response, featureStatus = 'available'): void {
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.meta.has_more, false);
  assert.equal(res.json.meta.next_cursor, null);
  assert.equal(res.json.meta.feature_status, featureStatus);
  if (featureStatus === 'available') assert.equal('message' in res.json.meta, false);
  else assert.equal(typeof res.json.meta.message, 'string');
}

async function expect400(path: string, parameter: string, key = ws.key): Promise<void> {
  const res = await get(path, key);
  assertError(res, 400, 'invalid_request');
  assert.equal(res.json.error.details?.parameter, parameter, `${path}: ${res.body}`);
}

async function walk(path: string, key = ws.key): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res = await get(`${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`, key);
    assert.equal(res.status, 200, res.body);
    seen.push(...ids(res));
    cursor = res.json.meta.next_cursor;
    assert.equal(res.json.meta.has_more, cursor !== null);
  } while (cursor);
  return seen;
}

describe('scope risks:read', () => {
  test('every risks endpoint needs risks:read (403 insufficient_scope names it)', async () => {
    const narrow = await h.workspace({ scopes: ['suppliers:read', 'pii:read'] });
    for (const path of [
      '/risks',
      `/risks/${randomUUID()}/treatments`,
      '/risk-scores',
      '/risk-matrix',
      '/risk-acceptances',
    ]) {
      const res = await get(path, narrow.key);
      assertError(res, 403, 'insufficient_scope');
      assert.equal(res.json.error.details.required_scope, 'risks:read', path);
    }
  });

  test('a key revoked behind the auth cache gets 401 on every endpoint, never an empty 200', async () => {
    const own = await h.workspace();
    const r = risk();
    await h.import(own.id, { risks: [r] });
    const paths = [
      '/risks',
      `/risks/${r.id}/treatments`,
      '/risk-scores',
      '/risk-matrix',
      '/risk-acceptances',
    ];
    for (const path of paths) {
      // A key per endpoint: a 401 drops the key from the cache, which would spare the next endpoint the test.
      const key = await h.key(own.id, own.userId, ['risks:read']);
      assert.equal((await get(path, key.secret)).status, 200, path);
      // Revoked in the database only, so the next request authenticates from the cache (storage/tenant.ts).
      await h.db.query('update api_keys set revoked_at = now() where id = $1', [key.id]);
      assertError(await get(path, key.secret), 401, 'invalid_api_key');
    }
  });
});

describe('GET /risks', () => {
  let mine: TestWorkspace;
  let supplierId: string;
  let records: Rec[];

  before(async () => {
    mine = await h.workspace();
    supplierId = randomUUID();
    records = [
      risk({ supplier_id: supplierId, source_domain: 'vendor' }),
      risk({ risk_type: 'operational', status: 'treated', category: 'legal', source_domain: 'privacy' }),
      risk({ status: 'closed', category: 'human', source_domain: 'human' }),
      risk({ risk_type: 'operational', source_domain: 'cyber', supplier_id: supplierId }),
      risk({ status: 'accepted', category: 'brand' }),
    ];
    await h.import(mine.id, { suppliers: [supplier({ id: supplierId })], risks: records });
  });

  test('a page of risks, newest first, with score, band and currency', async () => {
    const res = await get('/risks', mine.key);
    assert.equal(res.status, 200);
    assert.equal(res.json.currency, 'USD');
    assert.deepEqual(ids(res), records.map((r) => r.id).reverse());
    const first = res.json.data.at(-1);
    assert.deepEqual(Object.keys(first).sort(), [
      'asset_id',
      'band',
      'category',
      'code',
      'created_at',
      'description',
      'financial_exposure',
      'id',
      'impact',
      'likelihood',
      'risk_type',
      'score',
      'source_domain',
      'status',
      'supplier_id',
      'threat_id',
      'title',
      'updated_at',
    ]);
    assert.equal(first.score, 6);
    assert.equal(first.band, 'medium');
    assert.equal(first.supplier_id, supplierId);
    assert.equal(first.financial_exposure, 1000);
    assert.equal(first.asset_id, null);
  });

  test('each filter narrows the list to the matching risks', async () => {
    const cases: [string, string][] = [
      ['risk_type', 'operational'],
      ['status', 'treated'],
      ['category', 'legal'],
      ['source_domain', 'privacy'],
      ['supplier_id', supplierId],
    ];
    for (const [name, value] of cases) {
      const expected = records.filter((r) => r[name] === value).map((r) => r.id);
      // The data set makes every filter matter: some but not all risks match.
      assert.ok(expected.length > 0 && expected.length < records.length, name);
      const res = await get(`/risks?${name}=${value}`, mine.key);
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(sorted(ids(res)), sorted(expected), name);
    }
  });

  test("another workspace's supplier_id gives an empty list, not an error", async () => {
    const theirs = randomUUID();
    await h.import(other.id, {
      suppliers: [supplier({ id: theirs })],
      risks: [risk({ supplier_id: theirs })],
    });
    const res = await get(`/risks?supplier_id=${theirs}`, mine.key);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.data, []);
    assert.equal(res.json.meta.feature_status, 'available');
    // ...and that workspace's risks never show in this one.
    const all = await get('/risks', mine.key);
    assert.deepEqual(sorted(ids(all)), sorted(records.map((r) => r.id)));
  });

  test('malformed filters are 400 invalid_request naming the parameter (decision 2)', async () => {
    const cases: [string, string][] = [
      ['risk_type=strategic', 'risk_type'],
      ['status=OPEN', 'status'],
      ['category=weather', 'category'],
      ['source_domain=supplier', 'source_domain'],
      ['supplier_id=123', 'supplier_id'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=forged', 'cursor'],
      ['band=high', 'band'],
    ];
    for (const [query, parameter] of cases) await expect400(`/risks?${query}`, parameter, mine.key);
  });

  test('cursor pages walk every risk once, newest first; a cursor is bound to its filters', async () => {
    assert.deepEqual(await walk('/risks?limit=2', mine.key), records.map((r) => r.id).reverse());
    const page = await get('/risks?limit=1', mine.key);
    const cursor = encodeURIComponent(page.json.meta.next_cursor);
    await expect400(`/risks?limit=1&status=open&cursor=${cursor}`, 'cursor', mine.key);
  });

  test('band boundaries: low ≤ 4 < medium ≤ 9 < high ≤ 16 < critical', async () => {
    const band = await h.workspace();
    const pairs: [number, number, number, string][] = [
      [2, 2, 4, 'low'],
      [1, 5, 5, 'medium'],
      [3, 3, 9, 'medium'],
      [2, 5, 10, 'high'],
      [4, 4, 16, 'high'],
      [4, 5, 20, 'critical'],
    ];
    await h.import(band.id, { risks: pairs.map(([likelihood, impact]) => risk({ likelihood, impact })) });
    const res = await get('/risks', band.key);
    const seen = res.json.data.map((r: Rec) => [r.likelihood, r.impact, r.score, r.band]).reverse();
    assert.deepEqual(seen, pairs);
    // No likelihood × impact equals 17: the 16/17 edge is checked on the one SQL definition of the band.
    const [edge] = await h.db.query<{ b16: string; b17: string }>(
      'select risk_band(16) as b16, risk_band(17) as b17',
    );
    assert.deepEqual(edge, { b16: 'high', b17: 'critical' });
  });

  test('an import ignores score and band (computed, decision 42)', async () => {
    const own = await h.workspace();
    await h.import(own.id, { risks: [risk({ likelihood: 5, impact: 5, score: 3, band: 'low' })] });
    const [row] = (await get('/risks', own.key)).json.data;
    assert.equal(row.score, 25);
    assert.equal(row.band, 'critical');
  });

  test('an import rejects repeated codes, foreign suppliers and out-of-range levels (422)', async () => {
    const own = await h.workspace();
    await h.import(own.id, { risks: [risk({ code: 'R-TAKEN' })] });
    const foreign = randomUUID();
    await h.import(other.id, { suppliers: [supplier({ id: foreign })] });
    const res = await h.admin('POST', `/admin/workspaces/${own.id}/import`, {
      risks: [
        risk({ code: 'R-TAKEN' }),
        risk({ code: 'R-TWICE' }),
        risk({ code: 'R-TWICE' }),
        risk({ supplier_id: foreign }),
      ],
    });
    assertError(res, 422, 'validation_failed');
    assert.deepEqual(Object.keys(res.json.error.details.fields).sort(), [
      'risks[0].code',
      'risks[2].code',
      'risks[3].supplier_id',
    ]);
    const levels = await h.admin('POST', `/admin/workspaces/${own.id}/import`, {
      risks: [risk({ likelihood: 6, impact: 0 })],
    });
    assertError(levels, 422, 'validation_failed');
    assert.deepEqual(Object.keys(levels.json.error.details.fields).sort(), [
      'risks[0].impact',
      'risks[0].likelihood',
    ]);
  });
});

describe('GET /risks/{id}/treatments', () => {
  let riskId: string;
  let treatments: Rec[];

  before(async () => {
    riskId = randomUUID();
    const sibling = randomUUID();
    // More than the default page size of 50: the list is not paged, so every one comes back.
    treatments = Array.from({ length: 60 }, (_, k) => ({
      id: randomUUID(),
      risk_id: riskId,
      strategy: 'mitigate',
      description: `Step ${k}`,
      status: 'planned',
      cost: 250.5,
      due_date: '2025-06-30',
      created_at: iso(BASE + k * 1000),
    }));
    await h.import(ws.id, {
      risks: [risk({ id: riskId }), risk({ id: sibling })],
      risk_treatments: [...treatments, { risk_id: sibling, strategy: 'avoid' }],
    });
  });

  test('every treatment of the risk in one response, newest first, plus currency', async () => {
    const res = await get(`/risks/${riskId}/treatments`);
    assertOneResponse(res);
    assert.equal(res.json.currency, 'USD');
    assert.deepEqual(ids(res), treatments.map((t) => t.id).reverse());
    assert.deepEqual(res.json.data[0], {
      id: treatments[59]?.id,
      risk_id: riskId,
      strategy: 'mitigate',
      description: 'Step 59',
      status: 'planned',
      cost: 250.5,
      due_date: '2025-06-30',
      created_at: '2024-01-01T00:00:59.000000Z',
      updated_at: '2024-01-01T00:00:59.000000Z',
    });
  });

  test('a risk without treatments: empty data, feature_status not_configured with a message', async () => {
    const bare = risk();
    await h.import(ws.id, { risks: [bare] });
    const res = await get(`/risks/${bare.id}/treatments`);
    assertOneResponse(res, 'not_configured');
    assert.deepEqual(res.json.data, []);
    assert.equal(res.json.currency, 'USD');
  });

  test("another workspace's risk, an unknown id and a non-uuid are 404", async () => {
    const theirs = risk();
    await h.import(other.id, {
      risks: [theirs],
      risk_treatments: [{ risk_id: theirs.id, strategy: 'transfer' }],
    });
    assert.equal((await get(`/risks/${theirs.id}/treatments`, other.key)).json.data.length, 1);
    for (const id of [theirs.id, randomUUID(), 'not-a-uuid'])
      assertError(await get(`/risks/${id}/treatments`), 404, 'resource_not_found');
  });

  test('takes no query parameter: cursor and limit are 400 (decision 40)', async () => {
    await expect400(`/risks/${riskId}/treatments?cursor=abc`, 'cursor');
    await expect400(`/risks/${riskId}/treatments?limit=10`, 'limit');
    await expect400(`/risks/${riskId}/treatments?status=planned`, 'status');
  });

  test('an import rejects a treatment of a risk of another workspace (422)', async () => {
    const theirs = risk();
    await h.import(other.id, { risks: [theirs] });
    const res = await h.admin('POST', `/admin/workspaces/${ws.id}/import`, {
      risk_treatments: [{ risk_id: theirs.id, strategy: 'mitigate' }],
    });
    assertError(res, 422, 'validation_failed');
    assert.ok('risk_treatments[0].risk_id' in res.json.error.details.fields);
  });
});

describe('GET /risk-scores', () => {
  const point = (at: number, score: number) => ({ at: iso(at), score });
  const history = (res: Response) =>
    res.json.data[0].history.map((p: { at: string; score: number }) => [Date.parse(p.at), p.score]);

  test('no points: one element with current null and empty history, not_configured', async () => {
    const empty = await h.workspace();
    const res = await get('/risk-scores', empty.key);
    assertOneResponse(res, 'not_configured');
    assert.deepEqual(res.json.data, [{ current: null, history: [] }]);
    assert.equal('currency' in res.json, false);
  });

  test('defaults: to is now and from 90 days before; current is the latest point at or before now', async () => {
    const own = await h.workspace();
    const now = Date.now();
    await h.import(own.id, {
      risk_score_points: [
        point(now - 100 * DAY, 10),
        point(now - 90 * DAY + 3_600_000, 20),
        point(now - DAY, 65),
        point(now + DAY, 40),
      ],
    });
    const res = await get('/risk-scores', own.key);
    assertOneResponse(res);
    assert.equal(res.json.data.length, 1);
    assert.deepEqual(history(res), [
      [now - 90 * DAY + 3_600_000, 20],
      [now - DAY, 65],
    ]);
    assert.deepEqual(res.json.data[0].current, {
      score: 65,
      band: 'critical',
      as_of: `${iso(now - DAY).slice(0, -1)}000Z`,
    });
    // `current` ignores the window.
    const old = await get(`/risk-scores?to=${iso(now - 95 * DAY)}`, own.key);
    assert.deepEqual(history(old), [[now - 100 * DAY, 10]]);
    assert.equal(old.json.data[0].current.score, 65);
  });

  test('from and to are inclusive; from defaults to exactly 90 days before to', async () => {
    const own = await h.workspace();
    const to = Date.UTC(2024, 5, 1);
    await h.import(own.id, {
      risk_score_points: [
        point(to - 90 * DAY - 1, 1),
        point(to - 90 * DAY, 2),
        point(to - 10 * DAY, 3),
        point(to, 4),
        point(to + 1, 5),
      ],
    });
    const byDefault = await get(`/risk-scores?to=${iso(to)}`, own.key);
    assert.deepEqual(
      history(byDefault).map(([, score]: number[]) => score),
      [2, 3, 4],
    );
    const explicit = await get(`/risk-scores?from=${iso(to - 10 * DAY)}&to=${iso(to)}`, own.key);
    assert.deepEqual(
      history(explicit).map(([, score]: number[]) => score),
      [3, 4],
    );
    // The same instant in another offset names the same bound.
    const offset = await get(`/risk-scores?from=2024-05-22T02:00:00%2B02:00&to=${iso(to)}`, own.key);
    assert.deepEqual(
      history(offset).map(([, score]: number[]) => score),
      [3, 4],
    );
  });

  test('more points than limit: the most recent limit points, oldest first', async () => {
    const own = await h.workspace();
    const now = Date.now();
    await h.import(own.id, {
      risk_score_points: [5, 4, 3, 2, 1].map((k) => point(now - k * DAY, 50 + k)),
    });
    const res = await get('/risk-scores?limit=3', own.key);
    assertOneResponse(res);
    assert.deepEqual(
      history(res).map(([, score]: number[]) => score),
      [53, 52, 51],
    );
    assert.equal(history(await get('/risk-scores', own.key)).length, 5);
  });

  test('the workspace score (0-100) takes its band at the same fractions: 16/17, 36/37, 64/65', async () => {
    const own = await h.workspace();
    const start = Date.now() - 10 * DAY;
    const cases: [number, string][] = [
      [0, 'low'],
      [16, 'low'],
      [17, 'medium'],
      [36, 'medium'],
      [37, 'high'],
      [64, 'high'],
      [65, 'critical'],
      [100, 'critical'],
    ];
    for (const [k, [score, band]] of cases.entries()) {
      await h.import(own.id, { risk_score_points: [point(start + k * DAY, score)] });
      const { current } = (await get('/risk-scores', own.key)).json.data[0];
      assert.deepEqual([current.score, current.band], [score, band]);
    }
  });

  test("another workspace's points are not seen", async () => {
    const own = await h.workspace();
    await h.import(other.id, { risk_score_points: [point(Date.now() - DAY, 70)] });
    const res = await get('/risk-scores', own.key);
    assert.deepEqual(res.json.data, [{ current: null, history: [] }]);
  });

  test('a cursor, from after to, bad instants and limits are 400', async () => {
    await expect400('/risk-scores?cursor=abc', 'cursor');
    await expect400('/risk-scores?from=2024-02-01T00:00:00Z&to=2024-01-01T00:00:00Z', 'from');
    await expect400(`/risk-scores?from=${iso(Date.now() + DAY)}`, 'from');
    await expect400('/risk-scores?from=yesterday', 'from');
    await expect400('/risk-scores?to=2024-02-30T00:00:00Z', 'to');
    await expect400('/risk-scores?to=2024-01-01', 'to');
    await expect400('/risk-scores?from=0000-01-01T00:00:00Z', 'from');
    await expect400('/risk-scores?to=2024-01-01T00:00:00%2B23:00', 'to');
    await expect400('/risk-scores?limit=201', 'limit');
    await expect400('/risk-scores?status=open', 'status');
    // from equal to to is a one-instant window, not an error.
    assertOneResponse(
      await get('/risk-scores?from=2024-01-01T00:00:00Z&to=2024-01-01T00:00:00Z'),
      'not_configured',
    );
  });

  test('an import takes {at, score} without id and rejects other fields and scores outside 0-100', async () => {
    const own = await h.workspace();
    const res = await h.admin('POST', `/admin/workspaces/${own.id}/import`, {
      risk_score_points: [
        { at: iso(BASE), score: 101 },
        { id: randomUUID(), at: iso(BASE), score: 5 },
      ],
    });
    assertError(res, 422, 'validation_failed');
    assert.deepEqual(Object.keys(res.json.error.details.fields).sort(), [
      'risk_score_points[0].score',
      'risk_score_points[1].id',
    ]);
  });
});

describe('GET /risk-matrix', () => {
  let own: TestWorkspace;
  const assetId = randomUUID();
  const threatId = randomUUID();
  // Codes are chosen so that code order differs from creation order; 'M-B' < 'M-a' in byte order.
  const c25 = risk({ code: 'M-Z', source_domain: 'cyber', likelihood: 5, impact: 5 });
  const cA16 = risk({ code: 'M-a', source_domain: 'cyber', likelihood: 4, impact: 4 });
  const cB16 = risk({ code: 'M-B', source_domain: 'cyber', likelihood: 4, impact: 4, status: 'treated' });
  const cClosed = risk({ code: 'M-0', source_domain: 'cyber', likelihood: 5, impact: 5, status: 'closed' });
  const c1 = risk({ code: 'M-C', source_domain: 'cyber', likelihood: 1, impact: 1 });
  const o20 = risk({
    code: 'M-Y',
    source_domain: 'vendor',
    likelihood: 4,
    impact: 5,
    category: 'legal',
    financial_exposure: 2500000.5,
  });
  const o16 = risk({ code: 'M-A', source_domain: 'privacy', likelihood: 4, impact: 4, status: 'accepted' });
  const o4 = risk({
    code: 'M-D',
    source_domain: 'human',
    likelihood: 2,
    impact: 2,
    financial_exposure: null,
  });
  const oClosed = risk({ code: 'M-1', source_domain: 'human', likelihood: 5, impact: 5, status: 'closed' });
  const codes = (res: Response) => res.json.data.map((row: Rec) => row.code);

  before(async () => {
    own = await h.workspace();
    c25.asset_id = assetId;
    c25.threat_id = threatId;
    await h.import(own.id, {
      assets: [
        { id: assetId, external_id: 'srv-1', name: 'Server', asset_type: 'infrastructure', source: 'manual' },
      ],
      threats: [{ id: threatId, title: 'Ransomware', severity: 'high', asset_id: assetId }],
      risks: [c25, cA16, cB16, cClosed, c1, o20, o16, o4, oClosed],
    });
  });

  test("an import refuses a risk's asset_id or threat_id that names no record of the workspace (422)", async () => {
    const res = await h.admin('POST', `/admin/workspaces/${other.id}/import`, {
      risks: [risk({ source_domain: 'cyber', asset_id: assetId, threat_id: randomUUID() })],
    });
    assertError(res, 422, 'validation_failed');
    assert.deepEqual(Object.keys(res.json.error.details.fields).sort(), [
      'risks[0].asset_id',
      'risks[0].threat_id',
    ]);
  });

  test('one row per risk not closed, by score desc then code (byte order), with both shapes', async () => {
    const res = await get('/risk-matrix', own.key);
    assertOneResponse(res);
    assert.equal(res.json.currency, 'USD');
    assert.deepEqual(codes(res), ['M-Z', 'M-Y', 'M-A', 'M-B', 'M-a', 'M-D', 'M-C']);
    const cyber = res.json.data.find((row: Rec) => row.code === 'M-Z');
    assert.deepEqual(cyber, {
      scope: 'cyber',
      risk_id: c25.id,
      code: 'M-Z',
      title: c25.title,
      likelihood: 5,
      impact: 5,
      score: 25,
      band: 'critical',
      asset_id: assetId,
      threat_id: threatId,
    });
    const organizational = res.json.data.find((row: Rec) => row.code === 'M-Y');
    assert.deepEqual(organizational, {
      scope: 'organizational',
      risk_id: o20.id,
      code: 'M-Y',
      title: o20.title,
      likelihood: 4,
      impact: 5,
      score: 20,
      band: 'critical',
      category: 'legal',
      financial_exposure: 2500000.5,
    });
    // Scope follows source_domain: cyber is cyber, vendor, privacy and human are organizational.
    const cyberCodes = new Set([c25, cA16, cB16, c1].map((r) => r.code));
    for (const row of res.json.data)
      assert.equal(row.scope, cyberCodes.has(row.code) ? 'cyber' : 'organizational', row.code);
    assert.equal(res.json.data.find((row: Rec) => row.code === 'M-a').asset_id, null);
  });

  test('limit applies per scope: without scope, up to limit rows of each, merged (decision 15)', async () => {
    const both = await get('/risk-matrix?limit=2', own.key);
    assertOneResponse(both);
    assert.deepEqual(codes(both), ['M-Z', 'M-Y', 'M-A', 'M-B']);
    const one = await get('/risk-matrix?limit=1', own.key);
    assert.deepEqual(codes(one), ['M-Z', 'M-Y']);
  });

  test('scope keeps one shape; limit cuts it to the best rows', async () => {
    const cyber = await get('/risk-matrix?scope=cyber&limit=2', own.key);
    assertOneResponse(cyber);
    assert.deepEqual(codes(cyber), ['M-Z', 'M-B']);
    const organizational = await get('/risk-matrix?scope=organizational', own.key);
    assert.deepEqual(codes(organizational), ['M-Y', 'M-A', 'M-D']);
    assert.ok(
      organizational.json.data.every((row: Rec) => row.scope === 'organizational' && 'category' in row),
    );
  });

  test('risk_band keeps the rows of that band, with or without scope', async () => {
    assert.deepEqual(codes(await get('/risk-matrix?risk_band=high', own.key)), ['M-A', 'M-B', 'M-a']);
    assert.deepEqual(codes(await get('/risk-matrix?risk_band=high&scope=cyber', own.key)), ['M-B', 'M-a']);
    assert.deepEqual(codes(await get('/risk-matrix?risk_band=low', own.key)), ['M-D', 'M-C']);
    assert.deepEqual(codes(await get('/risk-matrix?risk_band=medium', own.key)), []);
  });

  test('another workspace sees none of these rows', async () => {
    const res = await get('/risk-matrix', other.key);
    assert.equal(res.status, 200);
    assert.ok(res.json.data.every((row: Rec) => !String(row.code).startsWith('M-')));
  });

  test('cursor, unknown scope or band and bad limits are 400', async () => {
    await expect400('/risk-matrix?cursor=abc', 'cursor');
    await expect400('/risk-matrix?scope=vendor', 'scope');
    await expect400('/risk-matrix?risk_band=severe', 'risk_band');
    await expect400('/risk-matrix?limit=0', 'limit');
    await expect400('/risk-matrix?limit=201', 'limit');
  });
});

describe('GET /risk-acceptances', () => {
  let own: TestWorkspace;
  const T0 = Date.UTC(2024, 2, 1);
  const T1 = Date.UTC(2024, 5, 1);
  const T2 = Date.UTC(2024, 8, 1);
  let letters: Record<string, Rec>;

  before(async () => {
    own = await h.workspace();
    const r = risk({ status: 'accepted' });
    const letter = (name: string, status: string, from: number, until: number, k: number) => ({
      id: randomUUID(),
      risk_id: r.id,
      status,
      justification: name,
      accepted_exposure: 5000,
      valid_from: iso(from),
      valid_until: iso(until),
      created_at: iso(BASE + k * 1000),
    });
    letters = {
      a: letter('a', 'active', T0, T1, 1),
      revoked: letter('revoked', 'revoked', T0 - DAY, T1 + DAY, 2),
      expired: letter('expired', 'expired', T0 - DAY, T1 + DAY, 3),
      d: letter('d', 'active', T1, T2, 4),
      e: letter('e', 'active', T0 - 10 * DAY, T0, 5),
      f: letter('f', 'active', T2, T2 + 10 * DAY, 6),
    };
    await h.import(own.id, { risks: [r], risk_acceptances: Object.values(letters) });
  });

  const names = (res: Response) => res.json.data.map((row: Rec) => row.justification);
  const validOn = async (ms: number) => names(await get(`/risk-acceptances?valid_on=${iso(ms)}`, own.key));

  test('a page of letters, newest first, plus currency', async () => {
    const res = await get('/risk-acceptances', own.key);
    assert.equal(res.status, 200);
    assert.equal(res.json.currency, 'USD');
    assert.deepEqual(names(res), ['f', 'e', 'd', 'expired', 'revoked', 'a']);
    assert.deepEqual(Object.keys(res.json.data[0]).sort(), [
      'accepted_exposure',
      'created_at',
      'id',
      'justification',
      'risk_id',
      'status',
      'updated_at',
      'valid_from',
      'valid_until',
    ]);
    assert.deepEqual(await walk('/risk-acceptances?limit=4', own.key), ids(res));
  });

  test('status filters the letters', async () => {
    assert.deepEqual(names(await get('/risk-acceptances?status=revoked', own.key)), ['revoked']);
    assert.deepEqual(names(await get('/risk-acceptances?status=active', own.key)), ['f', 'e', 'd', 'a']);
  });

  test('valid_on: active letters with valid_from ≤ T < valid_until', async () => {
    // valid_from is inclusive, valid_until exclusive; revoked and expired letters are never in force.
    assert.deepEqual(await validOn(T0), ['a']);
    assert.deepEqual(await validOn(T0 - 1), ['e']);
    assert.deepEqual(await validOn(T1 - 1), ['a']);
    assert.deepEqual(await validOn(T1), ['d']);
    assert.deepEqual(await validOn(T2), ['f']);
    assert.deepEqual(await validOn(T2 + 10 * DAY), []);
    assert.deepEqual(names(await get(`/risk-acceptances?valid_on=${iso(T0)}&status=revoked`, own.key)), []);
  });

  test("another workspace's letters are not seen", async () => {
    const res = await get('/risk-acceptances', other.key);
    assert.ok(res.json.data.every((row: Rec) => !Object.values(letters).some((l) => l.id === row.id)));
  });

  test('malformed status, valid_on and cursor are 400', async () => {
    await expect400('/risk-acceptances?status=pending', 'status');
    await expect400('/risk-acceptances?valid_on=2024-13-01T00:00:00Z', 'valid_on');
    await expect400('/risk-acceptances?valid_on=0000-01-01T00:00:00Z', 'valid_on');
    await expect400('/risk-acceptances?cursor=abc', 'cursor');
  });

  test('an import refuses a letter that does not end after it starts (422)', async () => {
    const r = risk();
    await h.import(own.id, { risks: [r] });
    const at = iso(T0);
    const res = await h.admin('POST', `/admin/workspaces/${own.id}/import`, {
      risk_acceptances: [
        { risk_id: r.id, valid_from: at, valid_until: at },
        { risk_id: r.id, valid_from: iso(T1), valid_until: at },
        { risk_id: r.id, valid_from: at, valid_until: iso(T0 + 1) },
      ],
    });
    assertError(res, 422, 'validation_failed');
    assert.deepEqual(Object.keys(res.json.error.details.fields).sort(), [
      'risk_acceptances[0].valid_until',
      'risk_acceptances[1].valid_until',
    ]);
  });
});

describe('the seed generator', () => {
  test('its risk collections import and are served', async () => {
    const own = await h.workspace();
    const doc = generateSeedDocument({ size: { suppliers: 60 }, seed: 2026 });
    const names = ['suppliers', 'risks', 'risk_treatments', 'risk_score_points', 'risk_acceptances'];
    const res = await h.import(own.id, Object.fromEntries(names.map((name) => [name, doc[name] ?? []])));
    for (const name of names) assert.equal(res.json.created[name], doc[name]?.length, name);
    assert.ok((doc.risks?.length ?? 0) > 0 && (doc.risk_score_points?.length ?? 0) > 0);
    const scores = await get('/risk-scores', own.key);
    assertOneResponse(scores);
    assert.notEqual(scores.json.data[0].current, null);
    assert.ok(scores.json.data[0].history.length >= 12);
    const matrix = await get('/risk-matrix?limit=200', own.key);
    const open = doc.risks?.filter((r) => r.status !== 'closed').length;
    assert.equal(matrix.json.data.length, open);
  });
});

describe('response schemas (the OpenAPI entries)', () => {
  test('every response row matches its declared schema; matrix rows are a oneOf discriminated by scope', async () => {
    const own = await h.workspace();
    const r = risk({ source_domain: 'cyber' });
    await h.import(own.id, {
      risks: [r, risk({ source_domain: 'vendor', financial_exposure: null })],
      risk_treatments: [{ risk_id: r.id, strategy: 'accept', due_date: null, cost: null }],
      risk_acceptances: [{ risk_id: r.id, valid_from: iso(BASE), valid_until: iso(BASE + DAY) }],
      risk_score_points: [{ at: iso(Date.now() - DAY), score: 42 }],
    });
    const itemSchema = (operationId: string): TSchema => {
      const route = risksOperations.find((item) => item.id === operationId);
      assert.ok(route, operationId);
      const page = route.responses[200]?.schema as { properties: { data: { items: TSchema } } };
      return page.properties.data.items;
    };
    const cases: [string, string][] = [
      ['listRisks', '/risks'],
      ['listRiskTreatments', `/risks/${r.id}/treatments`],
      ['getRiskScores', '/risk-scores'],
      ['getRiskMatrix', '/risk-matrix'],
      ['listRiskAcceptances', '/risk-acceptances'],
    ];
    for (const [operationId, path] of cases) {
      const check = checker(itemSchema(operationId));
      const res = await get(path, own.key);
      assert.ok(res.json.data.length > 0, path);
      for (const row of res.json.data) assert.equal(check(row), null, `${path}: ${JSON.stringify(row)}`);
    }
    const matrix = itemSchema('getRiskMatrix') as unknown as {
      oneOf: { properties: { scope: { enum: string[] } } }[];
      discriminator: { propertyName: string };
    };
    assert.deepEqual(
      matrix.oneOf.map((shape) => shape.properties.scope.enum),
      [['cyber'], ['organizational']],
    );
    assert.equal(matrix.discriminator.propertyName, 'scope');
    // A row mixing the two shapes matches neither.
    const [row] = (await get('/risk-matrix?scope=cyber', own.key)).json.data;
    assert.notEqual(checker(itemSchema('getRiskMatrix'))({ ...row, category: 'legal' }), null);
  });
});
