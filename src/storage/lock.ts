// PGlite lets a second process open the same data directory and then silently loses writes.
// The first process holds a lock file with its pid; a second one gets a clear error instead.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class DataDirLockedError extends Error {}

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
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'tprm.lock');
  if (heldHere.has(path))
    throw new DataDirLockedError(`The embedded database in ${dataDir} is already open in this process.`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
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
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && processAlive(owner)) {
        throw new DataDirLockedError(
          `The embedded database in ${dataDir} is in use by process ${owner}. ` +
            'Stop it first, or point DATA_DIR elsewhere (or use DATABASE_URL for several processes).',
        );
      }
      unlinkSync(path); // stale lock from a process that died
    }
  }
  throw new DataDirLockedError(`Could not lock ${dataDir}`);
}
