// risk-data-api.md "Endpoints › Assets" (GET /assets, PUT /assets and its four rules), "Asset",
// "States and transitions" (Asset rows), "Limits" (500 items); resources.md "Asset"; decisions 2, 26, 34;
// management-api.md "POST /admin/assets/{id}/confirm" and the `assets` import collection.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertError, type TestWorkspace, useHarness } from '../support/harness.js';

const { h, ws } = useHarness({ workspaces: ['ws'] });

type Item = Record<string, unknown>;

const item = (externalId: string, overrides: Item = {}): Item => ({
  external_id: externalId,
  name: `asset ${externalId}`,
  asset_type: 'application',
  technical_criticality: 'high',
  exposure: 'internal',
  region: 'eu-west-1',
  cloud_metadata: { account: 'prod', tags: { env: 'prod' } },
  ...overrides,
});

const put = (body: unknown, key = ws.key) => h.api('PUT', '/assets', { key, body });
const aws = (assets: unknown[]) => ({ source: 'cloud', cloud_provider: 'aws', assets });

/** Every asset of the workspace (at most 200), newest first. */
async function listAll(query = '', key = ws.key) {
  const res = await h.api('GET', `/assets?limit=200${query}`, { key });
  assert.equal(res.status, 200, res.body);
  return res.json.data as Item[];
}

async function findAsset(
  externalId: string,
  source = 'cloud',
  provider: string | null = 'aws',
  key = ws.key,
) {
  return (await listAll('', key)).find(
    (asset) =>
      asset.external_id === externalId && asset.source === source && asset.cloud_provider === provider,
  );
}

const ASSET_FIELDS = [
  'asset_type',
  'cloud_metadata',
  'cloud_provider',
  'created_at',
  'exposure',
  'external_id',
  'id',
  'name',
  'region',
  'review_status',
  'source',
  'technical_criticality',
  'updated_at',
];

