// risk-data-api.md "Endpoints › Assessments", "States and transitions", "Events", "What the service does" 6;
// resources.md "Assessment", "Gap"; decisions 2, 3, 6-11, 25, 26, 38, 40, 42; management-api.md
// "POST /admin/assessments/{id}/status".
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { ContractEventTypes } from '../../src/contract/events.js';
import { publicOperations } from '../../src/resources/operations.js';
import { assertError, type Response, useHarness } from '../support/harness.js';

// Fixture of the filter tests: two suppliers and four assessments with distinct values on every filter.
const S1 = randomUUID();
const S2 = randomUUID();
const A1 = randomUUID(); // S1, supplier, completed/approved, expires 2024-12-31, updated 2024-01-01
const A2 = randomUUID(); // S1, self, completed/rejected, expires 2024-07-01, updated 2024-06-01
const A3 = randomUUID(); // S2, supplier, in_progress, updated 2025-03-01
const A4 = randomUUID(); // S2, self, draft, updated 2025-05-01

const EVIDENCE = [
  {
    file_name: 'soc2.pdf',
    mime_type: 'application/pdf',
    sha256: 'ab'.repeat(32),
    review_status: 'accepted',
    score: 80,
  },
];
// Codes whose byte order differs from a linguistic order (upper case before lower case, '1' before '9').
const GAP_CODES = ['a.1', 'ISO-9', 'Z-1', 'B.2', 'ISO-10'];
const BYTE_ORDER = ['B.2', 'ISO-10', 'ISO-9', 'Z-1', 'a.1'];

const { h, ws } = useHarness({ workspaces: ['ws'] }, async () => {
  await h.import(ws.id, {
    suppliers: [
      { id: S1, name: 'Supplier one', vendor_profile: 'P2' },
      { id: S2, name: 'Supplier two' },
    ],
    assessments: [
      {
        id: A1,
        supplier_id: S1,
        assessment_type: 'supplier',
        status: 'completed',
        decision: 'approved',
        completed_at: '2024-01-01T00:00:00Z',
        validity_days: 365,
        created_at: '2023-12-01T00:00:00Z',
        updated_at: '2024-01-01T00:00:00Z',
      },
      {
        id: A2,
        supplier_id: S1,
        assessment_type: 'self',
        status: 'completed',
        decision: 'rejected',
        completed_at: '2024-06-01T00:00:00Z',
        validity_days: 30,
        created_at: '2024-05-01T00:00:00Z',
        updated_at: '2024-06-01T00:00:00Z',
      },
      {
        id: A3,
        supplier_id: S2,
        assessment_type: 'supplier',
        status: 'in_progress',
        created_at: '2025-02-01T00:00:00Z',
        updated_at: '2025-03-01T00:00:00Z',
      },
      {
        id: A4,
        supplier_id: S2,
        assessment_type: 'self',
        status: 'draft',
        created_at: '2025-04-01T00:00:00Z',
        updated_at: '2025-05-01T00:00:00Z',
      },
    ],
    gaps: [
      ...GAP_CODES.map((code, i) => ({
        assessment_id: A1,
        control_code: code,
        control_title: `Control ${code}`,
        gap_description: 'Partially met: the policy is outdated.',
        domain: 'cyber',
        status: 'partially_met',
        severity: i % 2 === 0 ? 'high' : 'low',
        evidence_status: 'accepted',
        evidence: EVIDENCE,
      })),
      // A gap of another assessment: never part of A1's list.
      {
        assessment_id: A2,
        control_code: 'A2-ONLY',
        control_title: 'Other',
        status: 'not_met',
        severity: 'high',
      },
    ],
  });
});

const ids = (res: Response) => res.json.data.map((row: { id: string }) => row.id);
const list = (query: string, key = ws.key) => h.api('GET', `/assessments${query}`, { key });
const create = (body: unknown, key = ws.key, idempotencyKey: string = randomUUID()) =>
  h.api('POST', '/assessments', { key, body, headers: { 'idempotency-key': idempotencyKey } });
