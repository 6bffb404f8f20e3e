// risk-data-api.md "Endpoints › Context (scope context:read for all)", "Other resources", "Conventions"
// (currency, redaction), "Authentication" 5-7; resources.md "Business process", "Product or service",
// "Processing activity", "Business impact analysis (bia)", "Threat"; decisions 2, 12, 14, 35;
// management-api.md "Import document" for the context collections.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { generateSeedDocument } from '../../src/seed/index.js';
import { assertError, useHarness } from '../support/harness.js';

type Rec = Record<string, unknown>;

const AREA_A = randomUUID();
const AREA_B = randomUUID();
const ASSET = randomUUID();
const ids = (prefix: string, n: number) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i + 1}`, randomUUID()]));
const BP = ids('bp', 4);
const PS = ids('ps', 3);
const PA = ids('pa', 3);
const B = ids('b', 3);
const T = ids('t', 3);

// Every filter value tested below selects some but not all records of its collection.
const document = {
  assets: [{ id: ASSET, external_id: 'i-1', name: 'api', asset_type: 'application', source: 'manual' }],
  business_processes: [
    { id: BP.bp1, name: 'Payroll', criticality: 'high', area_id: AREA_A, area_name: 'Finance' },
    { id: BP.bp2, name: 'Recruitment', criticality: 'low', area_id: AREA_B, area_name: 'HR' },
    { id: BP.bp3, name: 'Treasury', criticality: 'high', area_id: null, area_name: null },
    { id: BP.bp4, name: 'Month-end close', criticality: 'medium', area_id: AREA_A, area_name: 'Finance' },
  ],
  products_services: [
    { id: PS.ps1, name: 'Card', type: 'product', criticality: 'critical', annual_revenue: 1234.5 },
    { id: PS.ps2, name: 'Advice', type: 'service', criticality: 'low', annual_revenue: null },
    { id: PS.ps3, name: 'Payments', type: 'service', criticality: 'critical', annual_revenue: 9_000_000 },
  ],
  processing_activities: [
    {
      id: PA.pa1,
      name: 'Patient records',
      purpose: 'Care',
      legal_basis: 'contract',
      data_categories: ['contact', 'health'],
      is_sensitive_data: true,
      retention_period: '10 years',
      owner_name: 'Ada Lovelace',
    },
    {
      id: PA.pa2,
      name: 'Newsletter',
      legal_basis: 'consent',
      data_categories: ['contact'],
      is_sensitive_data: false,
      owner_name: null,
    },
    {
      id: PA.pa3,
      name: 'Invoicing',
      legal_basis: 'contract',
      data_categories: ['financial'],
      is_sensitive_data: false,
      owner_name: 'Grace Hopper',
    },
  ],
  bia: [
    {
      id: B.b1,
      product_service_id: PS.ps1,
      rto_hours: 2,
      rpo_hours: 0.25,
      mtpd_hours: 4,
      financial_impact_per_day: 50_000.5,
      resulting_criticality: 'critical',
    },
    { id: B.b2, product_service_id: PS.ps2, resulting_criticality: 'low' },
    { id: B.b3, product_service_id: PS.ps1, resulting_criticality: 'medium' },
  ],
  threats: [
    {
      id: T.t1,
      title: 'Exploitation of public-facing application',
      severity: 'high',
      status: 'open',
      source: 'external_feed',
      cve_id: 'CVE-2024-3094',
      mitre_technique_id: 'T1190',
      asset_id: ASSET,
    },
    { id: T.t2, title: 'Phishing', severity: 'none', status: 'mitigated', source: 'manual' },
    {
      id: T.t3,
      title: 'Ransomware',
      severity: 'high',
      status: 'accepted',
      source: 'derived',
      cve_id: 'CVE-2023-1111',
    },
  ],
};

const { h, ws, other } = useHarness({ workspaces: ['ws', 'other'] }, async () => {
  await h.import(ws.id, document);
  // The other workspace holds look-alike records of its own (same names and values, other ids).
  await h.import(other.id, {
    products_services: [{ id: randomUUID(), name: 'Card', type: 'product', criticality: 'critical' }],
    processing_activities: [
      {
        name: 'Patient records',
        legal_basis: 'contract',
        data_categories: ['health'],
        is_sensitive_data: true,
      },
    ],
    threats: [{ title: 'Phishing', severity: 'high', cve_id: 'CVE-2024-3094' }],
    business_processes: [{ name: 'Payroll', criticality: 'high', area_id: AREA_A }],
  });
});

async function list(path: string, query = '', key = ws.key) {
  const res = await h.api('GET', `${path}?limit=200${query}`, { key });
  assert.equal(res.status, 200, res.body);
  return res;
}

const idsOf = (res: { json: { data: Rec[] } }) => res.json.data.map((row) => row.id as string).sort();

/** A filter test that would fail if the filter were ignored: the expected rows are a strict, non-empty subset. */
async function assertFilter(path: string, query: string, expected: readonly (string | undefined)[]) {
  const all = idsOf(await list(path));
  assert.ok(expected.length > 0 && expected.length < all.length, `the fixture must discriminate ${query}`);
  assert.deepEqual(idsOf(await list(path, `&${query}`)), [...expected].sort(), `${path}?${query}`);
}

const timestamps = ['created_at', 'id', 'updated_at'];
/** The public fields of each list's rows besides id and the timestamps (resources.md). */
const FIELDS: Record<string, string[]> = {
  '/business-processes': ['name', 'description', 'area_id', 'area_name', 'criticality'],
  '/products-services': ['name', 'type', 'description', 'criticality', 'annual_revenue'],
  '/processing-activities': [
    'name',
    'purpose',
    'legal_basis',
    'data_categories',
    'is_sensitive_data',
    'retention_period',
    'owner_name',
  ],
  '/bia': [
    'product_service_id',
    'rto_hours',
    'rpo_hours',
    'mtpd_hours',
    'financial_impact_per_day',
    'resulting_criticality',
  ],
  '/threats': [
    'title',
    'description',
    'severity',
    'status',
    'source',
    'cve_id',
    'mitre_technique_id',
    'asset_id',
  ],
};

const PATHS = Object.keys(FIELDS);

describe('every context list', () => {
  test('returns exactly the public field names of resources.md (owner_name with pii:read)', async () => {
    for (const [path, fields] of Object.entries(FIELDS)) {
      const res = await list(path);
      for (const row of res.json.data as Rec[])
        assert.deepEqual(Object.keys(row).sort(), [...fields, ...timestamps].sort(), path);
    }
  });

  test('currency USD on products-services and bia only (risk-data-api.md "Conventions")', async () => {
    for (const path of PATHS) {
      const res = await list(path);
      if (path === '/products-services' || path === '/bia') assert.equal(res.json.currency, 'USD', path);
      else assert.equal('currency' in res.json, false, path);
    }
  });

  test('needs context:read; pii:read alone reaches nothing (Authentication 5, 6)', async () => {
    for (const scopes of [['assets:read', 'suppliers:read'], ['pii:read']] as const) {
      const key = await h.key(ws.id, ws.userId, scopes);
      for (const path of PATHS) {
        const res = await h.api('GET', path, { key: key.secret });
        assertError(res, 403, 'insufficient_scope');
        assert.equal(res.json.error.details.required_scope, 'context:read');
      }
    }
  });

  test("another workspace's records are never listed (Authentication 7)", async () => {
    for (const path of PATHS) {
      const mine = idsOf(await list(path));
      const theirs = idsOf(await list(path, '', other.key));
      assert.ok(mine.length > 0);
      assert.ok(
        mine.every((id) => !theirs.includes(id)),
        path,
      );
    }
    assert.equal((await list('/threats', '', other.key)).json.data.length, 1);
  });

  test('newest first by created_at, then id (decisions 12, 38)', async () => {
    for (const path of PATHS) {
      const rows = (await list(path)).json.data as Rec[];
      const keys = rows.map((row) => `${row.created_at} ${row.id}`);
      assert.deepEqual(keys, [...keys].sort().reverse(), path);
    }
  });

  test('malformed filter values, unknown parameters and a bad limit are 400 naming the parameter (decision 2)', async () => {
    const cases: [string, string][] = [
      ['/business-processes', 'criticality=extreme'],
      ['/business-processes', 'area_id=not-a-uuid'],
      ['/products-services', 'criticality=urgent'],
      ['/products-services', 'type='],
      ['/processing-activities', 'is_sensitive_data=maybe'],
      ['/processing-activities', 'data_category='],
      ['/bia', 'product_service_id=123'],
      ['/bia', 'resulting_criticality=none'],
      ['/threats', 'severity=extreme'],
      ['/threats', 'status=closed'],
      ['/threats', 'source=scanner'],
      ['/threats', 'limit=201'],
      ['/threats', 'asset_id=x'],
    ];
    for (const [path, query] of cases) {
      const res = await h.api('GET', `${path}?${query}`, { key: ws.key });
      assertError(res, 400, 'invalid_request');
      assert.equal(res.json.error.details.parameter, query.split('=')[0], `${path}?${query}`);
    }
  });
});

describe('GET /business-processes', () => {
  test('filter criticality', () => assertFilter('/business-processes', 'criticality=high', [BP.bp1, BP.bp3]));
  test('filter area_id', () => assertFilter('/business-processes', `area_id=${AREA_A}`, [BP.bp1, BP.bp4]));

  test('cursor pagination walks every row once; a cursor is bound to its filters (decision 14)', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Awaited<ReturnType<typeof h.api>> = await h.api(
        'GET',
        `/business-processes?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key: ws.key },
      );
      assert.equal(res.status, 200, res.body);
      assert.equal(res.json.data.length, 1);
      seen.push(res.json.data[0].id);
      cursor = res.json.meta.next_cursor;
      assert.equal(res.json.meta.has_more, cursor !== null);
      pages++;
      if (pages === 1) {
        // The same cursor with another filter set, or on another endpoint, is refused.
        const filtered = await h.api(
          'GET',
          `/business-processes?limit=1&criticality=high&cursor=${encodeURIComponent(cursor as string)}`,
          { key: ws.key },
        );
        assertError(filtered, 400, 'invalid_request');
        const elsewhere = await h.api(
          'GET',
          `/threats?limit=1&cursor=${encodeURIComponent(cursor as string)}`,
          {
            key: ws.key,
          },
        );
        assertError(elsewhere, 400, 'invalid_request');
      }
    } while (cursor);
    assert.equal(pages, 4);
    assert.deepEqual([...seen].sort(), Object.values(BP).sort());
  });

  test('a filtered walk pages within the filter', async () => {
    const first = await h.api('GET', '/business-processes?limit=1&criticality=high', { key: ws.key });
    assert.equal(first.json.meta.has_more, true);
    const cursor = encodeURIComponent(first.json.meta.next_cursor);
    const second = await h.api('GET', `/business-processes?limit=1&criticality=high&cursor=${cursor}`, {
      key: ws.key,
    });
    assert.equal(second.json.meta.has_more, false);
    assert.equal(second.json.meta.next_cursor, null);
    assert.deepEqual([first.json.data[0].id, second.json.data[0].id].sort(), [BP.bp1, BP.bp3].sort());
  });
});

