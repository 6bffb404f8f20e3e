// risk-data-api.md "Action plans", "States and transitions", "Events"; resources.md "Action plan" and
// "Action plan item"; management-api.md POST /admin/action-plan-items/{id}/status; decisions 12, 16-18, 25,
// 26, 35, 38, 40, 43.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertError, useHarness } from '../support/harness.js';

const DAY = 86_400_000;
/** A calendar date `days` from today (UTC); tests stay days away from "today" so midnight cannot flip them. */
const day = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);

// Fixture ids.
const supplierA = randomUUID();
const supplierB = randomUUID();
const assessmentA = randomUUID();
const planA = randomUUID(); // the plan with the items below
const planB = randomUUID(); // supplier B, status closed, no items
const planOld = randomUUID(); // supplier A, oldest
const item = {
  pendingPast: randomUUID(), // overdue: pending, due 10 days ago
  progressPast: randomUUID(), // overdue: in_progress, due 5 days ago
  storedOverdue: randomUUID(), // status overdue as set by the service, due 20 days ago
  completedLate: randomUUID(), // completed after its due date: done, not overdue
  naPast: randomUUID(), // not_applicable, past due: not overdue
  rejectedPast: randomUUID(), // rejected, past due: not overdue
  pendingFuture: randomUUID(), // not overdue: due in 10 days
  noDueDate: randomUUID(), // not overdue: no due date
};

const { h, ws, other } = useHarness({ workspaces: ['ws', 'other'] }, async () => {
  const base = { description: null };
  await h.import(ws.id, {
    suppliers: [
      { id: supplierA, name: 'Supplier A' },
      { id: supplierB, name: 'Supplier B' },
    ],
    assessments: [{ id: assessmentA, supplier_id: supplierA, assessment_type: 'supplier' }],
    action_plans: [
      {
        id: planOld,
        supplier_id: supplierA,
        assessment_id: null,
        title: 'Old plan',
        status: 'open',
        created_at: '2024-01-01T00:00:00Z',
      },
      {
        id: planA,
        supplier_id: supplierA,
        assessment_id: assessmentA,
        title: 'Plan A',
        status: 'in_progress',
        due_date: day(60),
        created_at: '2024-03-01T00:00:00Z',
        item_count: 999, // computed: ignored (decision 42)
      },
      {
        id: planB,
        supplier_id: supplierB,
        title: 'Plan B',
        status: 'closed',
        created_at: '2024-02-01T00:00:00Z',
      },
    ],
    action_plan_items: [
      {
        ...base,
        id: item.pendingPast,
        action_plan_id: planA,
        created_at: '2024-03-02T00:00:00Z',
        title: 'Pending past due',
        status: 'pending',
        due_date: day(-10),
        control_code: 'ISO-A.5.15',
        control_title: 'Access control',
      },
      {
        ...base,
        id: item.progressPast,
        action_plan_id: planA,
        created_at: '2024-03-03T00:00:00Z',
        title: 'In progress past due',
        status: 'in_progress',
        due_date: day(-5),
        // Imported out of order, with an offset: served canonical and oldest first.
        history: [
          {
            at: '2024-03-05T12:00:00+02:00',
            from_status: 'pending',
            to_status: 'in_progress',
            note: 'second',
            actor_id: null,
          },
          {
            at: '2024-03-02T09:30:00.123456Z',
            from_status: null,
            to_status: 'pending',
            note: 'first',
            actor_id: ws.userId,
          },
        ],
      },
      {
        ...base,
        id: item.storedOverdue,
        action_plan_id: planA,
        created_at: '2024-03-04T00:00:00Z',
        title: 'Marked overdue',
        status: 'overdue',
        due_date: day(-20),
      },
      {
        ...base,
        id: item.completedLate,
        action_plan_id: planA,
        created_at: '2024-03-08T00:00:00Z',
        title: 'Completed late',
        status: 'completed',
        due_date: day(-30),
        completed_at: new Date(Date.now() - 2 * DAY).toISOString(),
      },
      {
        ...base,
        id: item.naPast,
        action_plan_id: planA,
        created_at: '2024-03-06T00:00:00Z',
        title: 'N/A',
        status: 'not_applicable',
        due_date: day(-3),
      },
      {
        ...base,
        id: item.rejectedPast,
        action_plan_id: planA,
        created_at: '2024-03-06T00:00:00Z',
        title: 'Rejected',
        status: 'rejected',
        due_date: day(-3),
      },
      {
        ...base,
        id: item.pendingFuture,
        action_plan_id: planA,
        created_at: '2024-03-09T00:00:00Z',
        title: 'Pending future',
        status: 'pending',
        due_date: day(10),
      },
      {
        ...base,
        id: item.noDueDate,
        action_plan_id: planA,
        created_at: '2024-03-07T00:00:00Z',
        title: 'No due date',
        status: 'pending',
      },
    ],
  });
});

