// `tprm migrate`: applies the pending SQL migrations straight to the database, not over HTTP.
import { type OpenedDb, openDataDir, openServer } from './database.js';
import { CliError } from './errors.js';
import { count, type Output, print } from './output.js';

/** The database of the configuration. */
async function openConfigured(): Promise<OpenedDb> {
  const { loadConfig } = await import('../config.js');
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  return config.databaseUrl ? openServer(config.databaseUrl) : openDataDir(config.dataDir);
}

export async function runMigrations(out: Output): Promise<void> {
  const { migrate } = await import('../storage/migrate.js');
  const { db, target, release } = await openConfigured();
  try {
    const applied = await migrate(db);
    print(out, { database: db.engine, target, applied }, () =>
      applied.length === 0
        ? `Nothing to apply: ${target} is up to date.`
        : `Applied ${count(applied.length, 'migration')} to ${target}:\n${applied.map((name) => `  ${name}`).join('\n')}`,
    );
  } finally {
    await db.close().catch(() => undefined);
    release?.();
  }
}
