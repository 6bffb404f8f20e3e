// Issue 26 point 3 on the lists that are not cursor-paged (docs/decisions.md P227, P228): GET /alerts,
// /action-plans/{id}/items, /risks/{id}/treatments and /assessments/{id}/gaps take `updated_since`, at or after,
// as the cursor-paged lists do (P178); each record's updated_at moves on every change (P179).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { publicOperations } from '../../src/resources/operations.js';
import { assertError, type Response, useHarness } from '../support/harness.js';

const OLD = '2024-01-01T00:00:00.000000Z';
const RECENT = '2025-06-01T00:00:00.000000Z';

const supplierId = randomUUID();
const assessmentId = randomUUID();
const planId = randomUUID();
const riskId = randomUUID();
/** Per collection, the record last changed at OLD and the one last changed at RECENT. */
const ids = {
  alerts: { old: randomUUID(), recent: randomUUID() },
  items: { old: randomUUID(), recent: randomUUID() },
  treatments: { old: randomUUID(), recent: randomUUID() },
  gaps: { old: randomUUID(), recent: randomUUID() },
};

const { h, ws } = useHarness({ workspaces: ['ws'] }, async () => {
  const at = (stamp: string) => ({ created_at: OLD, updated_at: stamp });
  const res: Response = await h.import(ws.id, {
    suppliers: [{ id: supplierId, name: 'Supplier' }],
    assessments: [{ id: assessmentId, supplier_id: supplierId, assessment_type: 'supplier' }],
    gaps: [
      { id: ids.gaps.old, control_code: 'A-1', ...at(OLD) },
      { id: ids.gaps.recent, control_code: 'A-2', ...at(RECENT) },
    ].map((gap) => ({
      ...gap,
      assessment_id: assessmentId,
      control_title: 'Control',
      status: 'not_met',
      severity: 'high',
    })),
    action_plans: [{ id: planId, supplier_id: supplierId, title: 'Plan' }],
    action_plan_items: [
      { id: ids.items.old, ...at(OLD) },
      { id: ids.items.recent, ...at(RECENT) },
    ].map((item) => ({ ...item, action_plan_id: planId, title: 'Item', status: 'pending' })),
    risks: [
      {
        id: riskId,
        code: 'R-1',
        title: 'Risk',
        risk_type: 'organizational',
        status: 'open',
        category: 'technological',
        source_domain: 'vendor',
        likelihood: 2,
        impact: 3,
      },
    ],
    risk_treatments: [
      { id: ids.treatments.old, ...at(OLD) },
      { id: ids.treatments.recent, ...at(RECENT) },
    ].map((treatment) => ({ ...treatment, risk_id: riskId, strategy: 'mitigate' })),
    alerts: [
      { id: ids.alerts.old, ...at(OLD) },
      { id: ids.alerts.recent, ...at(RECENT) },
    ].map((alert) => ({ ...alert, scope: 'org', severity: 'high', title: 'Alert', body: 'Details' })),
  });
  assert.equal(res.status, 200, res.body);
});

/** Each list, with the table of its records and how to change one as the service would. */
const lists = [
  { name: 'alerts', path: () => '/alerts', table: 'alerts' },
  { name: 'items', path: () => `/action-plans/${planId}/items`, table: 'action_plan_items' },
  { name: 'treatments', path: () => `/risks/${riskId}/treatments`, table: 'risk_treatments' },
  { name: 'gaps', path: () => `/assessments/${assessmentId}/gaps`, table: 'gaps' },
] as const;

async function listed(path: string, since: string): Promise<string[]> {
  const res = await h.api('GET', `${path}?updated_since=${encodeURIComponent(since)}`, { key: ws.key });
  assert.equal(res.status, 200, `${path}: ${res.body}`);
  return (res.json.data as { id: string }[]).map((row) => row.id).sort();
}

describe('updated_since on the lists without a cursor (P227)', () => {
  test('the four lists declare it, with the description of the cursor-paged lists', () => {
    const parameter = (id: string) =>
      (
        publicOperations.find((op) => op.id === id)?.query as
          | { properties: Record<string, unknown> }
          | undefined
      )?.properties.updated_since;
    const pagedSchema = parameter('listSuppliers');
    assert.ok(pagedSchema);
    for (const id of ['listAlerts', 'listActionPlanItems', 'listRiskTreatments', 'listAssessmentGaps']) {
      assert.deepEqual(parameter(id), pagedSchema, id);
    }
  });

  test('at or after: the records last changed at the instant are kept, those before it are not', async () => {
    for (const list of lists) {
      const { old, recent } = ids[list.name];
      assert.deepEqual(await listed(list.path(), OLD), [old, recent].sort(), `${list.name} since OLD`);
      // The same instant written with an offset is the same instant.
      assert.deepEqual(await listed(list.path(), '2025-06-01T02:00:00+02:00'), [recent], list.name);
      assert.deepEqual(await listed(list.path(), '2025-06-01T00:00:00.000001Z'), [], list.name);
    }
  });

  test('a record changed after T appears, one changed before T does not', async () => {
    const [{ now }] = (await h.db.query<{ now: string }>('select iso(clock_timestamp()) as now')) as [
      { now: string },
    ];
    // The action plan item through the API; the others have no change path in the service (P228), so an
    // UPDATE that does not set updated_at stands for one (the trigger of migration 0021 moves it).
    const patched = await h.api('PATCH', `/action-plan-items/${ids.items.old}`, {
      key: ws.key,
      body: { status: 'in_progress' },
    });
    assert.equal(patched.status, 200, patched.body);
    await h.db.query('update alerts set resolved_at = now() where id = $1', [ids.alerts.old]);
    await h.db.query("update risk_treatments set status = 'in_progress' where id = $1", [ids.treatments.old]);
    await h.db.query("update gaps set status = 'met' where id = $1", [ids.gaps.old]);
    for (const list of lists) {
      assert.deepEqual(await listed(list.path(), now), [ids[list.name].old], `${list.name} since ${now}`);
    }
  });

  test('a risk whose treatments all changed before T is available and empty, not unconfigured (P228)', async () => {
    const res = await h.api('GET', `/risks/${riskId}/treatments?updated_since=2999-01-01T00:00:00Z`, {
      key: ws.key,
    });
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(res.json.data, []);
    assert.equal(res.json.meta.feature_status, 'available');
    assert.equal(res.json.currency, 'USD');
  });

  test('a value that is not an instant is a 400 in the error shape, naming updated_since', async () => {
    for (const list of lists) {
      for (const value of ['yesterday', '2025-02-30T00:00:00Z', '']) {
        const res = await h.api('GET', `${list.path()}?updated_since=${value}`, { key: ws.key });
        assertError(res, 400, 'invalid_request');
        assert.equal(res.json.error.details.parameter, 'updated_since', `${list.name}: ${value}`);
      }
    }
  });

  test('each filter has its index, led by the workspace and the parent the list reads', async () => {
    const indexes = await h.db.query<{ table: string; def: string }>(
      `select tablename as table, indexdef as def from pg_indexes
        where tablename in ('alerts', 'action_plan_items', 'risk_treatments', 'gaps')`,
    );
    const defined = (table: string, columns: string) =>
      indexes.some((index) => index.table === table && index.def.includes(`(${columns})`));
    assert.ok(defined('alerts', 'workspace_id, updated_at'));
    assert.ok(defined('action_plan_items', 'workspace_id, action_plan_id, updated_at'));
    assert.ok(defined('risk_treatments', 'workspace_id, risk_id, updated_at'));
    assert.ok(defined('gaps', 'workspace_id, assessment_id, updated_at'));
  });
});