describe('GET /products-services', () => {
  test('filter type', () => assertFilter('/products-services', 'type=service', [PS.ps2, PS.ps3]));
  test('filter criticality', () =>
    assertFilter('/products-services', 'criticality=critical', [PS.ps1, PS.ps3]));
  test('annual_revenue is a number in USD, null when unknown', async () => {
    const rows = (await list('/products-services')).json.data as Rec[];
    assert.equal(rows.find((row) => row.id === PS.ps1)?.annual_revenue, 1234.5);
    assert.equal(rows.find((row) => row.id === PS.ps2)?.annual_revenue, null);
  });
});

describe('GET /processing-activities', () => {
  test('filter legal_basis', () =>
    assertFilter('/processing-activities', 'legal_basis=contract', [PA.pa1, PA.pa3]));
  test('filter data_category matches one element of data_categories', async () => {
    await assertFilter('/processing-activities', 'data_category=contact', [PA.pa1, PA.pa2]);
    await assertFilter('/processing-activities', 'data_category=health', [PA.pa1]);
    // Whole elements, not substrings.
    assert.deepEqual(idsOf(await list('/processing-activities', '&data_category=cont')), []);
  });
  test('filter is_sensitive_data, both values (decision 35)', async () => {
    await assertFilter('/processing-activities', 'is_sensitive_data=true', [PA.pa1]);
    await assertFilter('/processing-activities', 'is_sensitive_data=false', [PA.pa2, PA.pa3]);
  });

  test('owner_name is absent (not null) without pii:read, present with it (Authentication 6)', async () => {
    const redacted = await h.key(ws.id, ws.userId, ['context:read']);
    const rows = (await list('/processing-activities', '', redacted.secret)).json.data as Rec[];
    assert.equal(rows.length, 3);
    for (const row of rows) assert.equal('owner_name' in row, false);
    const full = await h.key(ws.id, ws.userId, ['context:read', 'pii:read']);
    const unredacted = (await list('/processing-activities', '', full.secret)).json.data as Rec[];
    assert.equal(unredacted.find((row) => row.id === PA.pa1)?.owner_name, 'Ada Lovelace');
    // Null means the record has no owner: present and null.
    const none = unredacted.find((row) => row.id === PA.pa2);
    assert.ok(none && 'owner_name' in none);
    assert.equal(none.owner_name, null);
  });
});

