// The SDK for integrators (P162): a per-call `apiKey` (one process serving several workspaces with one client)
// and `toArray({ limit })`, which stops fetching pages once it has enough; against the real service.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient, InvalidApiKeyError, type RequestEvent, type TprmClient } from '../../sdk/src/index.js';
import { Harness, type TestWorkspace } from '../support/harness.js';

describe('the SDK for integrators', () => {
  let h: Harness;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let client: TprmClient;
  const requests: RequestEvent[] = [];

  before(async () => {
    h = await Harness.start();
    await h.publicApp.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = `http://127.0.0.1:${(h.publicApp.server.address() as { port: number }).port}/v1`;
    a = await h.workspace();
    b = await h.workspace();
    await h.import(a.id, {
      suppliers: Array.from({ length: 7 }, (_, i) => ({ name: `A supplier ${i}`, domain: `a${i}.example` })),
    });
    await h.import(b.id, { suppliers: [{ name: 'B supplier', domain: 'b.example' }] });
    client = createClient({ baseUrl, apiKey: a.key, retry: { maxRetries: 0 } });
    client.on('request', (event) => requests.push(event));
  });
  after(() => h.close());

  const names = (page: { data: { name: string }[] }) => page.data.map((supplier) => supplier.name).sort();

  test("a call's apiKey names its workspace; the client's key stays the default", async () => {
    assert.equal((await client.suppliers.listPage({ limit: 50 })).data.length, 7);
    assert.deepEqual(names(await client.suppliers.listPage({ limit: 50 }, { apiKey: b.key })), [
      'B supplier',
    ]);
    // A write with another key lands in that key's workspace, and no other.
    const created = await client.suppliers.create({ name: 'Made for B' }, { apiKey: b.key });
    assert.equal((await client.suppliers.get(created.id, { apiKey: b.key })).name, 'Made for B');
    await assert.rejects(client.suppliers.get(created.id), /No such supplier/);
    assert.deepEqual(names(await client.suppliers.listPage({ q: 'made' }, { apiKey: b.key })), [
      'Made for B',
    ]);
    // Iterating follows the cursors with the call's key on every page.
    const all = await client.suppliers.list({ limit: 1 }, { apiKey: b.key }).toArray();
    assert.deepEqual(all.map((supplier) => supplier.name).sort(), ['B supplier', 'Made for B']);
    // The generic get takes it too (the MCP server's path).
    const generic = (await client.get('/suppliers', { query: { limit: 50 } }, { apiKey: b.key })) as {
      data: { name: string }[];
    };
    assert.deepEqual(names(generic), ['B supplier', 'Made for B']);
    assert.equal((await client.suppliers.listPage({ limit: 50 })).data.length, 7, 'the default is unchanged');
  });

  test('a wrong per-call key is refused by the API; an empty one by the SDK, before any request', async () => {
    await assert.rejects(
      client.suppliers.listPage({}, { apiKey: 'tprm_not_a_key' }),
      (error) => error instanceof InvalidApiKeyError,
    );
    requests.length = 0;
    await assert.rejects(client.suppliers.listPage({}, { apiKey: '' }), TypeError);
    assert.equal(requests.length, 0);
  });

  test('toArray({ limit }) returns the first items and fetches no page past them', async () => {
    const every = await client.suppliers.list({ limit: 2 }).toArray();
    assert.equal(every.length, 7);
    requests.length = 0;
    const three = await client.suppliers.list({ limit: 2 }).toArray({ limit: 3 });
    assert.deepEqual(
      three.map((supplier) => supplier.id),
      every.slice(0, 3).map((supplier) => supplier.id),
    );
    assert.equal(requests.length, 2, 'two pages of 2 hold the first 3');
    requests.length = 0;
    assert.equal((await client.suppliers.list({ limit: 2 }).toArray({ limit: 100 })).length, 7);
    assert.equal(requests.length, 4);
    for (const bad of [0, -1, 1.5, Number.NaN])
      await assert.rejects(client.suppliers.list().toArray({ limit: bad }), TypeError);
  });
});
