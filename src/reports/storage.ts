import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/**
 * Minimal object store. Kept to what an S3-compatible bucket can do too, so the local implementation can be
 * swapped out without touching callers. Keys look like `workspaces/<uuid>/reports/<uuid>.pdf`.
 */
export interface ObjectStorage {
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  exists(key: string): Promise<boolean>;
}

/**
 * Keys become file-system paths locally, so anything that could escape the root or mean different things on
 * different systems is refused outright rather than normalised: `..`/`.`/empty segments, absolute paths,
 * backslashes, NUL and other control characters.
 */
export function assertValidObjectKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 1024) {
    throw new Error('Invalid object key: empty or too long');
  }
  for (const ch of key) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) throw new Error('Invalid object key: control character');
  }
  if (key.includes('\\')) throw new Error('Invalid object key: backslash');
  if (key.startsWith('/')) throw new Error('Invalid object key: absolute path');
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw new Error('Invalid object key: empty, "." or ".." path segment');
    }
  }
}

export function createLocalObjectStorage(rootDir: string): ObjectStorage {
  const root = resolve(rootDir);

  const pathFor = (key: string): string => {
    assertValidObjectKey(key);
    const full = join(root, key);
    // Second line of defence: the resolved path must still sit inside the root.
    const rel = relative(root, full);
    if (rel === '' || rel.split(sep)[0] === '..' || isAbsolute(rel)) {
      throw new Error('Invalid object key: outside storage root');
    }
    return full;
  };

  const isMissing = (err: unknown): boolean => {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR/EISDIR: a key prefix is a file, or the key names a "directory" — neither is a stored object.
    return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
  };

  return {
    async put(key, bytes, _contentType) {
      // The local store does not keep the content type: the serving route knows what it serves.
      const target = pathFor(key);
      await mkdir(dirname(target), { recursive: true });
      // Write to a temp file in the same directory and rename over the target: readers see either the old
      // object or the complete new one, never a partial file. fsync so the rename never exposes empty data.
      const tmp = join(dirname(target), `.${randomBytes(8).toString('hex')}.tmp`);
      const handle = await open(tmp, 'wx', 0o640);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
        await handle.close();
        await rename(tmp, target);
      } catch (err) {
        await handle.close().catch(() => {});
        await unlink(tmp).catch(() => {});
        throw err;
      }
    },

    async get(key) {
      try {
        return await readFile(pathFor(key));
      } catch (err) {
        if (isMissing(err)) return null;
        throw err;
      }
    },

    async exists(key) {
      try {
        return (await stat(pathFor(key))).isFile();
      } catch (err) {
        if (isMissing(err)) return false;
        throw err;
      }
    },
  };
}