const get = (path: string, key = ws.key) => h.api('GET', path, { key });
const ids = (res: { json: { data: { id: string }[] } }) => res.json.data.map((row) => row.id);

describe('GET /action-plans', () => {
  test('newest first (decision 12) with item_count computed, not imported', async () => {
    const res = await get('/action-plans');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), [planA, planB, planOld]);
    const [a] = res.json.data;
    assert.equal(a.item_count, 8);
    assert.equal(a.assessment_id, assessmentA);
    assert.equal(a.due_date, day(60));
    assert.equal(res.json.data[1].item_count, 0);
    assert.deepEqual(res.json.meta, { has_more: false, next_cursor: null, feature_status: 'available' });
  });

  test('supplier_id filter; a supplier of another workspace gives an empty page; bad uuid is a 400', async () => {
    assert.deepEqual(ids(await get(`/action-plans?supplier_id=${supplierA}`)), [planA, planOld]);
    assert.deepEqual(ids(await get(`/action-plans?supplier_id=${supplierB}`)), [planB]);
    assert.deepEqual(ids(await get(`/action-plans?supplier_id=${supplierA}`, other.key)), []);
    assertError(await get('/action-plans?supplier_id=nope'), 400, 'invalid_request');
  });

  test('status filter is an exact match on the free string', async () => {
    assert.deepEqual(ids(await get('/action-plans?status=closed')), [planB]);
    assert.deepEqual(ids(await get('/action-plans?status=open')), [planOld]);
    assert.deepEqual(ids(await get('/action-plans?status=Open')), []);
  });

  test('cursor-paged: limit 1 walks every plan once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/action-plans?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(res.status, 200);
      seen.push(...ids(res));
      cursor = res.json.meta.next_cursor;
      assert.equal(res.json.meta.has_more, cursor !== null);
    } while (cursor);
    assert.deepEqual(seen, [planA, planB, planOld]);
  });

  test('another workspace sees none of these plans', async () => {
    assert.deepEqual(ids(await get('/action-plans', other.key)), []);
  });

  test('needs action-plans:read', async () => {
    const key = await h.key(ws.id, ws.userId, ['alerts:read']);
    const res = await get('/action-plans', key.secret);
    assertError(res, 403, 'insufficient_scope');
    assert.equal(res.json.error.details.required_scope, 'action-plans:read');
  });
});