describe('GET /bia', () => {
  test('filter product_service_id', () => assertFilter('/bia', `product_service_id=${PS.ps1}`, [B.b1, B.b3]));
  test('filter resulting_criticality', () => assertFilter('/bia', 'resulting_criticality=low', [B.b2]));
  test("another workspace's product id in the filter gives an empty page, not an error", async () => {
    const theirs = (await list('/products-services', '', other.key)).json.data[0].id;
    const res = await list('/bia', `&product_service_id=${theirs}`);
    assert.deepEqual(res.json.data, []);
    assert.equal(res.json.meta.feature_status, 'available');
  });
  test('hours and amounts are numbers', async () => {
    const row = ((await list('/bia')).json.data as Rec[]).find((r) => r.id === B.b1);
    assert.deepEqual(
      [row?.rto_hours, row?.rpo_hours, row?.mtpd_hours, row?.financial_impact_per_day],
      [2, 0.25, 4, 50_000.5],
    );
  });
});

describe('GET /threats', () => {
  test('filter severity', () => assertFilter('/threats', 'severity=high', [T.t1, T.t3]));
  test('filter status', () => assertFilter('/threats', 'status=open', [T.t1]));
  test('filter source', () => assertFilter('/threats', 'source=manual', [T.t2]));
  test('filter cve_id, compared case-insensitively', async () => {
    await assertFilter('/threats', 'cve_id=CVE-2024-3094', [T.t1]);
    await assertFilter('/threats', 'cve_id=cve-2024-3094', [T.t1]);
  });
  test('carries cve_id, mitre_technique_id and asset_id', async () => {
    const row = ((await list('/threats')).json.data as Rec[]).find((r) => r.id === T.t1);
    assert.equal(row?.cve_id, 'CVE-2024-3094');
    assert.equal(row?.mitre_technique_id, 'T1190');
    assert.equal(row?.asset_id, ASSET);
  });
});

