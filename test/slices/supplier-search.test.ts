// GET /suppliers?q= (P160): a case-insensitive prefix of the name or of the domain, combinable with the other
// filters and the cursor; `%`, `_` and `\` are plain characters; empty, blank or too long is a 400.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertError, useHarness } from '../support/harness.js';

const S = {
  acmeCorp: randomUUID(),
  acmeLabs: randomUUID(),
  globex: randomUUID(),
  initech: randomUUID(),
  bigAcme: randomUUID(),
  pure: randomUUID(),
  slash: randomUUID(),
};
const at = (day: number) => `2025-02-${String(day).padStart(2, '0')}T00:00:00Z`;

const { h, ws, other } = useHarness({ workspaces: ['ws', 'other'] }, async () => {
  await h.import(ws.id, {
    suppliers: [
      {
        id: S.acmeCorp,
        name: 'Acme Corp',
        domain: 'acme.example',
        criticality: 'high',
        tags: ['cloud'],
        created_at: at(7),
      },
      { id: S.acmeLabs, name: 'ACME Labs', criticality: 'low', created_at: at(6) },
      // Found by its domain only.
      {
        id: S.globex,
        name: 'Globex',
        domain: 'acmeglobal.example',
        criticality: 'high',
        tags: ['cloud'],
        created_at: at(5),
      },
      { id: S.initech, name: 'Initech', domain: 'initech.example', created_at: at(4) },
      // "acme" inside, not at the start: not a match.
      { id: S.bigAcme, name: 'Big Acme', domain: 'bigacme.example', created_at: at(3) },
      { id: S.pure, name: '100% Pure_Data', domain: 'pure.example', created_at: at(2) },
      { id: S.slash, name: 'Back\\slash Ltd', created_at: at(1) },
    ],
  });
  await h.import(other.id, {
    suppliers: [{ id: randomUUID(), name: 'Acme of another workspace', domain: 'acme.example' }],
  });
});

const get = (query: string, key = ws.key) => h.api('GET', `/suppliers?${query}`, { key });
const ids = (res: { json: { data: { id: string }[] } }) => res.json.data.map((row) => row.id);
const q = (text: string) => `q=${encodeURIComponent(text)}`;

describe('GET /suppliers?q= (P160)', () => {
  test('a prefix of the name or of the domain, ignoring case, newest first; not a substring', async () => {
    const res = await get(q('acme'));
    assert.equal(res.status, 200);
    assert.deepEqual(ids(res), [S.acmeCorp, S.acmeLabs, S.globex]);
    assert.deepEqual(ids(await get(q('ACME C'))), [S.acmeCorp]);
    assert.deepEqual(ids(await get(q('acme.ex'))), [S.acmeCorp], 'the domain, past the name');
    assert.deepEqual(ids(await get(q('acme labs'))), [S.acmeLabs]);
    assert.deepEqual(ids(await get(q('Big acme'))), [S.bigAcme]);
    assert.deepEqual(ids(await get(q('corp'))), [], 'not a substring');
    assert.deepEqual(ids(await get(q('acme corporation'))), []);
  });

  test('%, _ and \\ are plain characters, not wildcards', async () => {
    assert.deepEqual(ids(await get(q('100% pure_'))), [S.pure]);
    assert.deepEqual(ids(await get(q('%'))), []);
    assert.deepEqual(ids(await get(q('_'))), []);
    assert.deepEqual(ids(await get(q('1%'))), []);
    assert.deepEqual(ids(await get(q('100_'))), []);
    assert.deepEqual(ids(await get(q('back\\'))), [S.slash]);
    assert.deepEqual(ids(await get(q('back\\s'))), [S.slash]);
    assert.deepEqual(ids(await get(q('back\\\\'))), []);
  });

  test('combines with the other filters', async () => {
    assert.deepEqual(ids(await get(`${q('acme')}&criticality=high`)), [S.acmeCorp, S.globex]);
    assert.deepEqual(ids(await get(`${q('acme')}&criticality=low`)), [S.acmeLabs]);
    assert.deepEqual(ids(await get(`${q('acme')}&tag=cloud&criticality=high`)), [S.acmeCorp, S.globex]);
    assert.deepEqual(ids(await get(`${q('acme')}&updated_since=2999-01-01T00:00:00Z`)), []);
  });

  test('cursor-paged: limit 1 walks every match once; a cursor is bound to its q', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`${q('acme')}&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(res.status, 200);
      seen.push(...ids(res));
      cursor = res.json.meta.has_more ? res.json.meta.next_cursor : null;
    } while (cursor);
    assert.deepEqual(seen, [S.acmeCorp, S.acmeLabs, S.globex]);
    const first = await get(`${q('acme')}&limit=1`);
    const bound = encodeURIComponent(first.json.meta.next_cursor);
    assertError(await get(`${q('glob')}&limit=1&cursor=${bound}`), 400, 'invalid_request');
    assertError(await get(`limit=1&cursor=${bound}`), 400, 'invalid_request');
  });

  test('empty, blank or longer than 200 characters: 400 naming q; 200 characters are taken', async () => {
    for (const bad of ['q=', q('   '), q('\t'), q('a'.repeat(201))]) {
      const res = await get(bad);
      assertError(res, 400, 'invalid_request');
      assert.match(JSON.stringify(res.json.error), /\bq\b/, bad);
    }
    const longest = await get(q('a'.repeat(200)));
    assert.equal(longest.status, 200);
    assert.deepEqual(ids(longest), []);
    assertError(await get('q=acme&q=globex'), 400, 'invalid_request');
  });

  test("another workspace's suppliers never match", async () => {
    assert.deepEqual(ids(await get(q('acme'), other.key)).length, 1);
    assert.ok(!ids(await get(q('acme'))).some((id) => !(Object.values(S) as string[]).includes(id)));
  });
});