describe('GET /action-plans/{id}/items', () => {
  // Decision 12: newest first by created_at, then id (decision 38: ties on id descending). The items were
  // created in an order that is neither their due dates' nor their ids'.
  const NEWEST_FIRST = [
    item.pendingFuture,
    item.completedLate,
    item.noDueDate,
    ...[item.naPast, item.rejectedPast].sort().reverse(), // created at the same instant
    item.storedOverdue,
    item.progressPast,
    item.pendingPast,
  ];
  const inListOrder = (subset: string[]) => NEWEST_FIRST.filter((id) => subset.includes(id));

  test('newest first by created_at, then id (decision 12); control code and title or null', async () => {
    const res = await get(`/action-plans/${planA}/items`);
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), NEWEST_FIRST);
    const byId = new Map(res.json.data.map((row: { id: string }) => [row.id, row]));
    const withControl = byId.get(item.pendingPast) as Record<string, unknown>;
    assert.equal(withControl.control_code, 'ISO-A.5.15');
    assert.equal(withControl.control_title, 'Access control');
    const without = byId.get(item.noDueDate) as Record<string, unknown>;
    assert.equal(without.control_code, null);
    assert.equal(without.control_title, null);
    assert.equal(without.due_date, null);
    assert.deepEqual(without.history, []);
    assert.deepEqual(res.json.meta, { has_more: false, next_cursor: null, feature_status: 'available' });
  });

  test('history entries {at, from_status, to_status, note, actor_id}, oldest first, instants canonical', async () => {
    const res = await get(`/action-plans/${planA}/items`);
    const row = res.json.data.find((entry: { id: string }) => entry.id === item.progressPast);
    assert.deepEqual(row.history, [
      {
        at: '2024-03-02T09:30:00.123456Z',
        from_status: null,
        to_status: 'pending',
        note: 'first',
        actor_id: ws.userId,
      },
      {
        at: '2024-03-05T10:00:00.000000Z',
        from_status: 'pending',
        to_status: 'in_progress',
        note: 'second',
        actor_id: null,
      },
    ]);
  });

  test('overdue=true: past due and not completed, not_applicable or rejected (decision 18)', async () => {
    const res = await get(`/action-plans/${planA}/items?overdue=true`);
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), inListOrder([item.storedOverdue, item.pendingPast, item.progressPast]));
  });

  test('an item completed after its due date is done, not overdue', async () => {
    const overdue = ids(await get(`/action-plans/${planA}/items?overdue=true`));
    const notOverdue = ids(await get(`/action-plans/${planA}/items?overdue=false`));
    assert.ok(!overdue.includes(item.completedLate));
    assert.ok(notOverdue.includes(item.completedLate));
  });

  test('overdue=false is the complement: finished, future and undated items (decision 35)', async () => {
    const res = await get(`/action-plans/${planA}/items?overdue=false`);
    assert.deepEqual(
      ids(res),
      inListOrder([item.completedLate, item.naPast, item.rejectedPast, item.pendingFuture, item.noDueDate]),
    );
  });

  test('status filter matches the stored status; combines with overdue', async () => {
    assert.deepEqual(
      ids(await get(`/action-plans/${planA}/items?status=pending`)),
      inListOrder([item.pendingPast, item.pendingFuture, item.noDueDate]),
    );
    assert.deepEqual(ids(await get(`/action-plans/${planA}/items?status=overdue`)), [item.storedOverdue]);
    assert.deepEqual(ids(await get(`/action-plans/${planA}/items?status=pending&overdue=true`)), [
      item.pendingPast,
    ]);
  });

  test('limit cuts rows, keeping the newest: has_more true, next_cursor null (decision 40)', async () => {
    const res = await get(`/action-plans/${planA}/items?limit=3`);
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), NEWEST_FIRST.slice(0, 3));
    assert.equal(res.json.meta.has_more, true);
    assert.equal(res.json.meta.next_cursor, null);
    const exact = await get(`/action-plans/${planA}/items?limit=8`);
    assert.equal(exact.json.data.length, 8);
    assert.equal(exact.json.meta.has_more, false);
  });

  test('cursor is rejected (not cursor-paged, decision 40); malformed filters are 400', async () => {
    for (const query of [
      'cursor=abc',
      'overdue=yes',
      'overdue=',
      'status=done',
      'limit=0',
      'limit=201',
      'x=1',
    ]) {
      const res = await get(`/action-plans/${planA}/items?${query}`);
      assertError(res, 400, 'invalid_request');
    }
  });

  test('a plan without items is an empty 200; a missing or foreign plan is a 404', async () => {
    const empty = await get(`/action-plans/${planB}/items`);
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.json.data, []);
    assertError(await get(`/action-plans/${randomUUID()}/items`), 404, 'resource_not_found');
    assertError(await get(`/action-plans/${planA}/items`, other.key), 404, 'resource_not_found');
    assertError(await get('/action-plans/not-a-uuid/items'), 404, 'resource_not_found');
  });
});

/** A fresh plan with one item per test, so PATCH tests do not depend on each other. */
async function freshItem(fields: Record<string, unknown> = {}): Promise<{ planId: string; itemId: string }> {
  const planId = randomUUID();
  const itemId = randomUUID();
  await h.import(ws.id, {
    action_plans: [{ id: planId, supplier_id: supplierA, title: 'Patch plan' }],
    action_plan_items: [
      {
        id: itemId,
        action_plan_id: planId,
        title: 'Patch me',
        status: 'pending',
        due_date: day(-3),
        ...fields,
      },
    ],
  });
  return { planId, itemId };
}

const patch = (id: string, body: unknown, key = ws.key) =>
  h.api('PATCH', `/action-plan-items/${id}`, { key, body });

async function statusEvents(itemId: string): Promise<Record<string, unknown>[]> {
  const rows = await h.db.query<{ payload: string }>(
    "select payload from events where workspace_id = $1 and type = 'action_plan_item.status_changed' order by occurred_at",
    [ws.id],
  );
  return rows
    .map((row) => JSON.parse(row.payload))
    .filter((event) => event.data.action_plan_item_id === itemId);
}

