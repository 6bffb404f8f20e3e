// `tprm migrate`: applies the pending SQL migrations straight to the database, not over HTTP.
import type { Db } from '../../storage/db.js';
import { CliError } from './errors.js';
import { type Output, print } from './output.js';

/** The database of the configuration, what to call it in messages, and what to release after. */
interface Target {
  db: Db;
  target: string;
  release?: () => void;
}

// Loaded when used, so that the HTTP commands do not pay for the database drivers.
async function openTarget(): Promise<Target> {
  const [{ loadConfig }, { openEmbedded, openPostgres }, { lockDataDir }, { join }] = await Promise.all([
    import('../../config.js'),
    import('../../storage/db.js'),
    import('../../storage/lock.js'),
    import('node:path'),
  ]);
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  if (config.databaseUrl) {
    const url = new URL(config.databaseUrl);
    url.password = url.password ? '***' : '';
    const target = url.href;
    const db = await openPostgres(config.databaseUrl, { max: 1 }).catch((error: Error) => {
      throw new CliError(`Cannot connect to ${target}: ${error.message}`);
    });
    return { db, target };
  }
  // The server holds this lock while it runs: PGlite loses writes when two processes open one directory.
  let release: () => void;
  try {
    release = lockDataDir(config.dataDir);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  const target = join(config.dataDir, 'pgdata');
  // Without the build's template: a new store then shows every migration applied by this command.
  return { db: await openEmbedded(target, { template: false }), target, release };
}

export async function runMigrations(out: Output): Promise<void> {
  const { migrate } = await import('../../storage/migrate.js');
  const { db, target, release } = await openTarget();
  try {
    const applied = await migrate(db);
    print(out, { database: db.engine, target, applied }, () =>
      applied.length === 0
        ? `Nothing to apply: ${target} is up to date.`
        : `Applied ${applied.length} migration(s) to ${target}:\n${applied.map((name) => `  ${name}`).join('\n')}`,
    );
  } finally {
    await db.close().catch(() => undefined);
    release?.();
  }
}