describe('PUT /assets', () => {
  test('200 {created, updated, skipped}; new assets are discovered and carry the envelope source and provider', async () => {
    const res = await put(aws([item('new-1'), item('new-2', { technical_criticality: null })]));
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(res.json, { created: 2, updated: 0, skipped: [] });
    const stored = await findAsset('new-1');
    assert.ok(stored);
    // resources.md "Asset": exactly the public fields.
    assert.deepEqual(Object.keys(stored).sort(), ASSET_FIELDS);
    assert.equal(stored.review_status, 'discovered');
    assert.equal(stored.source, 'cloud');
    assert.equal(stored.cloud_provider, 'aws');
    assert.deepEqual(stored.cloud_metadata, { account: 'prod', tags: { env: 'prod' } });
    assert.equal((await findAsset('new-2'))?.technical_criticality, null);
  });

  test('attributes an item omits are stored as null ({} for cloud_metadata)', async () => {
    await put(aws([item('omit-1')]));
    const res = await put(aws([{ external_id: 'omit-1', name: 'bare', asset_type: 'data' }]));
    assert.deepEqual(res.json, { created: 0, updated: 1, skipped: [] });
    const stored = await findAsset('omit-1');
    assert.equal(stored?.region, null);
    assert.equal(stored?.exposure, null);
    assert.equal(stored?.technical_criticality, null);
    assert.deepEqual(stored?.cloud_metadata, {});
  });

  test('rule 1: items are matched on (source, cloud_provider, external_id), manual assets with a null provider included', async () => {
    assert.deepEqual((await put(aws([item('triple')]))).json, { created: 1, updated: 0, skipped: [] });
    // Same external_id, another provider or source: other assets.
    const gcp = await put({ source: 'cloud', cloud_provider: 'gcp', assets: [item('triple')] });
    assert.deepEqual(gcp.json, { created: 1, updated: 0, skipped: [] });
    const manual = await put({ source: 'manual', assets: [item('triple')] });
    assert.deepEqual(manual.json, { created: 1, updated: 0, skipped: [] });
    // Same triple: the asset is updated, not duplicated (for manual, cloud_provider null or absent alike).
    const again = await put({
      source: 'manual',
      cloud_provider: null,
      assets: [item('triple', { name: 'renamed' })],
    });
    assert.deepEqual(again.json, { created: 0, updated: 1, skipped: [] });
    const awsAgain = await put(aws([item('triple', { exposure: 'exposed' })]));
    assert.deepEqual(awsAgain.json, { created: 0, updated: 1, skipped: [] });

    const triples = (await listAll()).filter((asset) => asset.external_id === 'triple');
    assert.equal(triples.length, 3);
    const manualAsset = triples.find((asset) => asset.source === 'manual');
    assert.equal(manualAsset?.cloud_provider, null);
    assert.equal(manualAsset?.name, 'renamed');
    assert.equal(triples.find((asset) => asset.cloud_provider === 'aws')?.exposure, 'exposed');
    assert.equal(triples.find((asset) => asset.cloud_provider === 'gcp')?.exposure, 'internal');
  });

  test('rule 2 / decision 34: repeating the same payload leaves the same state and reports created 0, updated 0', async () => {
    const payload = aws([
      item('idem-1'),
      item('idem-2'),
      item('idem-3', { cloud_metadata: { a: 1, b: [1, 2] } }),
    ]);
    assert.deepEqual((await put(payload)).json, { created: 3, updated: 0, skipped: [] });
    const before = await listAll();
    const repeat = await put(payload);
    assert.equal(repeat.status, 200);
    assert.deepEqual(repeat.json, { created: 0, updated: 0, skipped: [] });
    // The same metadata with its keys in another order is the same value.
    const reordered = await put(aws([item('idem-3', { cloud_metadata: { b: [1, 2], a: 1 } })]));
    assert.deepEqual(reordered.json, { created: 0, updated: 0, skipped: [] });
    // Byte-for-byte the same rows, updated_at included.
    assert.deepEqual(await listAll(), before);
    // A real change is counted once.
    const changed = await put(aws([item('idem-1', { region: 'us-east-1' }), item('idem-2')]));
    assert.deepEqual(changed.json, { created: 0, updated: 1, skipped: [] });
  });

  test('rule 3: malformed or non-object items are skipped with a reason while the others are written', async () => {
    const res = await put(
      aws([
        item('good-1'),
        { external_id: 'no-name', asset_type: 'data' },
        'not an object',
        null,
        [1, 2],
        item('bad-type', { asset_type: 'spaceship' }),
        item('unknown-field', { colour: 'red' }),
        item('nul-text', { name: 'bad\u0000name' }),
        { external_id: 42, name: 'numeric id', asset_type: 'data' },
        item('good-2'),
      ]),
    );
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.created, 2);
    assert.equal(res.json.updated, 0);
    const skipped = res.json.skipped as { index: number; external_id: string | null; reason: string }[];
    assert.deepEqual(
      skipped.map((entry) => [entry.index, entry.external_id]),
      [
        [1, 'no-name'],
        [2, null],
        [3, null],
        [4, null],
        [5, 'bad-type'],
        [6, 'unknown-field'],
        [7, 'nul-text'],
        [8, null],
      ],
    );
    for (const entry of skipped) assert.equal(typeof entry.reason, 'string');
    // The reasons are human-readable and name the problem.
    const reason = (index: number) => skipped.find((entry) => entry.index === index)?.reason ?? '';
    assert.match(reason(1), /name is required/);
    assert.match(reason(2), /not a JSON object/);
    assert.match(reason(5), /asset_type must be one of/);
    assert.match(reason(6), /colour is not a known field/);
    assert.match(reason(7), /name must not contain NUL/);
    assert.match(reason(8), /external_id/);
    assert.ok(await findAsset('good-1'));
    assert.ok(await findAsset('good-2'));
    assert.equal(await findAsset('no-name'), undefined);
    assert.equal(await findAsset('bad-type'), undefined);
  });

  test('the same external_id twice in one batch: the first is applied, the repeat is skipped with a reason', async () => {
    const res = await put(aws([item('twice', { name: 'first' }), item('twice', { name: 'second' })]));
    assert.equal(res.json.created, 1);
    assert.deepEqual(
      res.json.skipped.map((entry: Item) => [entry.index, entry.external_id]),
      [[1, 'twice']],
    );
    assert.match(res.json.skipped[0].reason, /repeats the external_id of assets\[0\]/);
    assert.equal((await findAsset('twice'))?.name, 'first');
  });

  test('rule 4: a confirmed asset is never demoted to discovered by a later upsert', async () => {
    await put(aws([item('reviewed')]));
    const asset = await findAsset('reviewed');
    assert.equal(asset?.review_status, 'discovered');
    const confirmed = await h.admin('POST', `/admin/assets/${asset?.id}/confirm`);
    assert.equal(confirmed.status, 200, confirmed.body);
    assert.equal(confirmed.json.review_status, 'confirmed');
    assert.equal(confirmed.json.id, asset?.id);

    // Same item again (no change), then with changed attributes: the review decision stays.
    assert.deepEqual((await put(aws([item('reviewed')]))).json, { created: 0, updated: 0, skipped: [] });
    const res = await put(
      aws([item('reviewed', { name: 'renamed after review', technical_criticality: 'low' })]),
    );
    assert.deepEqual(res.json, { created: 0, updated: 1, skipped: [] });
    const after = await findAsset('reviewed');
    assert.equal(after?.review_status, 'confirmed');
    assert.equal(after?.name, 'renamed after review');
    assert.equal(after?.technical_criticality, 'low');
  });

  test('more than 500 items: 422 with details.fields.assets and nothing written (decision 34)', async () => {
    const own = await h.workspace();
    const items = Array.from({ length: 501 }, (_, index) => item(`over-${index}`));
    const res = await put(aws(items), own.key);
    assertError(res, 422, 'validation_failed');
    assert.ok(res.json.error.details.fields.assets);
    assert.equal((await listAll('', own.key)).length, 0);
    // Exactly 500 is accepted.
    const max = await put(aws(items.slice(0, 500)), own.key);
    assert.equal(max.status, 200, max.body);
    assert.equal(max.json.created, 500);
  });

  test('the envelope is validated as a whole: 422 naming the field, nothing written', async () => {
    const cases: [unknown, string][] = [
      [{ source: 'spreadsheet', assets: [item('env-1')] }, 'source'],
      [{ source: 'cloud', assets: [item('env-1')] }, 'cloud_provider'],
      [{ source: 'cloud', cloud_provider: null, assets: [item('env-1')] }, 'cloud_provider'],
      [{ source: 'cloud', cloud_provider: 'ibm', assets: [item('env-1')] }, 'cloud_provider'],
      [{ source: 'manual', cloud_provider: 'aws', assets: [item('env-1')] }, 'cloud_provider'],
      [{ source: 'cloud', cloud_provider: 'aws' }, 'assets'],
      [{ source: 'cloud', cloud_provider: 'aws', assets: { 0: item('env-1') } }, 'assets'],
      [{ ...aws([item('env-1')]), dry_run: true }, 'dry_run'],
      // Keyed by the body's own field, also for a problem inside it (decision 3, P77).
      [{ ...aws([item('env-1')]), meta: { note: 'a\u0000' } }, 'meta'],
    ];
    for (const [body, field] of cases) {
      const res = await put(body);
      assertError(res, 422, 'validation_failed');
      assert.deepEqual(
        Object.keys(res.json.error.details.fields),
        [field],
        `${JSON.stringify(body)} → ${res.body}`,
      );
    }
    assert.equal(await findAsset('env-1'), undefined);
    assert.equal((await listAll()).filter((asset) => asset.external_id === 'env-1').length, 0);
    // Not a JSON object at all: 400 (decision 3).
    assertError(await put([item('env-1')]), 400, 'invalid_request');
  });

  test('an empty batch is valid and changes nothing', async () => {
    assert.deepEqual((await put(aws([]))).json, { created: 0, updated: 0, skipped: [] });
  });

  test('writes one assets.upserted audit entry with the counts, attributed to the key creator (decision 26)', async () => {
    const own = await h.workspace();
    await put(aws([item('audit-1'), item('audit-2'), 'junk']), own.key);
    const entries = await h.db.query<{ actor_type: string; actor_id: string; metadata: Item }>(
      "select actor_type, actor_id, metadata from audit_logs where workspace_id = $1 and action = 'assets.upserted'",
      [own.id],
    );
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.actor_type, 'user');
    assert.equal(entries[0]?.actor_id, own.userId);
    assert.equal(entries[0]?.metadata.api_key_id, own.keyId);
    assert.equal(entries[0]?.metadata.created, 2);
    assert.equal(entries[0]?.metadata.updated, 0);
    assert.equal(entries[0]?.metadata.skipped, 1);
  });

  test('needs assets:write (assets:read is not enough)', async () => {
    const key = await h.key(ws.id, ws.userId, ['assets:read']);
    const res = await put(aws([item('scope-1')]), key.secret);
    assertError(res, 403, 'insufficient_scope');
    assert.equal(res.json.error.details.required_scope, 'assets:write');
  });
});

