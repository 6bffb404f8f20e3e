// Moving from the embedded store to PostgreSQL (docs/operations.md "Moving the embedded store to PostgreSQL";
// docs/decisions.md P94-P96): `tprm store copy --from DATA_DIR --to postgres://…` copies every table, verified
// by row counts and checksums, into an empty database, refuses a non-empty one and a DATA_DIR a server holds.
// The real service runs on both sides: what it answered on the embedded store, it answers on PostgreSQL.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { connect } from '../../src/cli/transport.js';
import type { ApiKeyAuth, Operation } from '../../src/contract/operation.js';
import { publicOperations } from '../../src/resources/operations.js';
import { BATCH_MAX_ROWS, storeTables, tableChecks, tablesWithRows } from '../../src/storage/copy.js';
import { openPostgres } from '../../src/storage/db.js';
import { lockDataDir } from '../../src/storage/lock.js';
import { loadMigrations } from '../../src/storage/migrations.js';
import { eventually, Receiver } from '../support/receiver.js';
import { firstStartSecrets, type ServiceProcess, startService } from '../support/service.js';

const BIN = fileURLToPath(new URL('../../../bin/tprm.js', import.meta.url));
const serverUrl = process.env.TEST_DATABASE_URL;
const needsServer = !serverUrl && 'needs PostgreSQL (TEST_DATABASE_URL): the copy goes to a server';
const ADMIN_TOKEN = `copy-admin-${randomUUID()}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `tprm …` as a person runs it, in its own process. */
function tprm(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const freshDataDir = () => mkdtempSync(join(tmpdir(), 'tprm-copy-'));

/** A new database on the test server, dropped by `drop` (the test runner also drops leftovers by prefix). */
async function createDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${process.env.TEST_DB_PREFIX ?? 'tprm_t_'}${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl as string);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: async () => {
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

/** The demo key the first start shows once (in its file in DATA_DIR: the test's stderr is no terminal). */
async function demoKey(service: ServiceProcess): Promise<string> {
  const { apiKey } = await firstStartSecrets(service);
  assert.ok(apiKey, 'the first start shows a demo key');
  return apiKey;
}

const get = (service: ServiceProcess, path: string, key: string) =>
  fetch(`${service.publicUrl}/v1${path}`, { headers: { authorization: `Bearer ${key}` } });

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies of the API
async function getJson(service: ServiceProcess, path: string, key: string): Promise<any> {
  const res = await get(service, path, key);
  const text = await res.text();
  assert.equal(res.status, 200, `GET ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Every page of a list, following its cursor (a route without `limit` answers in one page). */
