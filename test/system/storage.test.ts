// Storage: migrations (numbered, applied once; the audit actor type's domain, P101), the data-directory lock
// of the embedded store, exact instants.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type Db, openEmbedded } from '../../src/storage/db.js';
import { templatePath } from '../../src/storage/embedded-template.js';
import { DataDirLockedError, lockDataDir } from '../../src/storage/lock.js';
import { migrate, pendingMigrations } from '../../src/storage/migrate.js';
import { loadMigrations } from '../../src/storage/migrations.js';
import { useHarness } from '../support/harness.js';

const { h } = useHarness();

describe('migrations', () => {
  test('numbered, applied once: a second run applies nothing, and none is pending', async () => {
    const files = loadMigrations();
    assert.ok(files.length >= 1);
    assert.deepEqual(
      files.map((m) => m.version),
      [...files.map((m) => m.version)].sort((a, b) => a - b),
    );
    assert.deepEqual(await migrate(h.db), []);
    assert.equal(await pendingMigrations(h.db), 0);
  });

  test("every tenant table's primary key starts with workspace_id", async () => {
    const rows = await h.db.query<{ table_name: string; first: string }>(
      `select c.relname as table_name, a.attname as first
         from pg_index i join pg_class c on c.oid = i.indrelid
         join pg_attribute a on a.attrelid = c.oid and a.attnum = i.indkey[0]
         join pg_namespace n on n.oid = c.relnamespace
        where i.indisprimary and n.nspname = 'public'
          and c.relname not in ('workspaces', 'service_settings', 'schema_migrations')`,
    );
    assert.ok(rows.length >= 8);
    for (const row of rows) assert.equal(row.first, 'workspace_id', row.table_name);
  });

  test("an audit entry's actor type is checked by a domain, not by a CHECK of audit_logs (P101)", async () => {
    const { id } = await h.workspace();
    const insert = (actorType: string) =>
      h.db.query(
        `insert into audit_logs (workspace_id, id, action, actor_type) values ($1, $2, 'supplier.created', $3)`,
        [id, randomUUID(), actorType],
      );
    await assert.rejects(insert('robot'), (error: { code?: string; constraint?: string }) => {
      assert.equal(error.code, '23514');
      assert.equal(error.constraint, 'audit_actor_type_check');
      return true;
    });
    const checks = await h.db.query(
      "select conname from pg_constraint where conrelid = 'audit_logs'::regclass and contype = 'c'",
    );
    assert.deepEqual(checks, [], 'a table CHECK is parsed and planned again by every insert');
    // The values the service writes still go in (a raw row is left in this test's workspace only).
    for (const actorType of ['user', 'api_key', 'system']) await insert(actorType);
  });
});

describe("a new embedded store starts from the build's template", () => {
  /** Everything the migrations define, in a comparable form. */
  const catalogue = (db: Db) =>
    db.query<{ kind: string; what: string }>(
      `select 'column' as kind, concat_ws(' ', table_name, column_name, data_type, column_default, is_nullable) as what
         from information_schema.columns where table_schema = 'public'
       union all select 'index', indexdef from pg_indexes where schemaname = 'public'
       union all select 'constraint', conrelid::regclass || ' ' || pg_get_constraintdef(oid)
         from pg_constraint where connamespace = 'public'::regnamespace
       union all select 'function', pg_get_functiondef(p.oid)
         from pg_proc p where p.pronamespace = 'public'::regnamespace
       union all select 'trigger', tgrelid::regclass || ' ' || tgname from pg_trigger where not tgisinternal
       union all select 'migration', version || ' ' || name from schema_migrations
       order by 1, 2`,
    );

  test('the same schema as initdb and every migration, already migrated, and no rows', async () => {
    assert.ok(existsSync(templatePath()), 'npm run build makes the template');
    const fromTemplate = await openEmbedded();
    const fromInitdb = await openEmbedded(undefined, { template: false });
    try {
      assert.deepEqual(await migrate(fromTemplate), []);
      assert.equal((await migrate(fromInitdb)).length, loadMigrations().length);
      const expected = await catalogue(fromInitdb);
      assert.ok(expected.length > 100);
      assert.deepEqual(await catalogue(fromTemplate), expected);
      const [rows] = await fromTemplate.query<{ n: number }>(
        `select (select count(*) from workspaces) + (select count(*) from service_settings) as n`,
      );
      assert.equal(rows?.n, 0);
    } finally {
      await fromTemplate.close();
      await fromInitdb.close();
    }
  });
});

describe('statements left behind by work that failed', () => {
  test('a rejected statement nobody awaits is no unhandled rejection (it would end the process)', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      // As work that pipelines statements and stops at the first failure, as a server restart makes them all fail.
      await assert.rejects(
        h.db.transaction(async (tx) => {
          const first = tx.query('select 1 / 0');
          const second = tx.query('select 2');
          await first;
          await second;
        }),
        /division by zero/,
      );
      const first = h.db.query('select 1 / 0');
      const second = h.db.query('select 2 / 0');
      await assert.rejects(first, /division by zero/);
      await new Promise((resolve) => setTimeout(resolve, 50));
      void second;
    } finally {
      process.off('unhandledRejection', record);
    }
    assert.deepEqual(unhandled, []);
  });
});

describe('instants', () => {
  test('microseconds survive the round trip (a JS Date would drop them)', async () => {
    const [row] = await h.db.query<{ at: string }>(
      "select iso('2024-05-01 09:30:00.123456+00'::timestamptz) as at",
    );
    assert.equal(row?.at, '2024-05-01T09:30:00.123456Z');
  });
});

describe('the embedded data directory is locked', () => {
  test('a second process gets a clear error instead of silently losing writes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tprm-lock-'));
    const release = lockDataDir(dir);
    try {
      const script = `import('${new URL('../../src/storage/lock.js', import.meta.url).href}').then(m => { try { m.lockDataDir(${JSON.stringify(dir)}); console.log('locked'); } catch (e) { console.log(e.constructor.name + ': ' + e.message); } })`;
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
      assert.match(child.stdout, /DataDirLockedError: The embedded database in .* is in use by process \d+/);
      assert.throws(() => lockDataDir(dir), DataDirLockedError);
    } finally {
      release();
    }
    const again = lockDataDir(dir);
    again();
  });
});
