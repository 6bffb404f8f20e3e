// risk-data-api.md "Alert", "Alerts and insights", "Limits", "Events"; resources.md "Alert" and "Insight";
// management-api.md POST /admin/workspaces/{id}/alerts; decisions 12, 15, 25, 26, 35, 38, 40.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertError, useHarness } from '../support/harness.js';

const supplier = randomUUID();
const otherSupplier = randomUUID(); // a supplier of the other workspace

// Supplier alerts s1 (newest) … s4 and org alerts o1 … o3, interleaved in time.
const at = (minute: number) => `2024-05-01T10:${String(minute).padStart(2, '0')}:00Z`;
const A = {
  s1: randomUUID(),
  s2: randomUUID(),
  s3: randomUUID(),
  s4: randomUUID(),
  o1: randomUUID(),
  o2: randomUUID(),
  o3: randomUUID(),
};
const supplierAlert = (id: string, minute: number, severity: string, resolved: boolean) => ({
  id,
  scope: 'supplier',
  supplier_id: supplier,
  severity,
  title: `Supplier alert ${minute}`,
  body: 'Certificate expires soon.',
  resolved_at: resolved ? at(minute + 1) : null,
  created_at: at(minute),
});
const orgAlert = (id: string, minute: number, severity: string, resolved: boolean) => ({
  id,
  scope: 'org',
  supplier_id: null,
  severity,
  title: `Org alert ${minute}`,
  body: 'Scanner has not reported for 24 hours.',
  resolved_at: resolved ? at(minute + 1) : null,
  created_at: at(minute),
});

const I = { i1: randomUUID(), i2: randomUUID(), i3: randomUUID(), i4: randomUUID() };

const { h, ws, other } = useHarness({ workspaces: ['ws', 'other'] }, async () => {
  await h.import(other.id, { suppliers: [{ id: otherSupplier, name: 'Not yours' }] });
  await h.import(ws.id, {
    suppliers: [{ id: supplier, name: 'Alerted' }],
    alerts: [
      supplierAlert(A.s1, 50, 'critical', false),
      orgAlert(A.o1, 45, 'high', true),
      supplierAlert(A.s2, 40, 'high', true),
      supplierAlert(A.s3, 30, 'critical', true),
      orgAlert(A.o2, 25, 'critical', false),
      supplierAlert(A.s4, 20, 'low', false),
      orgAlert(A.o3, 10, 'low', false),
    ],
    insights: [
      { id: I.i1, category: 'risk_trend', severity: 'high', title: 'Risk up', body: 'b', created_at: at(40) },
      {
        id: I.i2,
        category: 'compliance_gap',
        severity: 'high',
        title: 'Gaps',
        body: 'b',
        created_at: at(30),
      },
      {
        id: I.i3,
        category: 'risk_trend',
        severity: 'low',
        title: 'Risk down',
        body: 'b',
        created_at: at(20),
      },
      { id: I.i4, category: 'other', severity: 'critical', title: 'Other', body: 'b', created_at: at(10) },
    ],
  });
});

const get = (path: string, key = ws.key) => h.api('GET', path, { key });
const ids = (res: { json: { data: { id: string }[] } }) => res.json.data.map((row) => row.id);

