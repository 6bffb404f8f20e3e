// risk-data-api.md "Endpoints › Suppliers", resources.md "Supplier", decisions 3, 6, 7-10, 26, 41.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, useHarness } from '../support/harness.js';

const { h, ws } = useHarness({ workspaces: ['ws'] });

const create = (body: unknown, key = ws.key, idempotencyKey = crypto.randomUUID()) =>
  h.api('POST', '/suppliers', { key, body, headers: { 'idempotency-key': idempotencyKey } });

describe('POST /suppliers', () => {
  test('201 with source import whatever the request says, starting pending (decision 41)', async () => {
    const res = await create({
      name: 'Acme',
      domain: 'Acme-Create.example',
      source: 'manual',
      tags: ['cloud'],
    });
    assert.equal(res.status, 201);
    assert.equal(res.json.source, 'import');
    assert.equal(res.json.status, 'pending');
    assert.equal(res.json.is_active, false);
    assert.equal(res.json.domain, 'acme-create.example');
    assert.deepEqual(res.json.tags, ['cloud']);
    assert.match(res.json.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  test('409 on a duplicate domain, compared case-insensitively, with existing_supplier_id and domain', async () => {
    const first = await create({ name: 'Dup', domain: 'dup.example' });
    const second = await create({ name: 'Dup again', domain: 'DUP.example' });
    assertError(second, 409, 'conflict');
    assert.deepEqual(second.json.error.details, {
      existing_supplier_id: first.json.id,
      domain: 'dup.example',
    });
  });

  test('422 names every invalid field, unknown fields included', async () => {
    const res = await create({ name: '', criticality: 'extreme', colour: 'red', tags: 'x' });
    assertError(res, 422, 'validation_failed');
    assert.deepEqual(Object.keys(res.json.error.details.fields).sort(), [
      'colour',
      'criticality',
      'name',
      'tags',
    ]);
  });

  test('writes an audit entry attributed to the key creator', async () => {
    const res = await create({ name: 'Audited' });
    const [entry] = await h.db.query<{
      actor_type: string;
      actor_id: string;
      metadata: { api_key_id: string };
    }>(
      "select actor_type, actor_id, metadata from audit_logs where workspace_id = $1 and action = 'supplier.created' and target_id = $2",
      [ws.id, res.json.id],
    );
    assert.equal(entry?.actor_type, 'user');
    assert.equal(entry?.actor_id, ws.userId);
    assert.equal(entry?.metadata.api_key_id, ws.keyId);
  });

  test('records one supplier.created event with the create; a taken domain records none (P177, P229)', async () => {
    const events = async () =>
      (await h.api('GET', '/events?type=supplier.created&limit=200', { key: ws.key })).json.data as {
        event_id: string;
        occurred_at: string;
        organization_id: string;
        data: { supplier_id: string };
      }[];
    const before = (await events()).length;
    const created = await create({ name: 'Evented', domain: 'evented.example' });
    assert.equal(created.status, 201, created.body);
    const after = await events();
    assert.equal(after.length, before + 1);
    const event = after[after.length - 1];
    assert.deepEqual(event?.data, { supplier_id: created.json.id });
    assert.equal(event?.organization_id, ws.id);
    // The payload's instant is the stored one, as PostgreSQL writes it into the payload (microseconds, Z).
    const [stored] = await h.db.query<{ at: string }>(
      'select iso(occurred_at) as at from events where id = $1',
      [event?.event_id],
    );
    assert.equal(event?.occurred_at, stored?.at);
    assert.match(event?.occurred_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    // A taken domain: the event sent in the same pipeline goes with the rest of the work (the savepoint).
    assertError(await create({ name: 'Again', domain: 'evented.example' }), 409, 'conflict');
    assert.equal((await events()).length, before + 1);
  });
});

describe('GET /suppliers', () => {
  test('serves strings holding the control characters that pack rows (P240) exactly as stored', async () => {
    // Each on a page of its own (one workspace each): one such string on a page must not hide another's case.
    const cases = [
      { name: 'Unit\u001fseparator', industry: null, country: 'DE' },
      { name: 'Null mark', industry: '\u001e', country: null },
      { name: 'Record\u001eseparator', industry: null, country: null },
      { name: 'Unit separator last', industry: null, country: '\u001f' },
      { name: 'Plain', industry: null, country: null },
    ];
    for (const body of cases) {
      const own = await h.workspace();
      const res = await create(body, own.key);
      assert.equal(res.status, 201, res.body);
      const page = await h.api('GET', '/suppliers', { key: own.key });
      assert.equal(page.status, 200);
      const [item] = page.json.data;
      assert.deepEqual({ name: item.name, industry: item.industry, country: item.country }, body);
    }
  });
});

describe('GET /suppliers/{id}', () => {
  test('returns assessment_count and currency', async () => {
    const created = await create({ name: 'Counted' });
    await h.import(ws.id, {
      assessments: [
        { supplier_id: created.json.id, assessment_type: 'self' },
        { supplier_id: created.json.id, assessment_type: 'supplier' },
      ],
    });
    const res = await h.api('GET', `/suppliers/${created.json.id}`, { key: ws.key });
    assert.equal(res.status, 200);
    assert.equal(res.json.assessment_count, 2);
    assert.equal(res.json.currency, 'USD');
  });

  test('an id of another workspace is a 404, like a missing one; a non-uuid id is a 404', async () => {
    const other = await h.workspace();
    const theirs = await create({ name: 'Theirs' }, other.key);
    assertError(
      await h.api('GET', `/suppliers/${theirs.json.id}`, { key: ws.key }),
      404,
      'resource_not_found',
    );
    assertError(await h.api('GET', '/suppliers/not-a-uuid', { key: ws.key }), 404, 'resource_not_found');
  });
});
