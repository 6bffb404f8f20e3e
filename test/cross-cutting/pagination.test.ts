// risk-data-api.md "Collection meta", "Shared parameters" (limit, cursor), "What the service does" 7-8;
// decisions 2, 12, 14, 38: keyset cursors that are stable while rows are written, opaque and tamper-evident.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, useHarness } from '../support/harness.js';

const { h, ws } = useHarness({ workspaces: ['ws'] });

async function walk(key: string, query: string, between?: (page: number) => Promise<void>) {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const res = await h.api(
      'GET',
      `/suppliers?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key },
    );
    assert.equal(res.status, 200, res.body);
    seen.push(...res.json.data.map((s: { id: string }) => s.id));
    assert.equal(res.json.meta.has_more, res.json.meta.next_cursor !== null);
    if (!res.json.meta.has_more) return seen;
    cursor = res.json.meta.next_cursor;
    await between?.(page);
  }
  throw new Error('did not end');
}

describe('cursor pagination', () => {
  test('walked to the end with a small limit while suppliers are inserted: every pre-existing row exactly once, newest first', async () => {
    const w = await h.workspace();
    const base = Date.parse('2025-01-01T00:00:00Z');
    // Rows one microsecond apart and rows sharing one instant: order and ties must survive the round trip.
    const suppliers = Array.from({ length: 23 }, (_, i) => ({
      name: `S${i}`,
      created_at:
        i < 10
          ? `2025-01-01T00:00:00.0000${String(i).padStart(2, '0')}Z`
          : new Date(base + Math.floor(i / 3) * 1000).toISOString(),
    }));
    await h.import(w.id, { suppliers });
    const stored = await h.db.query<{ id: string }>(
      'select id from suppliers where workspace_id = $1 order by created_at desc, id desc',
      [w.id],
    );
    let inserted = 0;
    const seen = await walk(w.key, 'limit=4', async () => {
      await h.api('POST', '/suppliers', {
        key: w.key,
        body: { name: `new ${inserted++}` },
        headers: { 'idempotency-key': `k${inserted}` },
      });
    });
    assert.ok(inserted >= 5);
    assert.deepEqual(
      seen,
      stored.map((row) => row.id),
    );
  });

  test('default limit 50, maximum 200; above 200 is a 400, not clamped', async () => {
    const w = await h.workspace();
    await h.import(w.id, { suppliers: Array.from({ length: 205 }, (_, i) => ({ name: `N${i}` })) });
    assert.equal((await h.api('GET', '/suppliers', { key: w.key })).json.data.length, 50);
    assert.equal((await h.api('GET', '/suppliers?limit=200', { key: w.key })).json.data.length, 200);
    assertError(await h.api('GET', '/suppliers?limit=201', { key: w.key }), 400, 'invalid_request');
    const walked = await walk(w.key, 'limit=200');
    assert.equal(walked.length, 205);
  });

  test('an empty collection is a 200 with feature_status available, never an error', async () => {
    const w = await h.workspace();
    const res = await h.api('GET', '/suppliers', { key: w.key });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.data, []);
    assert.deepEqual(res.json.meta, { has_more: false, next_cursor: null, feature_status: 'available' });
    assert.equal(res.json.currency, 'USD');
  });

  test('a cursor is bound to its filters, its endpoint and its workspace, and tamper-evident', async () => {
    await h.import(ws.id, {
      suppliers: Array.from({ length: 6 }, (_, i) => ({ name: `T${i}`, status: 'active' })),
    });
    const first = await h.api('GET', '/suppliers?limit=2&status=active', { key: ws.key });
    const cursor = first.json.meta.next_cursor as string;
    assert.equal(
      (await h.api('GET', `/suppliers?limit=2&status=active&cursor=${cursor}`, { key: ws.key })).status,
      200,
    );
    // limit may change between pages; filters may not.
    assert.equal(
      (await h.api('GET', `/suppliers?limit=5&status=active&cursor=${cursor}`, { key: ws.key })).status,
      200,
    );
    assertError(
      await h.api('GET', `/suppliers?limit=2&status=pending&cursor=${cursor}`, { key: ws.key }),
      400,
      'invalid_request',
    );
    assertError(
      await h.api('GET', `/suppliers?limit=2&cursor=${cursor}`, { key: ws.key }),
      400,
      'invalid_request',
    );
    const other = await h.workspace();
    assertError(
      await h.api('GET', `/suppliers?limit=2&status=active&cursor=${cursor}`, { key: other.key }),
      400,
      'invalid_request',
    );
    const [payload, mac] = cursor.split('.') as [string, string];
    // One bit of the MAC changed (editing its text could be a no-op: "…AA" already, or an ignored padding bit).
    const flipFirstBit = (text: string) => {
      const bytes = Buffer.from(text, 'base64url');
      bytes[0] = (bytes[0] as number) ^ 0x80;
      return bytes.toString('base64url');
    };
    const forged = Buffer.from(
      JSON.stringify(['2999-01-01T00:00:00.000000Z', '00000000-0000-4000-8000-000000000000']),
    ).toString('base64url');
    for (const bad of [
      `${forged}.${mac}`,
      `${payload}.${flipFirstBit(mac)}`,
      payload,
      `${cursor}.x`,
      'garbage',
      '%%%',
    ]) {
      const res = await h.api('GET', `/suppliers?limit=2&status=active&cursor=${encodeURIComponent(bad)}`, {
        key: ws.key,
      });
      assertError(res, 400, 'invalid_request');
      assert.equal(res.json.error.details.parameter, 'cursor');
    }
  });
});

describe('GET /suppliers filters', () => {
  test('each filter narrows the result (a filter ignored would fail here)', async () => {
    const w = await h.workspace();
    await h.import(w.id, {
      suppliers: [
        {
          name: 'A',
          status: 'active',
          criticality: 'high',
          risk_group: 'G1',
          vendor_profile: 'P1',
          tags: ['cloud', 'eu'],
          updated_at: '2025-06-01T00:00:00Z',
        },
        {
          name: 'B',
          status: 'inactive',
          criticality: 'low',
          risk_group: 'G2',
          vendor_profile: 'P2',
          tags: ['eu'],
          updated_at: '2024-01-01T00:00:00Z',
        },
        {
          name: 'C',
          status: 'pending',
          criticality: 'critical',
          risk_group: 'G3',
          vendor_profile: 'P3',
          tags: [],
          updated_at: '2025-01-01T00:00:00.000001Z',
        },
      ],
    });
    const names = async (query: string) =>
      ((await h.api('GET', `/suppliers?${query}`, { key: w.key })).json.data as { name: string }[])
        .map((s) => s.name)
        .sort();
    assert.deepEqual(await names(''), ['A', 'B', 'C']);
    assert.deepEqual(await names('status=inactive'), ['B']);
    assert.deepEqual(await names('criticality=critical'), ['C']);
    assert.deepEqual(await names('risk_group=G1'), ['A']);
    assert.deepEqual(await names('vendor_profile=P2'), ['B']);
    assert.deepEqual(await names('tag=eu'), ['A', 'B']);
    assert.deepEqual(await names('tag=cloud'), ['A']);
    assert.deepEqual(await names('tag=none'), []);
    assert.deepEqual(await names('updated_since=2025-01-01T00:00:00.000001Z'), ['A', 'C']);
    assert.deepEqual(await names('status=active&criticality=low'), []);
  });

  test('is_active is true exactly when status is active', async () => {
    const w = await h.workspace();
    await h.import(w.id, {
      suppliers: [
        { name: 'On', status: 'active' },
        { name: 'Off', status: 'inactive' },
      ],
    });
    const rows = (await h.api('GET', '/suppliers', { key: w.key })).json.data as {
      status: string;
      is_active: boolean;
    }[];
    for (const row of rows) assert.equal(row.is_active, row.status === 'active');
  });
});