describe('GET /alerts', () => {
  test('without scope: both scopes merged newest first; every row carries scope and body', async () => {
    const res = await get('/alerts');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), [A.s1, A.o1, A.s2, A.s3, A.o2, A.s4, A.o3]);
    for (const row of res.json.data) {
      assert.ok(row.scope === 'supplier' || row.scope === 'org');
      assert.equal(typeof row.body, 'string');
      assert.equal(row.supplier_id, row.scope === 'supplier' ? supplier : null);
    }
    assert.deepEqual(res.json.meta, { has_more: false, next_cursor: null, feature_status: 'available' });
  });

  test('limit applies per scope: up to limit of each, so up to 2 × limit rows (decision 15)', async () => {
    const res = await get('/alerts?limit=2');
    assert.deepEqual(ids(res), [A.s1, A.o1, A.s2, A.o2]);
    // Not cursor-paged: one response, has_more false, no cursor (risk-data-api.md "Limits").
    assert.equal(res.json.meta.has_more, false);
    assert.equal(res.json.meta.next_cursor, null);
    assert.deepEqual(ids(await get('/alerts?limit=1')), [A.s1, A.o1]);
  });

  test('scope filter: only that scope, limit applied to it', async () => {
    assert.deepEqual(ids(await get('/alerts?scope=supplier')), [A.s1, A.s2, A.s3, A.s4]);
    assert.deepEqual(ids(await get('/alerts?scope=org')), [A.o1, A.o2, A.o3]);
    assert.deepEqual(ids(await get('/alerts?scope=supplier&limit=3')), [A.s1, A.s2, A.s3]);
  });

  test('severity filter', async () => {
    assert.deepEqual(ids(await get('/alerts?severity=critical')), [A.s1, A.s3, A.o2]);
    assert.deepEqual(ids(await get('/alerts?severity=low&scope=org')), [A.o3]);
    assert.deepEqual(ids(await get('/alerts?severity=medium')), []);
  });

  test('unresolved=true: resolved_at null; unresolved=false: resolved alerts (decision 35)', async () => {
    const open = await get('/alerts?unresolved=true');
    assert.deepEqual(ids(open), [A.s1, A.o2, A.s4, A.o3]);
    for (const row of open.json.data) assert.equal(row.resolved_at, null);
    const resolved = await get('/alerts?unresolved=false');
    assert.deepEqual(ids(resolved), [A.o1, A.s2, A.s3]);
    for (const row of resolved.json.data) assert.match(row.resolved_at, /Z$/);
  });

  test('filters combine, and limit applies after filtering, per scope', async () => {
    assert.deepEqual(ids(await get('/alerts?unresolved=true&limit=1')), [A.s1, A.o2]);
    assert.deepEqual(ids(await get('/alerts?unresolved=false&severity=critical')), [A.s3]);
  });

  test('cursor is rejected (decision 40); malformed filters are 400', async () => {
    for (const query of [
      'cursor=abc',
      'scope=vendor',
      'severity=urgent',
      'unresolved=maybe',
      'limit=0',
      'limit=201',
      'supplier_id=x',
    ]) {
      assertError(await get(`/alerts?${query}`), 400, 'invalid_request');
    }
  });

  test("another workspace's alerts are never visible", async () => {
    assert.deepEqual(ids(await get('/alerts', other.key)), []);
  });

  test('needs alerts:read', async () => {
    const key = await h.key(ws.id, ws.userId, ['action-plans:read']);
    const res = await get('/alerts', key.secret);
    assertError(res, 403, 'insufficient_scope');
    assert.equal(res.json.error.details.required_scope, 'alerts:read');
  });
});