const setStatus = (id: string, body: unknown) => h.admin('POST', `/admin/assessments/${id}/status`, body);
const completionEvents = (workspaceId: string, assessmentId: string) =>
  h.db.query<{ payload: string }>(
    `select payload from events where workspace_id = $1 and type = 'assessment.completed'
        and payload::json -> 'data' ->> 'assessment_id' = $2`,
    [workspaceId, assessmentId],
  );

describe('GET /assessments', () => {
  test('a page of assessments newest first by created_at, with currency USD (decision 12)', async () => {
    const res = await list('');
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), [A4, A3, A2, A1]);
    assert.equal(res.json.currency, 'USD');
    assert.deepEqual(res.json.meta, { has_more: false, next_cursor: null, feature_status: 'available' });
  });

  test('fields of resources.md; expires_at = completed_at + validity_days; gap_count', async () => {
    const res = await h.api('GET', `/assessments/${A1}`, { key: ws.key });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json).sort(), [
      'assessment_type',
      'completed_at',
      'contract_value',
      'created_at',
      'deadline',
      'decision',
      'expires_at',
      'gap_count',
      'id',
      'score',
      'sent_at',
      'status',
      'supplier_id',
      'updated_at',
      'validity_days',
      'vendor_profile',
    ]);
    assert.equal(res.json.expires_at, '2024-12-31T00:00:00.000000Z');
    assert.equal(res.json.gap_count, GAP_CODES.length);
    const draft = await h.api('GET', `/assessments/${A4}`, { key: ws.key });
    assert.equal(draft.json.expires_at, null);
  });

  test('filter supplier_id', async () => {
    assert.deepEqual(ids(await list(`?supplier_id=${S1}`)), [A2, A1]);
    assert.deepEqual(ids(await list(`?supplier_id=${S2}`)), [A4, A3]);
  });

  test('filter status', async () => {
    assert.deepEqual(ids(await list('?status=completed')), [A2, A1]);
    assert.deepEqual(ids(await list('?status=draft')), [A4]);
  });

  test('filter decision', async () => {
    assert.deepEqual(ids(await list('?decision=approved')), [A1]);
    assert.deepEqual(ids(await list('?decision=rejected')), [A2]);
  });

  test('filter assessment_type', async () => {
    assert.deepEqual(ids(await list('?assessment_type=self')), [A4, A2]);
    assert.deepEqual(ids(await list('?assessment_type=supplier')), [A3, A1]);
  });

  test('filter expires_before compares expires_at, strictly (resources.md)', async () => {
    assert.deepEqual(ids(await list('?expires_before=2024-08-01T00:00:00Z')), [A2]);
    assert.deepEqual(ids(await list('?expires_before=2025-01-01T00:00:00Z')), [A2, A1]);
    // A1 expires exactly at 2024-12-31T00:00:00Z: not before it.
    assert.deepEqual(ids(await list('?expires_before=2024-12-31T00:00:00Z')), [A2]);
  });

  test('filter updated_since, at or after', async () => {
    assert.deepEqual(ids(await list('?updated_since=2025-01-01T00:00:00Z')), [A4, A3]);
    assert.deepEqual(ids(await list('?updated_since=2025-05-01T00:00:00Z')), [A4]);
  });

  test('filters combine', async () => {
    assert.deepEqual(ids(await list(`?supplier_id=${S1}&assessment_type=supplier`)), [A1]);
  });

  test('a supplier id of another workspace gives an empty page, not rows nor an error', async () => {
    const other = await h.workspace();
    const theirs = randomUUID();
    await h.import(other.id, { suppliers: [{ id: theirs, name: 'Theirs' }] });
    await h.import(other.id, {
      assessments: [{ supplier_id: theirs, assessment_type: 'supplier' }],
    });
    const res = await list(`?supplier_id=${theirs}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.data, []);
  });

  test('malformed filter values are 400 invalid_request naming the parameter (decision 2)', async () => {
    for (const [query, parameter] of [
      ['?supplier_id=not-a-uuid', 'supplier_id'],
      ['?status=archived', 'status'],
      ['?decision=maybe', 'decision'],
      ['?assessment_type=external', 'assessment_type'],
      ['?expires_before=2024-02-30T00:00:00Z', 'expires_before'],
      ['?updated_since=yesterday', 'updated_since'],
      ['?vendor_profile=P1', 'vendor_profile'],
      ['?limit=201', 'limit'],
    ] as const) {
      const res = await list(query);
      assertError(res, 400, 'invalid_request');
      assert.equal(res.json.error.details.parameter, parameter, query);
    }
  });

  test('cursor paging walks every row once', async () => {
    const first = await list('?limit=3');
    assert.deepEqual(ids(first), [A4, A3, A2]);
    assert.equal(first.json.meta.has_more, true);
    const second = await list(`?limit=3&cursor=${encodeURIComponent(first.json.meta.next_cursor)}`);
    assert.deepEqual(ids(second), [A1]);
    assert.equal(second.json.meta.has_more, false);
    assert.equal(second.json.meta.next_cursor, null);
  });
});

describe('GET /assessments/{id}', () => {
  test('an assessment of another workspace is a 404, like a missing one; a non-uuid id is a 404', async () => {
    const other = await h.workspace();
    assertError(await h.api('GET', `/assessments/${A1}`, { key: other.key }), 404, 'resource_not_found');
    assertError(
      await h.api('GET', `/assessments/${randomUUID()}`, { key: ws.key }),
      404,
      'resource_not_found',
    );
    assertError(await h.api('GET', '/assessments/A1', { key: ws.key }), 404, 'resource_not_found');
  });

  test('needs assessments:read (403 insufficient_scope naming it)', async () => {
    const key = await h.key(ws.id, ws.userId, ['reports:read']);
    const res = await h.api('GET', `/assessments/${A1}`, { key: key.secret });
    assertError(res, 403, 'insufficient_scope');
    assert.equal(res.json.error.details.required_scope, 'assessments:read');
  });
});

describe('POST /assessments', () => {
  test('201 in draft, supplier not invited, vendor_profile from the supplier, validity_days 365', async () => {
    const res = await create({ supplier_id: S1, assessment_type: 'self' });
    assert.equal(res.status, 201);
    assert.equal(res.json.status, 'draft');
    assert.equal(res.json.supplier_id, S1);
    assert.equal(res.json.assessment_type, 'self');
    assert.equal(res.json.vendor_profile, 'P2');
    assert.equal(res.json.validity_days, 365);
    // Not invited: never sent.
    assert.equal(res.json.sent_at, null);
    assert.equal(res.json.decision, null);
    assert.equal(res.json.completed_at, null);
    assert.equal(res.json.gap_count, 0);
    const read = await h.api('GET', `/assessments/${res.json.id}`, { key: ws.key });
    assert.equal(read.body, res.body);
  });

  test('deadline and validity_days are stored', async () => {
    const deadline = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const res = await create({ supplier_id: S2, assessment_type: 'self', deadline, validity_days: 90 });
    assert.equal(res.status, 201);
    assert.equal(Date.parse(res.json.deadline), Date.parse(deadline));
    assert.equal(res.json.validity_days, 90);
    assert.equal(res.json.vendor_profile, null);
  });

  test('writes assessment.created attributed to the key creator (decision 26)', async () => {
    const res = await create({ supplier_id: S1, assessment_type: 'self' });
    const rows = await h.db.query<{ actor_type: string; actor_id: string; metadata: { api_key_id: string } }>(
      `select actor_type, actor_id, metadata from audit_logs
        where workspace_id = $1 and action = 'assessment.created' and target_id = $2`,
      [ws.id, res.json.id],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.actor_type, 'user');
    assert.equal(rows[0]?.actor_id, ws.userId);
    assert.equal(rows[0]?.metadata.api_key_id, ws.keyId);
  });

  test('422 for a supplier of another workspace or a missing one (decisions 3, 6)', async () => {
    const other = await h.workspace();
    const theirs = randomUUID();
    await h.import(other.id, { suppliers: [{ id: theirs, name: 'Theirs' }] });
    for (const supplierId of [theirs, randomUUID()]) {
      const res = await create({ supplier_id: supplierId, assessment_type: 'supplier' });
      assertError(res, 422, 'validation_failed');
      assert.deepEqual(Object.keys(res.json.error.details.fields), ['supplier_id']);
    }
    const rows = await h.db.query('select 1 from assessments where supplier_id = $1', [theirs]);
    assert.equal(rows.length, 0);
  });

  test('422 names every bad field: required, enum, unknown, bounds, past deadline', async () => {
    const missing = await create({});
    assertError(missing, 422, 'validation_failed');
    assert.deepEqual(Object.keys(missing.json.error.details.fields).sort(), [
      'assessment_type',
      'supplier_id',
    ]);

    const bad = await create({
      supplier_id: 'nope',
      assessment_type: 'external',
      validity_days: 0,
      deadline: '2024-02-30T00:00:00Z',
      vendor_profile: 'P1',
    });
    assertError(bad, 422, 'validation_failed');
    assert.deepEqual(Object.keys(bad.json.error.details.fields).sort(), [
      'assessment_type',
      'deadline',
      'supplier_id',
      'validity_days',
      'vendor_profile',
    ]);

    const past = await create({ supplier_id: S1, assessment_type: 'self', deadline: '2020-01-01T00:00:00Z' });
    assertError(past, 422, 'validation_failed');
    assert.deepEqual(Object.keys(past.json.error.details.fields), ['deadline']);
  });

  test('a past deadline written as a leap second is a 422 too; a future one is accepted (P19)', async () => {
    // 23:59:60 is a valid RFC 3339 instant that JavaScript's Date.parse cannot read: it used to pass as future.
    const past = await create({ supplier_id: S1, assessment_type: 'self', deadline: '2016-12-31T23:59:60Z' });
    assertError(past, 422, 'validation_failed');
    assert.deepEqual(Object.keys(past.json.error.details.fields), ['deadline']);
    const future = await create({
      supplier_id: S1,
      assessment_type: 'self',
      deadline: '2099-12-31T23:59:60Z',
    });
    assert.equal(future.status, 201, future.body);
    assert.equal(future.json.deadline, '2100-01-01T00:00:00.000000Z');
  });

  test('400 without Idempotency-Key; 400 when the body is not an object (decisions 3, 10)', async () => {
    const res = await h.api('POST', '/assessments', {
      key: ws.key,
      body: { supplier_id: S1, assessment_type: 'self' },
    });
    assertError(res, 400, 'invalid_request');
    assertError(
      await h.api('POST', '/assessments', {
        key: ws.key,
        rawBody: '[1]',
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      }),
      400,
      'invalid_request',
    );
  });

  test('needs assessments:write', async () => {
    const key = await h.key(ws.id, ws.userId, ['assessments:read']);
    const res = await create({ supplier_id: S1, assessment_type: 'self' }, key.secret);
    assertError(res, 403, 'insufficient_scope');
    assert.equal(res.json.error.details.required_scope, 'assessments:write');
  });

  test('replay with the same key and body returns the stored response and writes nothing (decision 8)', async () => {
    const idempotencyKey = randomUUID();
    const body = { supplier_id: S2, assessment_type: 'self', validity_days: 10 };
    const first = await create(body, ws.key, idempotencyKey);
    assert.equal(first.status, 201);
    // Same body with another key order: canonicalised (decision 7).
    const again = await create(
      { validity_days: 10, assessment_type: 'self', supplier_id: S2 },
      ws.key,
      idempotencyKey,
    );
    assert.equal(again.status, 201);
    assert.equal(again.body, first.body);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const rows = await h.db.query(
      'select 1 from assessments where workspace_id = $1 and validity_days = 10',
      [ws.id],
    );
    assert.equal(rows.length, 1);
    const reused = await create({ ...body, validity_days: 11 }, ws.key, idempotencyKey);
    assertError(reused, 409, 'conflict');
    assert.equal(reused.json.error.details.reason, 'idempotency_key_reused');
  });

  test('supplier assessments beyond assessment_quota are 409 assessment_quota_exceeded; self ones and imported ones do not count (decision 11)', async () => {
    const small = await h.workspace();
    const patched = await h.admin('PATCH', `/admin/workspaces/${small.id}`, { assessment_quota: 2 });
    assert.equal(patched.status, 200);
    const supplierId = randomUUID();
    await h.import(small.id, {
      suppliers: [{ id: supplierId, name: 'Quota supplier' }],
      // Imported supplier assessments do not count (decision 42).
      assessments: [
        { supplier_id: supplierId, assessment_type: 'supplier' },
        { supplier_id: supplierId, assessment_type: 'supplier' },
      ],
    });
    const body = { supplier_id: supplierId, assessment_type: 'supplier' };
    assert.equal((await create(body, small.key)).status, 201);
    assert.equal((await create(body, small.key)).status, 201);
    const over = await create(body, small.key);
    assertError(over, 409, 'conflict');
    assert.equal(over.json.error.details.reason, 'assessment_quota_exceeded');
    // Self assessments never consume the quota.
    assert.equal((await create({ ...body, assessment_type: 'self' }, small.key)).status, 201);
    const rows = await h.db.query(
      "select 1 from assessments where workspace_id = $1 and assessment_type = 'supplier'",
      [small.id],
    );
    assert.equal(rows.length, 4);
    // Raising the quota lets the next one through.
    await h.adminClient.updateWorkspace({ params: { id: small.id }, body: { assessment_quota: 3 } });
    assert.equal((await create(body, small.key)).status, 201);
  });

  // Concurrent creates each wait for the one before; the quota must be judged on what that one committed.
  for (const [quota, requests] of [
    [1, 10],
    [3, 20],
  ] as const) {
    test(`${requests} concurrent supplier creates with quota ${quota}: exactly ${quota} created, the rest 409 (decision 11)`, async () => {
      const small = await h.workspace();
      await h.adminClient.updateWorkspace({ params: { id: small.id }, body: { assessment_quota: quota } });
      const supplierId = randomUUID();
      await h.import(small.id, { suppliers: [{ id: supplierId, name: 'Race supplier' }] });
      const body = { supplier_id: supplierId, assessment_type: 'supplier' };
      const answers = await Promise.all(Array.from({ length: requests }, () => create(body, small.key)));
      const refused = answers.filter((res) => res.status !== 201);
      assert.equal(answers.length - refused.length, quota, answers.map((res) => res.status).join(' '));
      for (const res of refused) {
        assertError(res, 409, 'conflict');
        assert.equal(res.json.error.details.reason, 'assessment_quota_exceeded');
      }
      const rows = await h.db.query('select 1 from assessments where workspace_id = $1', [small.id]);
      assert.equal(rows.length, quota);
    });
  }
});

describe('GET /assessments/{id}/gaps', () => {
  const gaps = (id: string, query = '', key = ws.key) =>
    h.api('GET', `/assessments/${id}/gaps${query}`, { key });

  test('every gap in one response, by control code in byte order, has_more false, next_cursor null (decisions 38, 40)', async () => {
    const res = await gaps(A1);
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.json.data.map((gap: { control_code: string }) => gap.control_code),
      BYTE_ORDER,
    );
    assert.deepEqual(res.json.meta, { has_more: false, next_cursor: null, feature_status: 'available' });
  });

  test('only the gaps of that assessment: no endpoint enumerates the control catalogue (clause 6)', async () => {
    const res = await gaps(A2);
    assert.deepEqual(
      res.json.data.map((gap: { control_code: string }) => gap.control_code),
      ['A2-ONLY'],
    );
    const none = await gaps(A4);
    assert.equal(none.status, 200);
    assert.deepEqual(none.json.data, []);
    // No public route can list, filter or page controls, frameworks or questionnaire pools.
    for (const route of publicOperations) {
      assert.doesNotMatch(route.path, /control|framework|crosswalk|questionnaire|mitre|catalog/i, route.path);
    }
    for (const path of ['/controls', `/controls/${BYTE_ORDER[0]}`, '/control-library', '/frameworks']) {
      assertError(await h.api('GET', path, { key: ws.key }), 404, 'resource_not_found');
    }
  });

  test('filter severity', async () => {
    const high = await gaps(A1, '?severity=high');
    assert.deepEqual(
      high.json.data.map((gap: { control_code: string }) => gap.control_code),
      ['ISO-10', 'Z-1', 'a.1'],
    );
    assert.ok(high.json.data.every((gap: { severity: string }) => gap.severity === 'high'));
    const medium = await gaps(A1, '?severity=medium');
    assert.deepEqual(medium.json.data, []);
    assertError(await gaps(A1, '?severity=critical'), 400, 'invalid_request');
  });

  test('evidence only with evidence:read: absent otherwise, never null; evidence_status always', async () => {
    const full = await gaps(A1);
    for (const gap of full.json.data) {
      assert.deepEqual(gap.evidence, EVIDENCE);
      assert.equal(gap.evidence_status, 'accepted');
    }
    const key = await h.key(ws.id, ws.userId, ['assessments:read', 'pii:read']);
    const redacted = await gaps(A1, '', key.secret);
    assert.equal(redacted.status, 200);
    assert.equal(redacted.json.data.length, GAP_CODES.length);
    for (const gap of redacted.json.data) {
      assert.equal('evidence' in gap, false);
      assert.equal(gap.evidence_status, 'accepted');
    }
  });

  test('fields of a gap: those of the specification, never the raw answer text', async () => {
    const res = await gaps(A1);
    assert.deepEqual(Object.keys(res.json.data[0]).sort(), [
      'assessment_id',
      'control_code',
      'control_title',
      'created_at',
      'domain',
      'evidence',
      'evidence_status',
      'gap_description',
      'id',
      'severity',
      'status',
      'updated_at',
    ]);
    // An answer cannot even be stored: the import refuses the field.
    const refused = await h.admin('POST', `/admin/workspaces/${ws.id}/import`, {
      gaps: [
        {
          assessment_id: A4,
          control_code: 'X-1',
          control_title: 'X',
          status: 'not_met',
          severity: 'low',
          answer_text: 'We do not encrypt backups.',
        },
      ],
    });
    assertError(refused, 422, 'validation_failed');
    assert.ok('gaps[0].answer_text' in refused.json.error.details.fields);
  });

  test('cursor and limit are rejected with 400 naming the parameter (decision 40)', async () => {
    for (const [query, parameter] of [
      ['?cursor=abc', 'cursor'],
      ['?limit=10', 'limit'],
      ['?status=partially_met', 'status'],
    ] as const) {
      const res = await gaps(A1, query);
      assertError(res, 400, 'invalid_request');
      assert.equal(res.json.error.details.parameter, parameter);
    }
  });

  test("another workspace's assessment is a 404, like a missing one", async () => {
    const other = await h.workspace();
    assertError(await gaps(A1, '', other.key), 404, 'resource_not_found');
    assertError(await gaps(randomUUID()), 404, 'resource_not_found');
  });

  test('import: gaps reference an assessment of the workspace, one per control code', async () => {
    const other = await h.workspace();
    const foreign = await h.admin('POST', `/admin/workspaces/${other.id}/import`, {
      gaps: [
        { assessment_id: A1, control_code: 'X', control_title: 'X', status: 'not_met', severity: 'low' },
      ],
    });
    assertError(foreign, 422, 'validation_failed');
    assert.ok('gaps[0].assessment_id' in foreign.json.error.details.fields);
    const duplicate = await h.admin('POST', `/admin/workspaces/${ws.id}/import`, {
      gaps: [
        { assessment_id: A1, control_code: 'ISO-9', control_title: 'X', status: 'not_met', severity: 'low' },
      ],
    });
    assertError(duplicate, 422, 'validation_failed');
    assert.ok('gaps[0].control_code' in duplicate.json.error.details.fields);
  });
});

describe('POST /admin/assessments/{id}/status', () => {
  test('entering completed sets completed_at and decision and emits assessment.completed exactly once, ever', async () => {
    const created = await create({ supplier_id: S1, assessment_type: 'supplier' });
    const id = created.json.id as string;
    const done = await setStatus(id, { status: 'completed', decision: 'approved' });
    assert.equal(done.status, 200);
    assert.equal(done.json.status, 'completed');
    assert.equal(done.json.decision, 'approved');
    assert.ok(done.json.completed_at);
    assert.equal(Date.parse(done.json.expires_at) - Date.parse(done.json.completed_at), 365 * 86_400_000);

    // Re-saving does not re-emit, nor restart the validity.
    const again = await setStatus(id, { status: 'completed' });
    assert.equal(again.status, 200);
    assert.equal(again.json.completed_at, done.json.completed_at);
    assert.equal(again.json.decision, 'approved');
    // Re-opened then completed again: still the one event.
    const reopened = await setStatus(id, { status: 'in_progress' });
    assert.equal(reopened.json.decision, null);
    assert.equal(reopened.json.completed_at, null);
    await setStatus(id, { status: 'completed', decision: 'rejected' });

    const events = await completionEvents(ws.id, id);
    assert.equal(events.length, 1);
    const payload = JSON.parse(events[0]?.payload ?? '{}');
    assert.equal(payload.type, 'assessment.completed');
    assert.equal(payload.organization_id, ws.id);
    // Decision 25: data is exactly {assessment_id, supplier_id, status}.
    assert.deepEqual(payload.data, { assessment_id: id, supplier_id: S1, status: 'completed' });

    const audit = await h.db.query<{ action: string }>(
      "select action from audit_logs where workspace_id = $1 and target_id = $2 and actor_type = 'system' order by occurred_at",
      [ws.id, id],
    );
    assert.deepEqual(
      audit.map((row) => row.action),
      ['assessment.completed', 'assessment.completed', 'assessment.status_changed', 'assessment.completed'],
    );
  });

  test('an assessment imported as completed has completed already: completing it emits nothing', async () => {
    const res = await setStatus(A2, { status: 'completed', decision: 'rejected' });
    assert.equal(res.status, 200);
    assert.equal((await completionEvents(ws.id, A2)).length, 0);
  });

  test('other statuses emit nothing; sent sets sent_at; a decision needs completed (422)', async () => {
    const created = await create({ supplier_id: S2, assessment_type: 'self' });
    const id = created.json.id as string;
    const sent = await setStatus(id, { status: 'sent' });
    assert.equal(sent.json.status, 'sent');
    assert.ok(sent.json.sent_at);
    assertError(await setStatus(id, { status: 'paused', decision: 'approved' }), 422, 'validation_failed');
    assertError(await setStatus(id, { status: 'archived' }), 422, 'validation_failed');
    assertError(await setStatus(id, {}), 422, 'validation_failed');
    // None of the contract's types; the opt-in assessment.created and assessment.status_changed (P177) are
    // tested in events.test.ts.
    const events = await h.db.query(
      'select 1 from events where workspace_id = $1 and payload like $2 and type = any ($3::text[])',
      [ws.id, `%${id}%`, [...ContractEventTypes]],
    );
    assert.equal(events.length, 0);
  });

  test('404 for an unknown id; 401 without the admin token', async () => {
    assertError(await setStatus(randomUUID(), { status: 'completed' }), 404, 'resource_not_found');
    assertError(
      await h.admin('POST', `/admin/assessments/${A3}/status`, { status: 'completed' }, 'wrong'),
      401,
      'invalid_api_key',
    );
  });

  test('an id imported into two workspaces needs workspace_id (409 ambiguous_id), then changes only that one', async () => {
    const one = await h.workspace();
    const two = await h.workspace();
    const shared = randomUUID();
    for (const w of [one, two]) {
      const supplierId = randomUUID();
      await h.import(w.id, {
        suppliers: [{ id: supplierId, name: 'Shared' }],
        assessments: [{ id: shared, supplier_id: supplierId, assessment_type: 'self' }],
      });
    }
    const ambiguous = await setStatus(shared, { status: 'completed' });
    assertError(ambiguous, 409, 'conflict');
    assert.equal(ambiguous.json.error.details.reason, 'ambiguous_id');
    const res = await setStatus(shared, { status: 'completed', workspace_id: two.id });
    assert.equal(res.status, 200);
    assert.equal((await h.api('GET', `/assessments/${shared}`, { key: one.key })).json.status, 'draft');
    assert.equal((await h.api('GET', `/assessments/${shared}`, { key: two.key })).json.status, 'completed');
    assert.equal((await completionEvents(two.id, shared)).length, 1);
    assert.equal((await completionEvents(one.id, shared)).length, 0);
  });
});