async function wholeList(
  service: ServiceProcess,
  route: Operation<ApiKeyAuth>,
  path: string,
  key: string,
): Promise<unknown[]> {
  if (!route.query?.properties.limit) return [await getJson(service, path, key)];
  const pages: unknown[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await getJson(
      service,
      `${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      key,
    );
    pages.push(page);
    if (!page.has_more) return pages;
    cursor = page.next_cursor;
  }
}

/**
 * The answers of every public GET list route: the ones without path parameters whole, and each nested list
 * (`/assessments/:id/gaps`) for the first ids of its parent list. Built from the route table, so a new list is
 * compared without a change here.
 */
async function everyList(service: ServiceProcess, key: string): Promise<Map<string, unknown>> {
  const answers = new Map<string, unknown>();
  const lists = publicOperations.filter((route) => route.method === 'GET' && route.responses[200]);
  for (const route of lists.filter((r) => !r.path.includes(':')))
    answers.set(route.path, await wholeList(service, route, route.path, key));
  for (const route of lists) {
    const nested = /^(\/[\w-]+)\/:id(\/[\w-]+)$/.exec(route.path);
    if (!nested) continue;
    const parent = (await getJson(service, `${nested[1]}?limit=3`, key)).data as { id: string }[];
    for (const { id } of parent) {
      const path = `${nested[1]}/${id}${nested[2]}`;
      answers.set(path, await wholeList(service, route, path, key));
    }
  }
  return answers;
}

/** The bytes of a report's PDF, through its signed URL. */
async function pdfBytes(service: ServiceProcess, reportId: string, key: string): Promise<Buffer> {
  const redirect = await fetch(`${service.publicUrl}/v1/reports/${reportId}/pdf`, {
    headers: { authorization: `Bearer ${key}` },
    redirect: 'manual',
  });
  assert.equal(redirect.status, 302);
  // The signed URL names PUBLIC_BASE_URL; the listener here has a port of its own.
  const signed = new URL(redirect.headers.get('location') as string);
  const file = await fetch(`${service.publicUrl}${signed.pathname}${signed.search}`);
  assert.equal(file.status, 200);
  return Buffer.from(await file.arrayBuffer());
}

/** The checksum of every table of a database, as the copy computes them. */
async function checksOf(url: string) {
  const db = await openPostgres(url, { max: 1 });
  try {
    return await tableChecks(db, await storeTables(db));
  } finally {
    await db.close();
  }
}

describe('store copy: embedded store to PostgreSQL', { skip: needsServer }, () => {
  const dataDir = freshDataDir();
  let receiver: Receiver;
  let target: { url: string; drop: () => Promise<void> };
  let embedded: ServiceProcess | undefined;
  let server: ServiceProcess | undefined;
  let key: string;
  let reportId: string;
  let answers: Map<string, unknown>;
  let pdf: Buffer;
  const idempotent = { key: randomUUID(), body: { name: 'Copied Supplier Ltd', domain: 'copied.example' } };
  let created: { status: number; body: string };

  const postSupplier = (service: ServiceProcess) =>
    fetch(`${service.publicUrl}/v1/suppliers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotent.key,
      },
      body: JSON.stringify(idempotent.body),
    });

  before(async () => {
    receiver = await Receiver.start();
    target = await createDatabase();
    const env = { DATA_DIR: dataDir, ADMIN_TOKEN, WEBHOOK_ALLOW_INSECURE_URLS: 'true' };
    embedded = await startService(env, 90_000);
    key = await demoKey(embedded);
    // The first start renders the demo reports' PDFs in the background, each announcing report.ready: once
    // they are done, the one render below is the only event the endpoint gets.
    const started = embedded;
    await eventually(
      async () => started.output.some((line) => line.includes('"msg":"demo report PDFs rendered"')),
      120_000,
    );
    const admin = connect({ adminUrl: embedded.adminUrl, adminToken: ADMIN_TOKEN });
    const [workspace] = (await admin.listWorkspaces()).data;
    const workspaceId = (workspace as { id: string }).id;
    // A webhook delivery, made: the render's report.ready reaches the receiver.
    await admin.createWebhookEndpoint({
      params: { id: workspaceId },
      body: { url: receiver.url('/copy'), events: ['report.ready'] },
    });
    reportId = (await getJson(embedded, '/reports?limit=1', key)).data[0].id;
    await admin.renderReport({ params: { id: reportId }, body: {} });
    await receiver.waitFor(1, 30_000);
    const service = embedded;
    await eventually(async () => {
      const deliveries = await getJson(service, '/webhook-deliveries', key);
      return deliveries.data.length === 1 && deliveries.data[0].status === 'delivered';
    }, 30_000);
    // An idempotency record.
    const first = await postSupplier(embedded);
    created = { status: first.status, body: await first.text() };
    assert.equal(created.status, 201, created.body);
    answers = await everyList(embedded, key);
    pdf = await pdfBytes(embedded, reportId, key);
  });

  after(async () => {
    for (const service of [embedded, server])
      if (service && service.child.exitCode === null && service.child.signalCode === null)
        await service.kill('SIGKILL');
    await receiver?.close();
    await target?.drop();
  });

  test('a DATA_DIR held by a running server is refused, naming the process; nothing is written', async () => {
    const running = embedded as ServiceProcess;
    const run = await tprm(['store', 'copy', '--from', dataDir, '--to', target.url]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`in use by process ${running.child.pid}`));
    assert.match(run.stderr, /note: stop the server that uses this DATA_DIR/);
    assert.deepEqual(await checksOf(target.url), [], 'the target was not even migrated');
  });

  test('after the server stops: every table copied and verified, in one run', async () => {
    assert.equal(await (embedded as ServiceProcess).kill('SIGTERM'), 0);
    const run = await tprm(['store', 'copy', '--from', dataDir, '--to', target.url, '--json']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.verified, true);
    assert.deepEqual(
      report.migrated,
      loadMigrations().map((migration) => migration.name),
    );
    // Every table of the schema (read from the catalogue) is in the report, with its rows and checksum, and
    // the target computes the same ones.
    const checks = await checksOf(target.url);
    assert.deepEqual(
      [...report.tables].sort((a, b) => a.table.localeCompare(b.table)),
      [...checks].sort((a, b) => a.table.localeCompare(b.table)),
    );
    const rows = Object.fromEntries(checks.map((check) => [check.table, check.rows]));
    for (const table of ['workspaces', 'api_keys', 'webhook_endpoints', 'events', 'webhook_deliveries'])
      assert.ok((rows[table] ?? 0) > 0, `${table} has rows`);
    for (const table of ['audit_logs', 'stored_objects', 'idempotency_keys', 'service_settings'])
      assert.ok((rows[table] ?? 0) > 0, `${table} has rows`);
    // A table larger than one batch: its rows come in several, each continuing where the last stopped.
    assert.ok((rows.gaps ?? 0) > BATCH_MAX_ROWS, `gaps: ${rows.gaps} rows`);
  });

  test('the service on PostgreSQL answers every list as it did on the embedded store; the demo key, the PDF and the idempotency record work', async () => {
    server = await startService(
      {
        DATABASE_URL: target.url,
        DATA_DIR: freshDataDir(),
        ADMIN_TOKEN,
        WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      },
      60_000,
    );
    const copied = await everyList(server, key);
    assert.deepEqual([...copied.keys()], [...answers.keys()]);
    for (const [path, answer] of answers) assert.deepEqual(copied.get(path), answer, `GET ${path}`);
    assert.ok(answers.size >= 15, `${answers.size} lists compared`);
    assert.deepEqual(await pdfBytes(server, reportId, key), pdf, 'the PDF is byte-equal');
    // The same Idempotency-Key replays the response stored on the embedded store.
    const replay = await postSupplier(server);
    assert.equal(replay.status, created.status);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(await replay.text(), created.body);
    // The delivery made on the embedded store is not made again.
    assert.equal(receiver.received.length, 1);
    // The audit chain came with its head (P99): it verifies, and a new write continues it.
    const admin = connect({ adminUrl: server.adminUrl, adminToken: ADMIN_TOKEN });
    const workspace = { params: { id: (await admin.listWorkspaces()).data[0]?.id as string } };
    const moved = await admin.verifyAuditChain(workspace);
    assert.equal(moved.valid, true);
    const later = await fetch(`${server.publicUrl}/v1/suppliers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify({ name: 'Written after the move' }),
    });
    assert.equal(later.status, 201, await later.text());
    const continued = await admin.verifyAuditChain(workspace);
    assert.deepEqual(
      { valid: continued.valid, entries_checked: continued.entries_checked },
      { valid: true, entries_checked: moved.entries_checked + 1 },
    );
  });

  test('a target that holds rows is refused with exit 1, and left as it was', async () => {
    const before = await checksOf(target.url);
    const run = await tprm(['store', 'copy', '--from', dataDir, '--to', target.url]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^error: The target is not empty: .*workspaces.* Copy into a new, empty database\.\n/,
    );
    assert.deepEqual(await checksOf(target.url), before);
  });

  test('a failure during the copy keeps nothing: the target is left empty; its own triggers do not fire', async () => {
    const other = await createDatabase();
    try {
      const migrated = await tprm(['migrate'], { DATABASE_URL: other.url });
      assert.equal(migrated.code, 0, migrated.stderr);
      const client = new pg.Client({ connectionString: other.url });
      await client.connect();
      try {
        // A trigger that would refuse every supplier (suppliers are copied early): the copy disables it. Then a
        // constraint that refuses the PDFs (copied late): the copy fails after writing other tables.
        await client.query(`create function refuse_supplier() returns trigger language plpgsql as
          $$ begin raise exception 'the trigger fired'; end $$`);
        await client.query(
          'create trigger refuse_supplier before insert on suppliers for each row execute function refuse_supplier()',
        );
        await client.query('alter table stored_objects add constraint refuse_copy check (false) not valid');
      } finally {
        await client.end();
      }
      const run = await tprm(['store', 'copy', '--from', dataDir, '--to', other.url]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, /^error: The copy failed; nothing it wrote was kept: .*"refuse_copy"/);
      const db = await openPostgres(other.url, { max: 1 });
      try {
        assert.deepEqual(await tablesWithRows(db), []);
      } finally {
        await db.close();
      }
    } finally {
      await other.drop();
    }
  });
});

describe('store copy: refusals before any database is touched', () => {
  test('a DATA_DIR locked by another process is refused, with exit 1 and the way out', async () => {
    const dataDir = freshDataDir();
    const migrated = await tprm(['migrate'], { DATA_DIR: dataDir });
    assert.equal(migrated.code, 0, migrated.stderr);
    const release = lockDataDir(dataDir); // this test process plays the server
    try {
      const run = await tprm([
        'store',
        'copy',
        '--from',
        dataDir,
        '--to',
        'postgres://nobody@127.0.0.1:1/none',
      ]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`in use by process ${process.pid}`));
      assert.match(run.stderr, /note: stop the server that uses this DATA_DIR, then run the command again\./);
    } finally {
      release();
    }
  });

  test('a directory without an embedded store, or no target, is refused (--json: one JSON error)', async () => {
    const empty = freshDataDir();
    const run = await tprm([
      'store',
      'copy',
      '--from',
      empty,
      '--to',
      'postgres://nobody@127.0.0.1:1/none',
      '--json',
    ]);
    assert.equal(run.code, 1);
    assert.match(JSON.parse(run.stderr).error.message, /holds no embedded store/);
    const noTarget = await tprm(['store', 'copy', '--from', empty]);
    assert.equal(noTarget.code, 1);
    assert.match(noTarget.stderr, /--to postgres:\/\/… \(or set DATABASE_URL\)/);
  });

  test('--help says what is copied, what is refused and how to start after', async () => {
    const help = await tprm(['store', 'copy', '--help']);
    assert.equal(help.code, 0);
    for (const phrase of [
      /--from <dir>/,
      /--to <url>/,
      /Stop the server first/,
      /must hold no\s+rows/,
      /DATABASE_URL/,
    ])
      assert.match(help.stdout, phrase);
  });
});