describe('workspaces are independent', () => {
  test('the same external ids in two workspaces are two assets; neither workspace sees the other', async () => {
    const a = await h.workspace();
    const b = await h.workspace();
    const payload = aws([item('shared-1'), item('shared-2')]);
    assert.deepEqual((await put(payload, a.key)).json, { created: 2, updated: 0, skipped: [] });
    // B's first upsert creates its own assets rather than matching A's.
    assert.deepEqual((await put(payload, b.key)).json, { created: 2, updated: 0, skipped: [] });
    await put(aws([item('shared-1', { name: 'changed in B' })]), b.key);
    const inA = await listAll('', a.key);
    const inB = await listAll('', b.key);
    assert.equal(inA.length, 2);
    assert.equal(inB.length, 2);
    assert.equal(inA.find((asset) => asset.external_id === 'shared-1')?.name, 'asset shared-1');
    assert.equal(inB.find((asset) => asset.external_id === 'shared-1')?.name, 'changed in B');
    const idsA = new Set(inA.map((asset) => asset.id));
    assert.ok(inB.every((asset) => !idsA.has(asset.id)));
  });
});

describe('GET /assets', () => {
  let fw: TestWorkspace;
  // Every filter value below selects some but not all of these, so an ignored filter fails its test.
  const records = [
    {
      external_id: 'i-1',
      name: 'api',
      asset_type: 'application',
      technical_criticality: 'high',
      exposure: 'exposed',
      region: 'eu-west-1',
      source: 'cloud',
      cloud_provider: 'aws',
      review_status: 'confirmed',
      created_at: '2024-01-01T00:00:00.000001Z',
    },
    {
      external_id: 'i-2',
      name: 'db',
      asset_type: 'data',
      technical_criticality: 'critical',
      exposure: 'internal',
      region: 'europe-west1',
      source: 'cloud',
      cloud_provider: 'gcp',
      review_status: 'discovered',
      created_at: '2024-01-03T00:00:00Z',
    },
    {
      external_id: 'CMDB-1',
      name: 'hq',
      asset_type: 'facility',
      technical_criticality: 'low',
      exposure: 'internal',
      region: 'hq-london',
      source: 'manual',
      cloud_provider: null,
      review_status: 'confirmed',
      created_at: '2024-01-02T00:00:00Z',
    },
    {
      external_id: 'i-3',
      name: 'gateway',
      asset_type: 'infrastructure',
      technical_criticality: 'high',
      exposure: 'exposed',
      region: null,
      source: 'cloud',
      cloud_provider: 'aws',
      review_status: 'discovered',
      created_at: '2024-01-02T00:00:00Z',
    },
  ];

  before(async () => {
    fw = await h.workspace();
    await h.import(fw.id, { assets: records });
  });

  test('newest first by created_at, ties broken by id descending (decisions 12, 38)', async () => {
    const data = await listAll('', fw.key);
    assert.equal(data.length, 4);
    const keys = data.map((asset): [string, string] => [asset.created_at as string, asset.id as string]);
    const desc = (x: string, y: string) => (x < y ? 1 : x > y ? -1 : 0);
    const sorted = [...keys].sort((x, y) => desc(x[0], y[0]) || desc(x[1], y[1]));
    assert.deepEqual(keys, sorted);
    assert.equal(data[0]?.external_id, 'i-2');
  });

  for (const [name, value] of [
    ['asset_type', 'data'],
    ['technical_criticality', 'high'],
    ['exposure', 'exposed'],
    ['source', 'manual'],
    ['cloud_provider', 'aws'],
    ['review_status', 'confirmed'],
  ] as const) {
    test(`filter ${name}=${value} returns exactly the matching assets`, async () => {
      const expected = records.filter((record) => record[name] === value).map((record) => record.external_id);
      assert.ok(expected.length > 0 && expected.length < records.length, 'the fixture must discriminate');
      const data = await listAll(`&${name}=${value}`, fw.key);
      assert.deepEqual(data.map((asset) => asset.external_id).sort(), expected.sort());
    });
  }

  test('filters combine', async () => {
    const data = await listAll('&cloud_provider=aws&review_status=confirmed', fw.key);
    assert.deepEqual(
      data.map((asset) => asset.external_id),
      ['i-1'],
    );
  });

  test('malformed filter values and unknown parameters are 400 invalid_request naming the parameter (decision 2)', async () => {
    for (const query of [
      'asset_type=spaceship',
      'technical_criticality=extreme',
      'exposure=public',
      'source=import',
      'cloud_provider=ibm',
      'review_status=approved',
      'limit=201',
      'limit=0',
      'cursor=forged',
      'colour=red',
    ]) {
      const res = await h.api('GET', `/assets?${query}`, { key: fw.key });
      assertError(res, 400, 'invalid_request');
      assert.equal(res.json.error.details.parameter, query.split('=')[0]);
    }
  });

  test('cursor pagination walks every asset once', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof h.api>> = await h.api(
        'GET',
        `/assets?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { key: fw.key },
      );
      assert.equal(page.status, 200, page.body);
      seen.push(...page.json.data.map((asset: Item) => asset.id as string));
      cursor = page.json.meta.next_cursor;
      assert.equal(page.json.meta.has_more, cursor !== null);
    } while (cursor);
    assert.equal(seen.length, 4);
    assert.equal(new Set(seen).size, 4);
  });

  test('needs assets:read; an empty workspace is an empty page, not an error', async () => {
    const noScope = await h.key(fw.id, fw.userId, ['context:read']);
    assertError(await h.api('GET', '/assets', { key: noScope.secret }), 403, 'insufficient_scope');
    const empty = await h.workspace();
    const res = await h.api('GET', '/assets', { key: empty.key });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      data: [],
      meta: { has_more: false, next_cursor: null, feature_status: 'available' },
    });
  });
});

describe('POST /admin/assets/{id}/confirm', () => {
  test('confirms once (one asset.confirmed audit entry); repeating it is a harmless 200', async () => {
    const own = await h.workspace();
    await put(aws([item('to-confirm')]), own.key);
    const asset = await findAsset('to-confirm', 'cloud', 'aws', own.key);
    const first = await h.admin('POST', `/admin/assets/${asset?.id}/confirm`);
    const second = await h.admin('POST', `/admin/assets/${asset?.id}/confirm`);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal(second.json.review_status, 'confirmed');
    assert.equal(second.json.updated_at, first.json.updated_at);
    const entries = await h.db.query(
      "select 1 from audit_logs where workspace_id = $1 and action = 'asset.confirmed' and target_id = $2",
      [own.id, asset?.id],
    );
    assert.equal(entries.length, 1);
  });

  test('an id imported into two workspaces is refused as ambiguous (409), and neither asset changes', async () => {
    const id = crypto.randomUUID();
    const record = { id, external_id: 'dup', name: 'dup', asset_type: 'data', source: 'manual' };
    const [a, b] = [await h.workspace(), await h.workspace()];
    await h.import(a.id, { assets: [record] });
    await h.import(b.id, { assets: [record] });
    const res = await h.admin('POST', `/admin/assets/${id}/confirm`);
    assertError(res, 409, 'conflict');
    assert.equal(res.json.error.details.reason, 'ambiguous_id');
    for (const own of [a, b]) assert.equal((await listAll('', own.key))[0]?.review_status, 'discovered');
  });

  test('404 for an unknown or malformed id; 401 without the admin token', async () => {
    assertError(
      await h.admin('POST', `/admin/assets/${crypto.randomUUID()}/confirm`),
      404,
      'resource_not_found',
    );
    assertError(await h.admin('POST', '/admin/assets/not-a-uuid/confirm'), 404, 'resource_not_found');
    assertError(
      await h.admin('POST', `/admin/assets/${crypto.randomUUID()}/confirm`, undefined, null),
      401,
      'invalid_api_key',
    );
  });
});

describe('import of assets', () => {
  test('a manual asset with a provider, or a cloud asset without one, is a 422 and nothing is written', async () => {
    const own = await h.workspace();
    for (const record of [
      { external_id: 'x', name: 'x', asset_type: 'data', source: 'manual', cloud_provider: 'aws' },
      { external_id: 'x', name: 'x', asset_type: 'data', source: 'cloud' },
    ]) {
      const res = await h.admin('POST', `/admin/workspaces/${own.id}/import`, { assets: [record] });
      assertError(res, 422, 'validation_failed');
      assert.deepEqual(Object.keys(res.json.error.details.fields), ['assets[0].cloud_provider']);
    }
    assert.equal((await listAll('', own.key)).length, 0);
  });

  test('two records with one identity (null provider included) are a 422, not a database error', async () => {
    const own = await h.workspace();
    const record = { external_id: 'CMDB-9', name: 'x', asset_type: 'data', source: 'manual' };
    const dup = await h.admin('POST', `/admin/workspaces/${own.id}/import`, { assets: [record, record] });
    assertError(dup, 422, 'validation_failed');
    assert.deepEqual(Object.keys(dup.json.error.details.fields), ['assets[1].external_id']);
    await h.import(own.id, { assets: [record] });
    const again = await h.admin('POST', `/admin/workspaces/${own.id}/import`, { assets: [record] });
    assertError(again, 422, 'validation_failed');
    assert.deepEqual(Object.keys(again.json.error.details.fields), ['assets[0].external_id']);
    // The same external_id under another source is another asset.
    await h.import(own.id, {
      assets: [{ ...record, source: 'cloud', cloud_provider: 'aws' }],
    });
    // The imported asset is the one PUT /assets matches.
    const res = await put(
      { source: 'manual', assets: [{ ...record, source: undefined, name: 'y' }] },
      own.key,
    );
    assert.deepEqual(res.json, { created: 0, updated: 1, skipped: [] });
  });
});