async function auditEntries(itemId: string) {
  return h.db.query<{
    action: string;
    actor_type: string;
    actor_id: string;
    metadata: Record<string, unknown>;
  }>(
    'select action, actor_type, actor_id, metadata from audit_logs where workspace_id = $1 and target_id = $2 order by occurred_at',
    [ws.id, itemId],
  );
}

describe('PATCH /action-plan-items/{id}', () => {
  test('a change: 200 the item, history entry attributed to the key creator, one event, one audit entry', async () => {
    const { planId, itemId } = await freshItem();
    const res = await patch(itemId, { status: 'in_progress', note: 'Started' });
    assert.equal(res.status, 200);
    assert.equal(res.json.id, itemId);
    assert.equal(res.json.status, 'in_progress');
    assert.equal(res.json.completed_at, null);
    assert.equal(res.json.history.length, 1);
    const [entry] = res.json.history;
    assert.deepEqual(
      { ...entry, at: undefined },
      {
        at: undefined,
        from_status: 'pending',
        to_status: 'in_progress',
        note: 'Started',
        actor_id: ws.userId,
      },
    );
    assert.match(entry.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    // Event recorded in the same transaction, with the data of decision 25, exactly once.
    const events = await statusEvents(itemId);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]?.data, {
      action_plan_item_id: itemId,
      action_plan_id: planId,
      previous_status: 'pending',
      status: 'in_progress',
    });
    assert.equal(events[0]?.organization_id, ws.id);

    // decision 26: audited, attributed to the human who created the key, key id in metadata.
    const audits = await auditEntries(itemId);
    assert.equal(audits.length, 1);
    assert.equal(audits[0]?.action, 'action_plan_item.status_changed');
    assert.equal(audits[0]?.actor_type, 'user');
    assert.equal(audits[0]?.actor_id, ws.userId);
    assert.equal(audits[0]?.metadata.api_key_id, ws.keyId);
  });

  test('the same status without a note: 200, no history entry, no event, nothing written (decisions 17, 43)', async () => {
    const { itemId } = await freshItem();
    const res = await patch(itemId, { status: 'pending' });
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'pending');
    assert.deepEqual(res.json.history, []);
    assert.equal((await statusEvents(itemId)).length, 0);
    assert.equal((await auditEntries(itemId)).length, 0);
  });

  test('the same status with a note: the note joins the history, no event', async () => {
    const { itemId } = await freshItem();
    const res = await patch(itemId, { status: 'pending', note: 'Chased the supplier' });
    assert.equal(res.status, 200);
    assert.equal(res.json.history.length, 1);
    assert.equal(res.json.history[0].from_status, 'pending');
    assert.equal(res.json.history[0].to_status, 'pending');
    assert.equal(res.json.history[0].note, 'Chased the supplier');
    assert.equal((await statusEvents(itemId)).length, 0);
  });

  test('completed_at is set on entering completed, kept while completed, cleared on leaving', async () => {
    const { itemId } = await freshItem();
    const done = await patch(itemId, { status: 'completed' });
    assert.equal(done.status, 200);
    assert.match(done.json.completed_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.equal(done.json.completed_at, done.json.history[0].at);
    assert.equal(done.json.history[0].note, null);

    const again = await patch(itemId, { status: 'completed', note: 'Evidence attached' });
    assert.equal(again.json.completed_at, done.json.completed_at);

    const reopened = await patch(itemId, { status: 'in_progress' });
    assert.equal(reopened.json.completed_at, null);
    assert.deepEqual(
      reopened.json.history.map((entry: { from_status: string; to_status: string }) => [
        entry.from_status,
        entry.to_status,
      ]),
      [
        ['pending', 'completed'],
        ['completed', 'completed'],
        ['completed', 'in_progress'],
      ],
    );
    // Two actual changes, two events; the note-only PATCH emitted none.
    const events = await statusEvents(itemId);
    assert.deepEqual(
      events.map((event) => [
        (event.data as Record<string, unknown>).previous_status,
        (event.data as Record<string, unknown>).status,
      ]),
      [
        ['pending', 'completed'],
        ['completed', 'in_progress'],
      ],
    );
  });

  test('a completed item no longer counts as overdue; moving it back makes it overdue again', async () => {
    const { planId, itemId } = await freshItem();
    const overdue = async () => ids(await get(`/action-plans/${planId}/items?overdue=true`));
    assert.deepEqual(await overdue(), [itemId]);
    await patch(itemId, { status: 'completed' });
    assert.deepEqual(await overdue(), []);
    await patch(itemId, { status: 'pending' });
    assert.deepEqual(await overdue(), [itemId]);
  });

  test('any accepted status may follow any other (decision 16)', async () => {
    const { itemId } = await freshItem();
    for (const status of ['rejected', 'pending', 'not_applicable', 'completed', 'rejected', 'in_progress']) {
      const res = await patch(itemId, { status });
      assert.equal(res.status, 200, `to ${status}: ${res.body}`);
      assert.equal(res.json.status, status);
    }
  });

  test('a service-set overdue item can be moved on; previous_status is overdue', async () => {
    const { itemId } = await freshItem({ status: 'overdue' });
    const res = await patch(itemId, { status: 'in_progress' });
    assert.equal(res.status, 200);
    const [event] = await statusEvents(itemId);
    assert.equal((event?.data as Record<string, unknown> | undefined)?.previous_status, 'overdue');
  });

  test('asking for overdue is a 422 on status, nothing changes (decision 16)', async () => {
    const { itemId } = await freshItem();
    const res = await patch(itemId, { status: 'overdue' });
    assertError(res, 422, 'validation_failed');
    assert.deepEqual(Object.keys(res.json.error.details.fields), ['status']);
    assert.equal((await statusEvents(itemId)).length, 0);
  });

  test('422 names every bad field: missing status, unknown fields, bad note', async () => {
    const { itemId } = await freshItem();
    const res = await patch(itemId, { note: 42, colour: 'red' });
    assertError(res, 422, 'validation_failed');
    assert.deepEqual(Object.keys(res.json.error.details.fields).sort(), ['colour', 'note', 'status']);
    assertError(await patch(itemId, { status: 'finished' }), 422, 'validation_failed');
    assertError(await patch(itemId, { status: 'pending', note: '' }), 422, 'validation_failed');
  });

  test('a body that is not a JSON object is a 400', async () => {
    const { itemId } = await freshItem();
    const res = await h.api('PATCH', `/action-plan-items/${itemId}`, {
      key: ws.key,
      rawBody: '[1]',
      headers: { 'content-type': 'application/json' },
    });
    assertError(res, 400, 'invalid_request');
  });

  test('an item of another workspace is a 404 and stays untouched; a missing one too', async () => {
    const { itemId } = await freshItem();
    assertError(await patch(itemId, { status: 'completed' }, other.key), 404, 'resource_not_found');
    assertError(await patch(randomUUID(), { status: 'completed' }), 404, 'resource_not_found');
    assertError(await patch('nope', { status: 'completed' }), 404, 'resource_not_found');
    const [row] = await h.db.query<{ status: string }>(
      'select status from action_plan_items where workspace_id = $1 and id = $2',
      [ws.id, itemId],
    );
    assert.equal(row?.status, 'pending');
    assert.equal((await statusEvents(itemId)).length, 0);
  });

  test('needs action-plans:write; a read key gets 403 naming the scope', async () => {
    const { itemId } = await freshItem();
    const key = await h.key(ws.id, ws.userId, ['action-plans:read']);
    const res = await patch(itemId, { status: 'completed' }, key.secret);
    assertError(res, 403, 'insufficient_scope');
    assert.equal(res.json.error.details.required_scope, 'action-plans:write');
  });
});

