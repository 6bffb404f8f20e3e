// Numbered, append-only SQL files applied in order, all pending ones in one transaction, under an advisory
// lock so that several processes starting together apply each migration exactly once.
import type { Db } from './db.js';
import { loadMigrations } from './migrations.js';

const MIGRATIONS_LOCK = 7_349_001;

export async function migrate(db: Db): Promise<string[]> {
  const migrations = loadMigrations();
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATIONS_LOCK]);
    // A migration may rewrite a large table (0012 chains every stored audit entry): the pool's statement
    // timeout, meant for requests, must not abort it half-way through a start.
    await tx.query('set local statement_timeout = 0');
    await tx.query(
      'create table if not exists schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())',
    );
    const applied = new Set(
      (await tx.query<{ version: number }>('select version from schema_migrations')).map(
        (row) => row.version,
      ),
    );
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await execScript(tx, migration.sql);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      done.push(migration.name);
    }
    return done;
  });
}

export async function pendingMigrations(db: Db): Promise<number> {
  const exists = await db.query<{ present: boolean }>(
    "select to_regclass('schema_migrations') is not null as present",
  );
  if (!exists[0]?.present) return loadMigrations().length;
  const applied = await db.query<{ version: number }>('select version from schema_migrations');
  const versions = new Set(applied.map((row) => row.version));
  return loadMigrations().filter((migration) => !versions.has(migration.version)).length;
}

// A script holds several statements; the extended protocol takes one at a time. Statements are split on
// semicolons at line ends, outside dollar-quoted bodies.
async function execScript(tx: { query: Db['query'] }, sql: string): Promise<void> {
  let current = '';
  let inDollar = false;
  for (const line of sql.split('\n')) {
    if (line.trim().startsWith('--') && !inDollar) continue;
    current += `${line}\n`;
    const dollars = line.match(/\$\$/g)?.length ?? 0;
    if (dollars % 2 === 1) inDollar = !inDollar;
    if (!inDollar && /;\s*$/.test(line)) {
      await tx.query(current);
      current = '';
    }
  }
  if (current.trim()) await tx.query(current);
}
