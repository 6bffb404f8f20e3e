// The commands that work on a database directly, not over HTTP (`migrate`, `store copy`): opening the embedded
// store in a DATA_DIR (under its lock) or a PostgreSQL server, named in messages without a password.
// Loaded when used, so that the HTTP commands do not pay for the database drivers.
import type { Db } from '../storage/db.js';
import { CliError } from './errors.js';

/** An open database, what to call it in messages, and what to release after. */
export interface OpenedDb {
  db: Db;
  target: string;
  release?: () => void;
}

/** A database URL fit for messages: its password masked. */
export function displayUrl(url: string): string {
  const shown = new URL(url);
  shown.password = shown.password ? '***' : '';
  return shown.href;
}

export async function openServer(url: string): Promise<OpenedDb> {
  const { openPostgres } = await import('../storage/db.js');
  const target = displayUrl(url);
  const db = await openPostgres(url, { max: 1 }).catch((error: Error) => {
    throw new CliError(`Cannot connect to ${target}: ${error.message}`);
  });
  return { db, target };
}

/** The embedded store of `dataDir`, locked: the server holds this lock while it runs, and PGlite loses writes
 * when two processes open one directory. `existing`: refuse a directory that holds no store yet. */
export async function openDataDir(dataDir: string, options: { existing?: boolean } = {}): Promise<OpenedDb> {
  const [{ openEmbedded }, { DataDirLockedError, lockDataDir }, { existsSync }, { join }] = await Promise.all(
    [import('../storage/db.js'), import('../storage/lock.js'), import('node:fs'), import('node:path')],
  );
  const target = join(dataDir, 'pgdata');
  if (options.existing && !existsSync(join(target, 'PG_VERSION')))
    throw new CliError(`${dataDir} holds no embedded store (no ${target}): check the directory.`);
  let release: () => void;
  try {
    release = lockDataDir(dataDir);
  } catch (error) {
    const failure = new CliError((error as Error).message);
    if (error instanceof DataDirLockedError)
      failure.notes.push('stop the server that uses this DATA_DIR, then run the command again.');
    throw failure;
  }
  try {
    // Without the build's template: a new store then shows every migration applied by the command.
    return { db: await openEmbedded(target, { template: false }), target, release };
  } catch (error) {
    release();
    throw error;
  }
}