describe('GET /action-plan-items/{id} (P159)', () => {
  test('one item, the same JSON as its row in the items of its plan', async () => {
    const listed = new Map(
      (await get(`/action-plans/${planA}/items?limit=200`)).json.data.map((row: { id: string }) => [
        row.id,
        row,
      ]),
    );
    for (const id of [item.pendingPast, item.progressPast, item.noDueDate]) {
      const res = await get(`/action-plan-items/${id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, listed.get(id));
    }
  });

  test('fetched by the id its status_changed event carries: the new status and history', async () => {
    const { itemId } = await freshItem();
    const changed = await patch(itemId, { status: 'in_progress', note: 'started' });
    assert.equal(changed.status, 200);
    const [event] = await statusEvents(itemId);
    assert.ok(event, 'the status_changed event');
    const id = (event.data as { action_plan_item_id: string }).action_plan_item_id;
    const res = await get(`/action-plan-items/${id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, changed.json);
    assert.equal(res.json.status, 'in_progress');
    assert.equal(res.json.history.at(-1).note, 'started');
  });

  test('another workspace, an unknown id or not a uuid: 404; needs action-plans:read', async () => {
    assertError(await get(`/action-plan-items/${item.pendingPast}`, other.key), 404, 'resource_not_found');
    assertError(await get(`/action-plan-items/${randomUUID()}`), 404, 'resource_not_found');
    assertError(await get('/action-plan-items/nope'), 404, 'resource_not_found');
    const key = await h.key(ws.id, ws.userId, ['alerts:read']);
    const res = await get(`/action-plan-items/${item.pendingPast}`, key.secret);
    assertError(res, 403, 'insufficient_scope');
    assert.equal(res.json.error.details.required_scope, 'action-plans:read');
  });
});

describe('POST /admin/action-plan-items/{id}/status', () => {
  const adminStatus = (id: string, body: unknown) =>
    h.admin('POST', `/admin/action-plan-items/${id}/status`, body);

  test('same rules and event as the PATCH, attributed to user_id', async () => {
    const { planId, itemId } = await freshItem();
    const colleague = await h.admin('POST', `/admin/workspaces/${ws.id}/users`, {
      name: 'Colleague',
      email: 'colleague@test.example',
    });
    const res = await adminStatus(itemId, {
      status: 'completed',
      note: 'Closed in the app',
      user_id: colleague.json.id,
    });
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'completed');
    assert.notEqual(res.json.completed_at, null);
    assert.deepEqual(
      { ...res.json.history[0], at: undefined },
      {
        at: undefined,
        from_status: 'pending',
        to_status: 'completed',
        note: 'Closed in the app',
        actor_id: colleague.json.id,
      },
    );
    const events = await statusEvents(itemId);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]?.data, {
      action_plan_item_id: itemId,
      action_plan_id: planId,
      previous_status: 'pending',
      status: 'completed',
    });
    const audits = await auditEntries(itemId);
    assert.equal(audits.length, 1);
    assert.equal(audits[0]?.action, 'action_plan_item.status_changed');
    assert.equal(audits[0]?.actor_id, colleague.json.id);

    // Same status, no note: no event (decision 17).
    const same = await adminStatus(itemId, { status: 'completed', user_id: colleague.json.id });
    assert.equal(same.status, 200);
    assert.equal(same.json.history.length, 1);
    assert.equal((await statusEvents(itemId)).length, 1);
  });

  test('a user of another workspace is a 422 on user_id; nothing changes', async () => {
    const { itemId } = await freshItem();
    const res = await adminStatus(itemId, { status: 'completed', user_id: other.userId });
    assertError(res, 422, 'validation_failed');
    assert.deepEqual(Object.keys(res.json.error.details.fields), ['user_id']);
    assert.equal((await statusEvents(itemId)).length, 0);
    const unknown = await adminStatus(itemId, { status: 'completed', user_id: randomUUID() });
    assertError(unknown, 422, 'validation_failed');
  });

  test('overdue and unknown fields are 422; a missing item is a 404', async () => {
    const { itemId } = await freshItem();
    assertError(
      await adminStatus(itemId, { status: 'overdue', user_id: ws.userId }),
      422,
      'validation_failed',
    );
    assertError(await adminStatus(itemId, { status: 'completed' }), 422, 'validation_failed');
    assertError(
      await adminStatus(randomUUID(), { status: 'completed', user_id: ws.userId }),
      404,
      'resource_not_found',
    );
  });
});

describe('Import of action plans and items', () => {
  test('references must resolve inside the workspace: a plan of another workspace is a 422', async () => {
    const res = await h.admin('POST', `/admin/workspaces/${other.id}/import`, {
      action_plan_items: [{ action_plan_id: planA, title: 'Foreign' }],
    });
    assertError(res, 422, 'validation_failed');
    assert.ok('action_plan_items[0].action_plan_id' in res.json.error.details.fields);
  });

  test('the seed generator output imports (action plans, items, with their history)', async () => {
    const { generateSeedDocument } = await import('../../src/seed/index.js');
    const full = generateSeedDocument({ size: { suppliers: 8 }, seed: 2026 });
    // This area's collections and their parents.
    const document = Object.fromEntries(
      ['suppliers', 'assessments', 'action_plans', 'action_plan_items'].map((name) => [
        name,
        full[name] ?? [],
      ]),
    );
    const target = await h.workspace();
    const res = await h.import(target.id, document);
    assert.equal(res.json.created.action_plans, document.action_plans?.length);
    assert.equal(res.json.created.action_plan_items, document.action_plan_items?.length);
    assert.ok((document.action_plan_items?.length ?? 0) > 0);
  });
});
