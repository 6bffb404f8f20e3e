// Issue 27, whole collections as a stream (docs/decisions.md P193-P202): a list asked for with
// `Accept: application/x-ndjson` answers every matching row, one JSON object per line in the list's order,
// then a line with the cursor a poller resumes from. Order, filters, redaction, resume, snapshot under
// concurrent writes, writers never blocked, memory, disconnect, mid-stream failure, Accept, bad input and its
// budget.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { getHeapStatistics } from 'node:v8';
import { createClient } from '../../sdk/src/index.js';
import { tprmRunner } from '../support/cli.js';
import { assertError, ENGINE, Harness, useHarness } from '../support/harness.js';

const NDJSON = 'application/x-ndjson';
const { h } = useHarness();

// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON
type Json = any;

function lines(body: string): Json[] {
  assert.ok(body.endsWith('\n'), 'the stream ends with a whole line');
  return body
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line));
}

/** Every row of a list through the paged API, 200 at a time. */
async function walk(key: string, path: string): Promise<Json[]> {
  const seen: Json[] = [];
  let cursor: string | null = null;
  for (;;) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await h.api(
      'GET',
      `${path}${sep}limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key },
    );
    assert.equal(res.status, 200, res.body);
    seen.push(...res.json.data);
    if (!res.json.meta.has_more) return seen;
    cursor = res.json.meta.next_cursor;
  }
}

const exportOf = (key: string, path: string, headers: Record<string, string> = {}) =>
  h.api('GET', path, { key, headers: { accept: NDJSON, ...headers } });

async function suppliers(workspaceId: string, count: number, prefix = 'S') {
  const base = Date.parse('2024-01-01T00:00:00Z');
  await h.import(workspaceId, {
    suppliers: Array.from({ length: count }, (_, i) => ({
      name: `${prefix}${i}`,
      // Ties on created_at (three rows an instant) must keep the list's order across chunks.
      created_at: new Date(base + Math.floor(i / 3) * 1000).toISOString(),
      status: i % 4 === 0 ? 'inactive' : 'active',
      email: `c${i}@example.com`,
    })),
  });
}

/**
 * `count` suppliers of about 2 KB each written straight into the table (S0 the oldest): more than the socket
 * buffers between the service and a client that stopped reading hold, so the export has to wait for it.
 */
async function bigSuppliers(workspaceId: string, count: number) {
  await h.db.query(
    `insert into suppliers (workspace_id, id, name, status, created_at, onboarding_data)
     select $1::uuid, gen_random_uuid(), 'S' || i, 'active', '2024-01-01'::timestamptz + i * interval '1 second',
            jsonb_build_object('notes', repeat('x', 2000))
       from generate_series(0, $2::int - 1) i`,
    [workspaceId, count],
  );
}

const BIG = 20_000;

/** A request over a real socket (the stream's backpressure and disconnects need one). */
async function listen(app: Harness['publicApp']): Promise<number> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

function open(port: number, key: string, path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: `/v1${path}`,
        headers: { authorization: `Bearer ${key}`, accept: NDJSON },
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

/** Reads until at least `bytes` arrived, then pauses the response (the client stops reading). */
function readSome(res: IncomingMessage, bytes: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.length >= bytes) {
        res.off('data', onData);
        res.pause();
        resolve(text);
      }
    };
    res.on('data', onData);
  });
}

function readRest(res: IncomingMessage, start: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = start;
    res.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    res.on('end', () => resolve(text));
    res.on('error', reject);
    res.resume();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds (polling), failing after `ms`. */
async function eventually(check: () => Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await sleep(25);
  }
  assert.fail(`not within ${ms} ms: ${what}`);
}

/** PostgreSQL: the sessions of running exports, whose COPY waits for its client or whose transaction is open. */
const EXPORT_SESSIONS = `from pg_stat_activity
  where datname = current_database() and pid <> pg_backend_pid()
    and (state like 'idle in transaction%' or (state = 'active' and query like 'copy (%'))`;

/** Whether no session runs an export and the pool has nothing checked out. */
async function released(): Promise<boolean> {
  const stats = h.db.poolStats();
  if (stats.idle !== stats.total || stats.waiting !== 0) return false;
  if (ENGINE !== 'postgres') return true;
  const [row] = await h.db.query<{ n: number }>(`select count(*)::int as n ${EXPORT_SESSIONS}`);
  return row?.n === 0;
}

describe('exports: a list as application/x-ndjson', () => {
  test('every row in the list order, across chunks and ties, then the end line; the same records as the pages', async () => {
    const w = await h.workspace();
    await suppliers(w.id, 2105);
    const res = await exportOf(w.key, '/suppliers');
    assert.equal(res.status, 200, res.body);
    assert.equal(res.headers['content-type'], NDJSON);
    assert.ok(res.headers['x-ratelimit-limit'], 'the usual rate-limit headers');
    const all = lines(res.body);
    const end = all.pop();
    const paged = await walk(w.key, '/suppliers');
    assert.equal(paged.length, 2105);
    assert.deepEqual(all, paged);
    assert.deepEqual(Object.keys(end), ['meta']);
    assert.equal(end.meta.count, 2105);
    // The end cursor continues the list after the export: nothing older is left.
    const after = await h.api('GET', `/suppliers?cursor=${encodeURIComponent(end.meta.next_cursor)}`, {
      key: w.key,
    });
    assert.equal(after.status, 200, after.body);
    assert.deepEqual(after.json.data, []);
  });

  test('each record is the bytes of the same item on a page, with text JSON escapes and text beyond ASCII (P249)', async () => {
    const w = await h.workspace();
    const texts = [
      'quote " backslash \\ slash /',
      'controls \u0001\t\n\r\u001f and DEL \u007f',
      'line separators \u2028\u2029',
      'Ζήτα 東京 emoji 🦊 </script>',
      '',
      '\u001e',
      'é'.repeat(60),
    ];
    await h.import(w.id, {
      suppliers: texts.map((text, i) => ({
        name: text || 'empty industry',
        industry: text,
        tags: [text || 'empty', `tag-${i}`],
        contacts: [{ name: text, email: null }],
        // 90 KB of three-byte characters: every record spans chunks of the COPY's output.
        onboarding_data: { note: text, list: [text, 1.5, null, true], long: '東'.repeat(30_000) },
        email: `e${i}@example.com`,
      })),
    });
    const res = await exportOf(w.key, '/suppliers');
    assert.equal(res.status, 200, res.body);
    const records = res.body.slice(0, -1).split('\n').slice(0, -1);
    assert.equal(records.length, texts.length);
    const page = await h.api('GET', '/suppliers?limit=200', { key: w.key });
    for (const record of records) assert.ok(page.body.includes(record), record);
    assert.deepEqual(records.map((record) => JSON.parse(record).industry).sort(), [...texts].sort());
  });

  test('filters apply as on the pages; an empty export is the end line alone', async () => {
    const w = await h.workspace();
    await suppliers(w.id, 40);
    const res = await exportOf(w.key, '/suppliers?status=inactive&limit=3');
    const all = lines(res.body);
    const end = all.pop();
    assert.deepEqual(all, await walk(w.key, '/suppliers?status=inactive'));
    assert.equal(all.length, 10, '`limit` does not apply to an export');
    assert.equal(end.meta.count, 10);
    const empty = await exportOf(w.key, '/suppliers?tag=none-has-it');
    assert.deepEqual(lines(empty.body), [{ meta: { next_cursor: null, count: 0 } }]);
  });

  test('a filter value with quotes, backslashes and dollar signs is a value, never SQL (P235: COPY takes literals)', async () => {
    const w = await h.workspace();
    const awkward = "it's \\' $1 $ws\"; drop table suppliers; --";
    await h.import(w.id, {
      suppliers: [
        { name: 'Tagged', tags: [awkward] },
        { name: 'Other', tags: ["it's"] },
      ],
    });
    const res = await exportOf(w.key, `/suppliers?tag=${encodeURIComponent(awkward)}`);
    assert.equal(res.status, 200);
    const all = lines(res.body);
    assert.deepEqual(
      all.slice(0, -1).map((row: Json) => row.name),
      ['Tagged'],
    );
    assert.equal(all.at(-1).meta.count, 1);
    assert.deepEqual(all.slice(0, -1), await walk(w.key, `/suppliers?tag=${encodeURIComponent(awkward)}`));
  });

  test('redaction: a key without pii:read exports no personal field, like its pages', async () => {
    const w = await h.workspace();
    await suppliers(w.id, 12);
    const key = await h.key(w.id, w.userId, ['suppliers:read']);
    const redacted = lines((await exportOf(key.secret, '/suppliers')).body).slice(0, -1);
    assert.equal(redacted.length, 12);
    assert.deepEqual(redacted, await walk(key.secret, '/suppliers'));
    for (const row of redacted)
      for (const field of ['email', 'contacts', 'onboarding_data']) assert.ok(!(field in row));
    const full = lines((await exportOf(w.key, '/suppliers')).body).slice(0, -1);
    assert.equal(full[0].email.endsWith('@example.com'), true);
  });

  test('scopes and workspaces: another scope is a 403, and only the caller workspace is exported', async () => {
    const w = await h.workspace();
    const other = await h.workspace();
    await suppliers(w.id, 5);
    await suppliers(other.id, 7, 'O');
    const key = await h.key(w.id, w.userId, ['risks:read']);
    assertError(await exportOf(key.secret, '/suppliers'), 403, 'insufficient_scope');
    const rows = lines((await exportOf(other.key, '/suppliers')).body).slice(0, -1);
    assert.equal(rows.length, 7);
    assert.ok(rows.every((row: Json) => row.name.startsWith('O')));
  });

  test('a feed: the end cursor resumes with exactly the entries written after the export', async () => {
    const w = await h.workspace();
    for (let i = 0; i < 3; i++)
      await h.api('POST', '/suppliers', {
        key: w.key,
        body: { name: `Before ${i}` },
        headers: { 'idempotency-key': `before-${i}` },
      });
    const exported = lines((await exportOf(w.key, '/audit-logs')).body);
    const end = exported.pop();
    assert.ok(exported.length >= 3);
    assert.deepEqual(exported, await walk(w.key, '/audit-logs'));
    for (let i = 0; i < 2; i++)
      await h.api('POST', '/suppliers', {
        key: w.key,
        body: { name: `After ${i}` },
        headers: { 'idempotency-key': `after-${i}` },
      });
    const resumed = await h.api('GET', `/audit-logs?cursor=${encodeURIComponent(end.meta.next_cursor)}`, {
      key: w.key,
    });
    assert.equal(resumed.status, 200, resumed.body);
    const ids = new Set(exported.map((entry: Json) => entry.id));
    assert.equal(resumed.json.data.length, 2);
    assert.ok(resumed.json.data.every((entry: Json) => !ids.has(entry.id)));
    // An export resumed from that cursor holds the same two entries.
    const again = lines(
      (await exportOf(w.key, `/audit-logs?cursor=${encodeURIComponent(end.meta.next_cursor)}`)).body,
    );
    assert.deepEqual(again.slice(0, -1), resumed.json.data);
  });

  test('Accept: anything but application/x-ndjson preferred keeps the JSON page', async () => {
    const w = await h.workspace();
    await suppliers(w.id, 3);
    for (const accept of [
      '*/*',
      'application/json',
      'text/csv',
      'application/x-ndjson;q=0',
      'application/json, application/x-ndjson;q=0.5',
      'application/x-ndjsonx',
    ]) {
      const res = await h.api('GET', '/suppliers', { key: w.key, headers: { accept } });
      assert.equal(res.status, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/, accept);
      assert.equal(res.json.data.length, 3, accept);
    }
    const preferred = await exportOf(w.key, '/suppliers', {
      accept: 'application/json;q=0.9, application/x-ndjson',
    });
    assert.equal(preferred.headers['content-type'], NDJSON);
  });

  test('a bad filter or cursor is the usual 400 before any byte; a bad key the usual 401', async () => {
    const w = await h.workspace();
    const bad = await exportOf(w.key, '/suppliers?status=nonsense');
    assertError(bad, 400, 'invalid_request');
    assert.match(String(bad.headers['content-type']), /^application\/json/);
    assertError(await exportOf(w.key, '/suppliers?cursor=abc.def'), 400, 'invalid_request');
    assertError(await exportOf(w.key, '/suppliers?unknown=1'), 400, 'invalid_request');
    assertError(await exportOf('tprm_live_not_a_key', '/suppliers'), 401, 'invalid_api_key');
  });

  test('exports have their own hourly budget, with the usual headers; pages are not counted in it', async () => {
    const limited = await Harness.start({
      buckets: { exports: [{ name: 'export-hour', limit: 2, windowMs: 3_600_000 }] },
    });
    try {
      const w = await limited.workspace();
      const get = (accept: string) => limited.api('GET', '/suppliers', { key: w.key, headers: { accept } });
      assert.equal((await get(NDJSON)).status, 200);
      const second = await get(NDJSON);
      assert.equal(second.status, 200);
      assert.equal(second.headers['x-ratelimit-limit'], '2');
      assert.equal(second.headers['x-ratelimit-remaining'], '0');
      const third = await get(NDJSON);
      assertError(third, 429, 'rate_limit_exceeded');
      assert.ok(Number(third.headers['retry-after']) > 0);
      assert.equal((await get('application/json')).status, 200);
    } finally {
      await limited.close();
    }
  });
});

describe('exports over a socket: backpressure, writers, snapshot, disconnect, failure', () => {
  test('a paused export blocks no writer and no reader; the stream is one snapshot on PostgreSQL', async () => {
    const w = await h.workspace();
    await bigSuppliers(w.id, BIG);
    const oldest = await h.db.query<{ id: string }>(
      'select id from suppliers where workspace_id = $1 order by created_at asc, id asc limit 1',
      [w.id],
    );
    const port = await listen(h.publicApp);
    const res = await open(port, w.key, '/suppliers');
    assert.equal(res.statusCode, 200);
    const start = await readSome(res, 1);
    // The client stopped reading: writes and other requests still go through, at once.
    const write = await h.api('POST', '/suppliers', {
      key: w.key,
      body: { name: 'Written during the export' },
      headers: { 'idempotency-key': 'during-export' },
    });
    assert.equal(write.status, 201, write.body);
    const page = await h.api('GET', '/suppliers?limit=1', { key: w.key });
    assert.equal(page.json.data[0].name, 'Written during the export');
    await h.db.query('update suppliers set name = $2 where id = $1', [
      oldest[0]?.id,
      'Renamed during the export',
    ]);
    const all = lines(await readRest(res, start));
    const end = all.pop();
    assert.equal(end.meta.count, BIG, 'the row written after the export began is not in it');
    const ids = all.map((row: Json) => row.id);
    assert.equal(new Set(ids).size, BIG, 'no row twice');
    const last = all.at(-1);
    assert.equal(last.id, oldest[0]?.id);
    // PostgreSQL: one REPEATABLE READ snapshot, so the update made during the export is not seen. The embedded
    // store reads chunk by chunk (P194): the later chunk sees it.
    assert.equal(last.name, ENGINE === 'postgres' ? 'S0' : 'Renamed during the export');
    await eventually(released, 'the export gave its connection back');
  });

  // On the embedded store the rows come as strings of MBs per chunk, not as socket reads, and its memory
  // outside V8's heap is mostly PGlite's own: the bound is the COPY's.
  const onPostgres = { skip: ENGINE === 'postgres' ? false : 'the COPY runs on a PostgreSQL server only' };
  test(
    'memory stays flat: the Buffers of the COPY are collected every few MB (P245)',
    onPostgres,
    async () => {
      const w = await h.workspace();
      await bigSuppliers(w.id, 2 * BIG);
      const port = await listen(h.publicApp);
      const MB = 1024 * 1024;
      // Memory outside V8's heap (Buffers) in this process, which runs the service: its least and its most while
      // the export streams, read at each chunk the client receives.
      const external = () => getHeapStatistics().external_memory;
      const exportWhole = async () => {
        let least = external();
        let most = least;
        let bytes = 0;
        const res = await open(port, w.key, '/suppliers');
        assert.equal(res.statusCode, 200);
        await new Promise<void>((resolve, reject) => {
          res.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            const now = external();
            least = Math.min(least, now);
            most = Math.max(most, now);
          });
          res.on('end', resolve);
          res.on('error', reject);
        });
        assert.ok(bytes > 80 * MB, `the export (${bytes} bytes) is much larger than the bound below`);
        return (most - least) / MB;
      };
      // The first export may grow memory the service keeps for later statements; the second is measured.
      await exportWhole();
      const growth = await exportWhole();
      // Without P245's collections, they grow by some 33 MB here.
      assert.ok(growth < 24, `Buffers grew by ${growth.toFixed(1)} MB during an export`);
    },
  );

  test('a client that disconnects mid-stream releases the connection and the snapshot at once', async () => {
    const w = await h.workspace();
    await bigSuppliers(w.id, BIG);
    const port = await listen(h.publicApp);
    const res = await open(port, w.key, '/suppliers');
    await readSome(res, 1);
    await sleep(100);
    if (ENGINE === 'postgres') assert.equal(await released(), false, 'the paused export holds its snapshot');
    res.destroy();
    await eventually(released, 'the connection and the snapshot released (after the chunk in flight)');
    // And the service goes on.
    assert.equal((await h.api('GET', '/suppliers?limit=1', { key: w.key })).status, 200);
  });

  test('at most two exports of a workspace at once: a third is a 429 with Retry-After until one ends', async () => {
    const w = await h.workspace();
    const other = await h.workspace();
    await bigSuppliers(w.id, BIG);
    const port = await listen(h.publicApp);
    const first = await open(port, w.key, '/suppliers');
    const second = await open(port, w.key, '/suppliers');
    await Promise.all([readSome(first, 1), readSome(second, 1)]);
    const third = await exportOf(w.key, '/suppliers');
    assertError(third, 429, 'rate_limit_exceeded');
    assert.equal(third.headers['retry-after'], '1');
    // Another workspace is not held back by this one's exports.
    assert.equal((await exportOf(other.key, '/suppliers')).status, 200);
    first.destroy();
    await eventually(
      async () => (await exportOf(w.key, '/suppliers?tag=none')).status === 200,
      'a slot freed',
    );
    second.destroy();
    await eventually(released, 'both exports ended');
  });

  test('a failure mid-stream ends with an error line in the error shape, never an end line', async () => {
    const w = await h.workspace();
    await bigSuppliers(w.id, BIG);
    const port = await listen(h.publicApp);
    const res = await open(port, w.key, '/suppliers');
    const start = await readSome(res, 1);
    await sleep(100);
    // The fault: the export's connection is killed (PostgreSQL), or its table goes away (the embedded store).
    if (ENGINE === 'postgres')
      await eventually(async () => {
        const killed = await h.db.query(`select pg_terminate_backend(pid) ${EXPORT_SESSIONS}`);
        return killed.length === 1;
      }, 'the export waits for its client, holding its transaction');
    else await h.db.query('alter table suppliers rename to suppliers_gone');
    let body: string;
    try {
      body = await readRest(res, start);
    } finally {
      if (ENGINE !== 'postgres') await h.db.query('alter table suppliers_gone rename to suppliers');
    }
    const all = lines(body);
    const last = all.pop();
    assert.equal(last.error?.code, 'internal_error', JSON.stringify(last));
    assert.match(last.error.request_id, /^[0-9a-f-]{36}$/);
    assert.ok(
      all.every((row: Json) => typeof row.id === 'string'),
      'only whole records before it',
    );
    assert.ok(all.length < BIG);
    await eventually(released, 'the failed export released its connection');
    assert.equal((await h.api('GET', '/suppliers?limit=1', { key: w.key })).status, 200);
  });
});

describe('the SDK: client.<list>.export() streams a collection', () => {
  test('yields every item like list(), then exposes the cursor that continues after it; a break ends the export', async () => {
    const w = await h.workspace();
    await suppliers(w.id, 1203);
    const port = await listen(h.publicApp);
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: w.key });
    const stream = client.suppliers.export({ status: 'active' });
    const items = await stream.toArray();
    assert.deepEqual(items, await client.suppliers.list({ status: 'active', limit: 200 }).toArray());
    assert.equal(stream.count, items.length);
    assert.equal(typeof stream.nextCursor, 'string');
    assert.equal(stream.lastResponse?.rateLimit?.limit !== undefined, true);
    const after = await client.suppliers.listPage({ status: 'active', cursor: stream.nextCursor as string });
    assert.deepEqual(after.data, []);
    // Every list of the document has its export (generated): the audit feed's resumes where it ended.
    const audit = client.auditLogs.export();
    const entries = await audit.toArray();
    assert.deepEqual(entries, await client.auditLogs.list({ limit: 200 }).toArray());
    const resumed = await client.auditLogs.listPage({ cursor: audit.nextCursor as string });
    assert.deepEqual(resumed.data, []);
    assert.equal(resumed.meta.next_cursor, audit.nextCursor);
    let seen = 0;
    for await (const _ of client.suppliers.export()) if (++seen === 10) break;
    await eventually(released, 'a loop left early ends the export');
  });
});

describe('the CLI: tprm export <collection> --out FILE', () => {
  test('saves every record a line, prints the rows and the next cursor; a refused export leaves no file', async () => {
    const w = await h.workspace();
    await suppliers(w.id, 1500);
    const port = await listen(h.publicApp);
    const cwd = mkdtempSync(join(tmpdir(), 'tprm-export-'));
    const { tprm, ok } = tprmRunner(() => ({ adminUrl: 'http://127.0.0.1:9', adminToken: 'unused', cwd }));
    const env = { TPRM_API_URL: `http://127.0.0.1:${port}/v1`, TPRM_API_KEY: w.key };
    const out = join(cwd, 'inactive.ndjson');
    const run = await ok(['export', 'suppliers', '--filter', 'status=inactive', '--out', out, '--json'], {
      env,
    });
    const saved = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(saved, await walk(w.key, '/suppliers?status=inactive'));
    assert.equal(run.json.rows, saved.length);
    assert.equal(typeof run.json.next_cursor, 'string');
    assert.match(run.stderr, /export suppliers: \d+ rows, \d+ rows\/s/);
    // The cursor continues after the export: nothing is left.
    const rest = await ok(
      [
        'export',
        'suppliers',
        '--filter',
        'status=inactive',
        '--cursor',
        run.json.next_cursor,
        '--out',
        out,
        '--json',
      ],
      { env },
    );
    assert.equal(rest.json.rows, 0);
    const refused = join(cwd, 'refused.ndjson');
    const bad = await tprm(['export', 'suppliers', '--filter', 'status=nonsense', '--out', refused], { env });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /invalid_request, HTTP 400/);
    assert.equal(existsSync(refused) || existsSync(`${refused}.partial`), false);
  });
});