describe('GET /alerts/{id} (P159)', () => {
  test('one alert of either scope, the same JSON as its row in the list', async () => {
    const listed = new Map(
      (await get('/alerts?limit=200')).json.data.map((row: { id: string }) => [row.id, row]),
    );
    for (const id of [A.s1, A.o3]) {
      const res = await get(`/alerts/${id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, listed.get(id));
    }
    assert.equal((await get(`/alerts/${A.o3}`)).json.supplier_id, null);
    assert.equal((await get(`/alerts/${A.s1}`)).json.supplier_id, supplier);
  });

  test('an alert raised by the service is fetched by the id its alert.created event carries', async () => {
    const raised = await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
      scope: 'org',
      severity: 'medium',
      title: 'Fetched by id',
      body: 'From the event.',
    });
    assert.equal(raised.status, 201);
    const [event] = await alertEvents(raised.json.id);
    assert.ok(event, 'the alert.created event');
    const res = await get(`/alerts/${(event.data as { alert_id: string }).alert_id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, raised.json);
  });

  test('another workspace, an unknown id or not a uuid: 404; needs alerts:read', async () => {
    assertError(await get(`/alerts/${A.s1}`, other.key), 404, 'resource_not_found');
    assertError(await get(`/alerts/${randomUUID()}`), 404, 'resource_not_found');
    assertError(await get('/alerts/not-a-uuid'), 404, 'resource_not_found');
    const key = await h.key(ws.id, ws.userId, ['action-plans:read']);
    const res = await get(`/alerts/${A.s1}`, key.secret);
    assertError(res, 403, 'insufficient_scope');
    assert.equal(res.json.error.details.required_scope, 'alerts:read');
  });
});

describe('GET /insights', () => {
  test('newest first, cursor-paged', async () => {
    const all = await get('/insights');
    assert.deepEqual(ids(all), [I.i1, I.i2, I.i3, I.i4]);
    const first = await get('/insights?limit=3');
    assert.deepEqual(ids(first), [I.i1, I.i2, I.i3]);
    assert.equal(first.json.meta.has_more, true);
    const second = await get(`/insights?limit=3&cursor=${encodeURIComponent(first.json.meta.next_cursor)}`);
    assert.deepEqual(ids(second), [I.i4]);
    assert.equal(second.json.meta.has_more, false);
    assert.equal(second.json.meta.next_cursor, null);
  });

  test('category and severity filters', async () => {
    assert.deepEqual(ids(await get('/insights?category=risk_trend')), [I.i1, I.i3]);
    assert.deepEqual(ids(await get('/insights?severity=high')), [I.i1, I.i2]);
    assert.deepEqual(ids(await get('/insights?category=risk_trend&severity=low')), [I.i3]);
    assert.deepEqual(ids(await get('/insights?category=scanner_health')), []);
  });

  test('a cursor is bound to its filters; malformed filters are 400', async () => {
    const page = await get('/insights?limit=1&category=risk_trend');
    const cursor = encodeURIComponent(page.json.meta.next_cursor);
    assertError(await get(`/insights?limit=1&category=other&cursor=${cursor}`), 400, 'invalid_request');
    assertError(await get('/insights?category=weather'), 400, 'invalid_request');
    assertError(await get('/insights?severity=urgent'), 400, 'invalid_request');
  });

  test("another workspace's insights are never visible", async () => {
    assert.deepEqual(ids(await get('/insights', other.key)), []);
  });
});

async function alertEvents(alertId: string): Promise<Record<string, unknown>[]> {
  const rows = await h.db.query<{ payload: string }>(
    "select payload from events where workspace_id = $1 and type = 'alert.created'",
    [ws.id],
  );
  return rows.map((row) => JSON.parse(row.payload)).filter((event) => event.data.alert_id === alertId);
}

describe('POST /admin/workspaces/{id}/alerts', () => {
  const raise = (body: unknown, workspaceId = ws.id) =>
    h.admin('POST', `/admin/workspaces/${workspaceId}/alerts`, body);

  test('a supplier alert: 201 the alert, alert.created with its data, an audit entry', async () => {
    const res = await raise({
      scope: 'supplier',
      severity: 'high',
      title: 'Breach reported',
      body: 'The supplier disclosed a breach.',
      supplier_id: supplier,
    });
    assert.equal(res.status, 201);
    assert.equal(res.json.scope, 'supplier');
    assert.equal(res.json.supplier_id, supplier);
    assert.equal(res.json.body, 'The supplier disclosed a breach.');
    assert.equal(res.json.resolved_at, null);
    const events = await alertEvents(res.json.id);
    assert.equal(events.length, 1);
    // decision 25: data {alert_id, scope, supplier_id, severity}.
    assert.deepEqual(events[0]?.data, {
      alert_id: res.json.id,
      scope: 'supplier',
      supplier_id: supplier,
      severity: 'high',
    });
    const audits = await h.db.query<{ action: string }>(
      'select action from audit_logs where workspace_id = $1 and target_id = $2',
      [ws.id, res.json.id],
    );
    assert.deepEqual(
      audits.map((row) => row.action),
      ['alert.created'],
    );
    // Listed, newest first, as an unresolved alert.
    assert.equal(ids(await get('/alerts?unresolved=true&limit=1'))[0], res.json.id);
  });

  test('an org alert: supplier_id null, event data carries scope org', async () => {
    const res = await raise({
      scope: 'org',
      severity: 'low',
      title: 'Scanner idle',
      body: 'No scan in 24 h.',
    });
    assert.equal(res.status, 201);
    assert.equal(res.json.supplier_id, null);
    const [event] = await alertEvents(res.json.id);
    assert.deepEqual(event?.data, {
      alert_id: res.json.id,
      scope: 'org',
      supplier_id: null,
      severity: 'low',
    });
  });

  test('supplier_id is required for supplier scope, null for org, and must be of that workspace', async () => {
    const base = { severity: 'high', title: 't', body: 'b' };
    const cases: unknown[] = [
      { ...base, scope: 'supplier' },
      { ...base, scope: 'supplier', supplier_id: null },
      { ...base, scope: 'org', supplier_id: supplier },
      { ...base, scope: 'supplier', supplier_id: otherSupplier },
      { ...base, scope: 'supplier', supplier_id: randomUUID() },
    ];
    const count = async () =>
      (await h.db.query('select 1 from alerts where workspace_id = $1', [ws.id])).length +
      (await h.db.query('select 1 from events where workspace_id = $1', [ws.id])).length;
    const before = await count();
    for (const body of cases) {
      const res = await raise(body);
      assertError(res, 422, 'validation_failed');
      assert.deepEqual(Object.keys(res.json.error.details.fields), ['supplier_id'], JSON.stringify(body));
    }
    assert.equal(await count(), before, 'a refused alert writes neither an alert nor an event');
  });

  test('422 names every bad field; a missing workspace is a 404', async () => {
    const res = await raise({ scope: 'everyone', severity: 'urgent', title: '', colour: 'red' });
    assertError(res, 422, 'validation_failed');
    assert.deepEqual(Object.keys(res.json.error.details.fields).sort(), [
      'body',
      'colour',
      'scope',
      'severity',
      'title',
    ]);
    assertError(
      await raise({ scope: 'org', severity: 'low', title: 't', body: 'b' }, randomUUID()),
      404,
      'resource_not_found',
    );
  });
});

describe('Import of alerts and insights', () => {
  test('scope and supplier_id must agree; the supplier must be of the workspace (422, nothing written)', async () => {
    const target = await h.workspace();
    for (const alert of [
      { scope: 'supplier', severity: 'low', title: 't', body: 'b' },
      { scope: 'org', supplier_id: otherSupplier, severity: 'low', title: 't', body: 'b' },
      { scope: 'supplier', supplier_id: otherSupplier, severity: 'low', title: 't', body: 'b' },
    ]) {
      const res = await h.admin('POST', `/admin/workspaces/${target.id}/import`, {
        insights: [{ category: 'other', severity: 'low', title: 't', body: 'b' }],
        alerts: [alert],
      });
      assertError(res, 422, 'validation_failed');
      assert.match(Object.keys(res.json.error.details.fields).join(), /supplier_id/);
    }
    assert.deepEqual(ids(await get('/insights', target.key)), []);
  });

  test('the seed generator output imports (alerts of both scopes, insights)', async () => {
    const { generateSeedDocument } = await import('../../src/seed/index.js');
    const full = generateSeedDocument({ size: { suppliers: 8 }, seed: 2026 });
    const document = Object.fromEntries(
      ['suppliers', 'alerts', 'insights'].map((name) => [name, full[name] ?? []]),
    );
    const target = await h.workspace();
    const res = await h.import(target.id, document);
    assert.equal(res.json.created.alerts, full.alerts?.length);
    assert.equal(res.json.created.insights, full.insights?.length);
    const listed = await get('/alerts?limit=200', target.key);
    assert.deepEqual(
      new Set(listed.json.data.map((row: { scope: string }) => row.scope)),
      new Set(['supplier', 'org']),
    );
  });
});
