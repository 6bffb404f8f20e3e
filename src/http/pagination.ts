// Keyset pagination with opaque, tamper-evident cursors bound to the workspace, the endpoint and its filters.
// A cursor holds the sort key of the last row served (instants as text with microseconds, so no row is ever
// skipped or repeated) and an HMAC; any other cursor is a 400, never rows.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { invalidRequest } from '../contract/errors.js';
import type { FeatureStatus } from '../schema/collection.js';
import { constantTimeEqual } from '../security/secrets.js';

export class CursorCodec {
  // A key object made once: an HMAC keyed with a Buffer imports the key on every call (5x the time).
  private readonly key: KeyObject;
  constructor(secret: Buffer) {
    this.key = createSecretKey(secret);
  }

  private mac(binding: string, payload: string): Buffer {
    return createHmac('sha256', this.key)
      .update(binding)
      .update('\n')
      .update(payload)
      .digest()
      .subarray(0, 16);
  }

  encode(binding: string, values: readonly (string | number)[]): string {
    const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
    return `${payload}.${this.mac(binding, payload).toString('base64url')}`;
  }

  decode(binding: string, cursor: string): (string | number)[] {
    const [payload, signature, extra] = cursor.split('.');
    if (!payload || !signature || extra !== undefined) throw badCursor();
    const given = Buffer.from(signature, 'base64url');
    // Canonical spelling only (base64url can carry ignored padding bits), so one cursor has one form.
    if (given.toString('base64url') !== signature || !constantTimeEqual(given, this.mac(binding, payload)))
      throw badCursor();
    try {
      const values = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (Array.isArray(values)) return values;
    } catch {
      // fall through: a cursor we signed always parses, so this is unreachable short of a key leak
    }
    throw badCursor();
  }
}

export const badCursor = () =>
  invalidRequest('The cursor is not valid for this endpoint and these filters.', { parameter: 'cursor' });

/** The canonical form of the filters a cursor is bound to (limit and cursor excluded). */
export function cursorBinding(workspaceId: string, routeId: string, query: Record<string, unknown>): string {
  const filters = Object.keys(query)
    .filter((name) => name !== 'limit' && name !== 'cursor')
    .sort()
    .map((name) => `${name}=${JSON.stringify(query[name])}`)
    .join('&');
  return `${workspaceId}|${routeId}|${filters}`;
}

export interface PageMeta {
  hasMore: boolean;
  nextCursor: string | null;
  featureStatus?: FeatureStatus;
  message?: string;
}

/**
 * A collection envelope around items already serialized to JSON, as its UTF-8 bytes. Each item is encoded on its
 * own, so no page-sized string is ever built, flattened and then encoded again on the socket (P236: that was a
 * third of a list page's Node time). A page that surely fits is encoded into one reused buffer and copied out;
 * a larger one (a limit of 200, an assessment's gaps) is measured first and encoded into its own.
 */
export function renderPage(items: readonly string[], meta: PageMeta, extra = ''): Buffer {
  const status = meta.featureStatus ?? 'available';
  const message = meta.message === undefined ? '' : `,"message":${JSON.stringify(meta.message)}`;
  const tail = `],"meta":{"has_more":${meta.hasMore},"next_cursor":${
    meta.nextCursor === null ? 'null' : JSON.stringify(meta.nextCursor)
  },"feature_status":"${status}"${message}}${extra}}`;
  let units = PAGE_HEAD.length + items.length + tail.length;
  for (const item of items) units += item.length;
  // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4).
  const reused = 3 * units <= PAGE_BUFFER.length;
  const out = reused ? PAGE_BUFFER : Buffer.allocUnsafe(utf8Length(items, tail));
  let at = out.write(PAGE_HEAD, 0, 'latin1');
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[at++] = COMMA;
    at += out.write(items[i] as string, at);
  }
  at += out.write(tail, at);
  // Only the bytes written: never a byte of what the reused buffer, or fresh unzeroed memory, held before.
  const page = out.subarray(0, at);
  return reused ? Buffer.from(page) : page;
}

const PAGE_HEAD = '{"data":[';
const COMMA = 0x2c;
/** Large enough for a page of 50 typical records (about 40 KB) at the worst case of 3 bytes a code unit. */
const PAGE_BUFFER = Buffer.allocUnsafeSlow(256 * 1024);

function utf8Length(items: readonly string[], tail: string): number {
  let bytes = PAGE_HEAD.length + Math.max(0, items.length - 1) + Buffer.byteLength(tail);
  for (const item of items) bytes += Buffer.byteLength(item);
  return bytes;
}

export const USD = ',"currency":"USD"';

/** Parameters of one SQL statement: `bind` appends a value and gives its placeholder (`$n`). */
export function sqlParameters(values: unknown[] = []): {
  values: unknown[];
  bind: (value: unknown) => string;
} {
  return {
    values,
    bind: (value) => {
      values.push(value);
      return `$${values.length}`;
    },
  };
}

/**
 * The SQL conditions of a list's filters that the query sets, each predicate over alias `t` with its value bound
 * once through `bind` (every `?` of a predicate stands for that one value, P166): a page's and an export's.
 */
export function filterConditions(
  filters: Record<string, string>,
  query: Record<string, unknown>,
  bind: (value: unknown) => string,
): string[] {
  const conditions: string[] = [];
  for (const [name, predicate] of Object.entries(filters)) {
    const value = query[name];
    if (value !== undefined) conditions.push(predicate.replaceAll('?', bind(value)));
  }
  return conditions;
}
