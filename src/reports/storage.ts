// Report PDFs, stored in the database (migrations 0011 and 0015), so that any process of a fleet serves any
// signed URL, and streamed out slice by slice (docs/decisions.md P80).
import { readdir, readFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { Readable } from 'node:stream';
import type { Queryable } from '../storage/db.js';

/** A stored object being read: its size and type at once, its bytes as the stream is consumed. */
export interface StoredObject {
  contentType: string;
  size: number;
  body: Readable;
}

/**
 * Minimal object store, kept to what an S3-compatible bucket can do too. Keys look like
 * `workspaces/<uuid>/reports/<uuid>.pdf`.
 */
export interface ObjectStorage {
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** The object, or null when there is none. */
  open(key: string): Promise<StoredObject | null>;
}

/** Bytes per read from the database: a rendered report is one slice (the 300-gap test report is 44 KB). */
export const OBJECT_SLICE_BYTES = 256 * 1024;

/** The stream of an object ended early: it was replaced or deleted while being read. */
export class ObjectChangedError extends Error {
  constructor(key: string) {
    super(`Stored object ${key} was replaced or deleted while being read`);
  }
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

// pg answers a Buffer, PGlite a Uint8Array.
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * The stored objects in the database: one row per key and version. An object is read slice by slice, each a
 * statement of its own (no transaction held open while a client downloads, which on the embedded store would
 * stall every other query): the first statement answers the size, the type and the first slice, and each later
 * one the next slice of the same version, or nothing once the key was written again, which ends the stream
 * with an error rather than mix two PDFs.
 */
export function createDatabaseObjectStorage(
  db: Queryable,
  { sliceBytes = OBJECT_SLICE_BYTES }: { sliceBytes?: number } = {},
): ObjectStorage {
  return {
    async put(key, bytes, contentType) {
      await db.query(
        `insert into stored_objects (workspace_id, key, content_type, content) values ($1, $2, $3, $4)
         on conflict (workspace_id, key) do update
           set content_type = excluded.content_type, content = excluded.content,
               version = stored_objects.version + 1, updated_at = now()`,
        [workspaceOf(key), key, contentType, bytes],
      );
    },
    async exists(key) {
      const found = await db.query('select 1 from stored_objects where workspace_id = $1 and key = $2', [
        workspaceOf(key),
        key,
      ]);
      return found.length > 0;
    },
    async open(key) {
      const workspaceId = workspaceOf(key);
      const [head] = await db.query<{
        content_type: string;
        size: number;
        version: number;
        slice: Uint8Array;
      }>(
        `select content_type, length(content) as size, version, substring(content from 1 for $3) as slice
           from stored_objects where workspace_id = $1 and key = $2`,
        [workspaceId, key, sliceBytes],
      );
      if (!head) return null;
      const { size, version } = head;
      const first = asBuffer(head.slice);
      async function* slices() {
        yield first;
        for (let offset = sliceBytes; offset < size; offset += sliceBytes) {
          const [next] = await db.query<{ slice: Uint8Array }>(
            `select substring(content from $3 for $4) as slice
               from stored_objects where workspace_id = $1 and key = $2 and version = $5`,
            [workspaceId, key, offset + 1, sliceBytes, version],
          );
          if (!next) throw new ObjectChangedError(key);
          yield asBuffer(next.slice);
        }
      }
      return { contentType: head.content_type, size, body: Readable.from(slices(), { objectMode: false }) };
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
    if (await objects.exists(key)) continue;
    await objects.put(key, await readFile(join(dir, relativePath)), 'application/pdf');
    copied++;
  }
  return copied;
}
