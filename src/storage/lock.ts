// PGlite lets a second process open the same data directory and then silently loses writes.
// The first process holds a lock file with its pid; a second one gets a clear error instead.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** DATA_DIR cannot be used: said in one line at start, naming the directory. */
export class DataDirError extends Error {}
export class DataDirLockedError extends DataDirError {}

const REASONS: Record<string, string> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exhausted',
};

/** The embedded store needs to write in its directory: a failure to do so is said plainly. */
function unwritable(dataDir: string, error: unknown): DataDirError {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reason = REASONS[code] ?? (error as Error).message;
  return new DataDirError(
    `Cannot write to DATA_DIR ${dataDir}: ${reason}${REASONS[code] ? ` (${code})` : ''}.`,
  );
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// Directories locked by this process. A lock file naming our own pid is otherwise treated as stale: in a
// container the server is often pid 1 on every start, so a file left by a killed run would block it forever.
const heldHere = new Set<string>();

export function lockDataDir(dataDir: string): () => void {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    // A recursive mkdir says ENOENT when the parent is read-only; a plain one gives the real reason.
    let reason = error;
    try {
      mkdirSync(dataDir);
    } catch (plain) {
      reason = plain;
    }
    throw unwritable(dataDir, reason);
  }
  const path = join(dataDir, 'tprm.lock');
  if (heldHere.has(path))
    throw new DataDirLockedError(`The embedded database in ${dataDir} is already open in this process.`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      try {
        writeSync(fd, String(process.pid));
      } catch (error) {
        // A full disk: the file was made, its pid not written. Leave nothing behind.
        unlinkSync(path);
        throw unwritable(dataDir, error);
      } finally {
        closeSync(fd);
      }
      heldHere.add(path);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        heldHere.delete(path);
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if (error instanceof DataDirError) throw error;
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritable(dataDir, error);
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processAlive(owner)) {
        throw new DataDirLockedError(
          `The embedded database in ${dataDir} is in use by process ${owner}. ` +
            'Stop it first, or point DATA_DIR elsewhere (or use DATABASE_URL for several processes).',
        );
      }
      try {
        unlinkSync(path); // stale lock from a process that died
      } catch (unlinkError) {
        throw unwritable(dataDir, unlinkError);
      }
    }
  }
  throw new DataDirLockedError(`Could not lock ${dataDir}`);
}