describe('import of the context collections', () => {
  const importError = async (workspaceId: string, doc: unknown) => {
    const res = await h.admin('POST', `/admin/workspaces/${workspaceId}/import`, doc);
    assertError(res, 422, 'validation_failed');
    return res.json.error.details.fields as Record<string, string>;
  };

  test("references must resolve inside the workspace: another workspace's product or asset is a 422", async () => {
    const fields = await importError(other.id, {
      bia: [{ product_service_id: PS.ps1, resulting_criticality: 'low' }],
      threats: [{ title: 'x', severity: 'low', asset_id: ASSET }],
    });
    assert.ok('bia[0].product_service_id' in fields);
    assert.ok('threats[0].asset_id' in fields);
  });

  test('bad values are 422 naming the record and field, and nothing is written', async () => {
    const fields = await importError(other.id, {
      business_processes: [{ name: 'ok' }, { name: 'bad', criticality: 'urgent' }],
      products_services: [{ name: 'big', annual_revenue: 1e20 }],
      processing_activities: [{ name: 'x', is_sensitive_data: 'yes' }],
      threats: [{ title: 'no severity' }],
    });
    assert.deepEqual(Object.keys(fields).sort(), [
      'business_processes[1].criticality',
      'processing_activities[0].is_sensitive_data',
      'products_services[0].annual_revenue',
      'threats[0].severity',
    ]);
    assert.equal((await list('/business-processes', '', other.key)).json.data.length, 1);
  });

  test('accepts what the seed generator emits for these collections', async () => {
    const seed = generateSeedDocument({ size: { suppliers: 60 }, seed: 2026 });
    const names = [
      'assets',
      'business_processes',
      'products_services',
      'processing_activities',
      'bia',
      'threats',
    ];
    const doc = Object.fromEntries(names.map((name) => [name, seed[name] ?? []]));
    for (const name of names) assert.ok((doc[name] as unknown[]).length > 0, name);
    const seeded = await h.workspace();
    const res = await h.import(seeded.id, doc);
    for (const name of names) assert.equal(res.json.created[name], (doc[name] as unknown[]).length, name);
    const threats = await list('/threats', '', seeded.key);
    assert.equal(threats.json.data.length, Math.min(200, (doc.threats as unknown[]).length));
  });
});
