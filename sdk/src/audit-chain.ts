// Verifying the audit trail's hash chain from the public feed (GET /audit-logs, scope audit:read). Each entry's
// `hash` is SHA-256 over its canonical text, which includes `previous_hash`, the hash of the workspace's entry
// before it in feed order. The service computes it in the database; this is an independent implementation of
// the same encoding, from the JSON the API serves (the encoding: docs/operations.md "Audit verification").
import { createHash } from 'node:crypto';
import type { Schemas } from './types.js';

export type AuditLogEntry = Schemas['AuditLogEntry'];

/** The fields the hash covers: every field of an entry but `hash` itself, in code point order. */
const HASHED_FIELDS = [
  'action',
  'actor_id',
  'actor_type',
  'created_at',
  'id',
  'metadata',
  'occurred_at',
  'previous_hash',
  'request_id',
  'target_id',
  'target_type',
] as const satisfies readonly (keyof AuditLogEntry)[];

export type HashedAuditEntry = Pick<AuditLogEntry, (typeof HASHED_FIELDS)[number]>;

/** A number as a decimal without exponent: what PostgreSQL writes for the stored value (`1e+21` → `1` + 21 zeros). */
function plainNumber(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError(`${value} is not a JSON number`);
  const text = String(value);
  const e = text.indexOf('e');
  if (e < 0) return text;
  const negative = text.startsWith('-');
  const mantissa = text.slice(negative ? 1 : 0, e);
  const point = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const at = (point < 0 ? mantissa.length : point) + Number(text.slice(e + 1));
  const plain =
    at <= 0
      ? `0.${'0'.repeat(-at)}${digits}`
      : at >= digits.length
        ? `${digits}${'0'.repeat(at - digits.length)}`
        : `${digits.slice(0, at)}.${digits.slice(at)}`;
  return negative ? `-${plain}` : plain;
}

/**
 * Code point order, which is the order of the keys' UTF-8 bytes (not JavaScript's UTF-16 `sort()`). The two
 * differ only where a surrogate, half of a code point above U+FFFF, meets a code unit from U+E000 up: the
 * surrogate's code point is the greater.
 */
function byCodePoint(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

/**
 * The audit chain's canonical JSON: keys in code point order at every level, no whitespace, JSON.stringify's
 * string escapes, numbers as PostgreSQL writes them. The service stores an entry's metadata in this text and
 * hashes it, so it must match byte for byte what any verifier computes from the served JSON. (The request
 * fingerprint of Idempotency-Key is another rule, for another purpose: src/http/idempotency.ts.)
 */
export function auditCanonicalJson(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(auditCanonicalJson).join(',')}]`;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return plainNumber(value);
    case 'object': {
      const object = value as Record<string, unknown>;
      const members = Object.keys(object)
        .sort(byCodePoint)
        .map((key) => `${JSON.stringify(key)}:${auditCanonicalJson(object[key])}`);
      return `{${members.join(',')}}`;
    }
  }
  throw new TypeError(`a ${typeof value} is not a JSON value`);
}

/** @deprecated The former name of {@link auditCanonicalJson}, kept for existing callers. */
export const canonicalJson = auditCanonicalJson;

/** The text an entry's `hash` covers: the canonical JSON of every field but `hash`. */
export function auditEntryCanonicalText(entry: HashedAuditEntry): string {
  // HASHED_FIELDS is in code point order already: the object's members are written in that order.
  const members = HASHED_FIELDS.map((name) => {
    if (entry[name] === undefined) throw new TypeError(`the audit entry has no ${name}`);
    return `"${name}":${auditCanonicalJson(entry[name])}`;
  });
  return `{${members.join(',')}}`;
}

/** The `hash` an entry should carry: lowercase hex SHA-256 of the UTF-8 of its canonical text. */
export function auditEntryHash(entry: HashedAuditEntry): string {
  return createHash('sha256').update(auditEntryCanonicalText(entry), 'utf8').digest('hex');
}

export interface AuditChainBreak {
  id: string;
  /** 1-based position of the entry among those verified. */
  position: number;
  /**
   * `previous_hash_mismatch`: the entry does not name the hash of the entry before it (an entry was deleted,
   * inserted or reordered); `hash_mismatch`: its content no longer gives its hash (it was altered).
   */
  problem: 'previous_hash_mismatch' | 'hash_mismatch';
  expected: string | null;
  stored: string | null;
}

export interface AuditChainVerification {
  valid: boolean;
  /** Entries verified: all of them, or up to and including the first broken one. */
  entriesChecked: number;
  /** The last entry's hash when valid (store it to continue later with `previousHash`); else null. */
  headHash: string | null;
  firstBroken: AuditChainBreak | null;
}

export interface VerifyAuditChainOptions {
  /**
   * The hash of the entry before the first one given. Default null: the entries start at the workspace's
   * first entry. To continue from a point already verified, pass the `headHash` stored then.
   */
  previousHash?: string | null;
}

/**
 * Verifies consecutive feed entries, oldest first: an array, or the SDK's auto-paginated list
 * (`client.auditLogs.list()`). Reports the first broken link; reads no further once one is found.
 */
export async function verifyAuditChain(
  entries: Iterable<HashedAuditEntry & { hash: string }> | AsyncIterable<HashedAuditEntry & { hash: string }>,
  options: VerifyAuditChainOptions = {},
): Promise<AuditChainVerification> {
  let expectedPrevious = options.previousHash ?? null;
  let position = 0;
  const broken = (
    entry: { id: string },
    problem: AuditChainBreak['problem'],
    expected: string | null,
    stored: string | null,
  ) => ({
    valid: false,
    entriesChecked: position,
    headHash: null,
    firstBroken: { id: entry.id, position, problem, expected, stored },
  });
  for await (const entry of entries) {
    position += 1;
    if (entry.previous_hash !== expectedPrevious)
      return broken(entry, 'previous_hash_mismatch', expectedPrevious, entry.previous_hash);
    const computed = auditEntryHash(entry);
    if (computed !== entry.hash) return broken(entry, 'hash_mismatch', computed, entry.hash);
    expectedPrevious = entry.hash;
  }
  return { valid: true, entriesChecked: position, headHash: expectedPrevious, firstBroken: null };
}
