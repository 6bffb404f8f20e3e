// Report PDFs, stored in the database (migration 0011), so that any process of a fleet serves any signed URL.
import { readdir, readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { Queryable } from '../storage/db.js';

/**
 * Minimal object store, kept to what an S3-compatible bucket can do too. Keys look like
 * `workspaces/<uuid>/reports/<uuid>.pdf`.
 */
export interface ObjectStorage {
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer | null>;
}

/**
 * Keys stay portable (to a bucket, or to file paths in an export): anything that could escape a root or mean
 * different things on different systems is refused outright rather than normalised: `..`/`.`/empty segments,
 * absolute paths, backslashes, NUL and other control characters.
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

/** The workspace an object belongs to: its key starts with `workspaces/<uuid>/`. */
function workspaceOf(key: string): string {
  assertValidObjectKey(key);
  const workspaceId = /^workspaces\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\//.exec(
    key,
  )?.[1];
  if (!workspaceId) throw new Error('Invalid object key: not under workspaces/<id>/');
  return workspaceId;
}

/** The stored objects in the database: one row per key, written and read whole in one statement each. */
export function createDatabaseObjectStorage(db: Queryable): ObjectStorage {
  return {
    async put(key, bytes, contentType) {
      await db.query(
        `insert into stored_objects (workspace_id, key, content_type, content) values ($1, $2, $3, $4)
         on conflict (workspace_id, key) do update
           set content_type = excluded.content_type, content = excluded.content, updated_at = now()`,
        [workspaceOf(key), key, contentType, bytes],
      );
    },
    async get(key) {
      const [row] = await db.query<{ content: Uint8Array }>(
        'select content from stored_objects where workspace_id = $1 and key = $2',
        [workspaceOf(key), key],
      );
      // pg answers a Buffer, PGlite a Uint8Array.
      return row ? Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength) : null;
    },
  };
}

/**
 * PDFs that an earlier version stored as files under `dir` (DATA_DIR/objects), copied into the database once:
 * a key already stored there is left alone. Returns how many were copied; the files stay where they were.
 */
export async function importLocalObjects(dir: string, objects: ObjectStorage): Promise<number> {
  let entries: string[];
  try {
    entries = await readdir(dir, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let copied = 0;
  for (const relativePath of entries) {
    const key = relativePath.split(sep).join('/');
    if (!key.endsWith('.pdf') || key.split('/').some((segment) => segment.startsWith('.'))) continue;
    if (await objects.get(key)) continue;
    await objects.put(key, await readFile(join(dir, relativePath)), 'application/pdf');
    copied++;
  }
  return copied;
}
