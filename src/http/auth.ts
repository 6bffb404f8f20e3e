// API key authentication. The secret's SHA-256 is looked up by index and compared in constant time; unknown,
// malformed, revoked and expired keys get the same 401. Valid keys are cached for a short while so that the
// hot path needs no extra round trip: requests carry the cache's answer into SQL (storage/tenant.ts), which
// refuses stale credentials, and re-read the key before trusting an empty answer or an error (http/route.ts).

import { ApiError } from '../contract/errors.js';
import { constantTimeEqual, looksLikeApiKey, sha256 } from '../security/secrets.js';
import type { Queryable } from '../storage/db.js';

export interface KeyRecord {
  keyId: string;
  workspaceId: string;
  scopes: ReadonlySet<string>;
  createdBy: string;
  plan: string;
  expiresAt: number | null;
  revoked: boolean;
}

interface KeyRow {
  id: string;
  workspace_id: string;
  secret_hash: Uint8Array;
  scopes: string[];
  created_by: string;
  expires_at: string | null;
  revoked: boolean;
  plan: string;
}

/** The answer to a missing or wrong admin token on the management listener. */
export const invalidAdminToken = () =>
  new ApiError('invalid_api_key', 'The admin token is missing or wrong.');

export const invalidApiKey = () =>
  new ApiError('invalid_api_key', 'The API key is missing, unknown, revoked or expired.');

export class Authenticator {
  private readonly cache = new Map<string, { record: KeyRecord; until: number }>();
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(
    private readonly db: Queryable,
    private readonly options: { cacheTtlMs: number; now?: () => number } = { cacheTtlMs: 30_000 },
  ) {}

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  /**
   * The presented bearer token, or null when the Authorization header is absent, repeated or not a
   * well-formed Bearer credential. Read from the raw header lines: Node keeps only the first of repeated
   * Authorization headers, and a proxy in front may keep another, so two headers name no key at all.
   */
  static bearer(rawHeaders: readonly string[]): string | null {
    const values = [];
    for (let i = 0; i < rawHeaders.length; i += 2)
      if (rawHeaders[i]?.toLowerCase() === 'authorization') values.push(rawHeaders[i + 1] ?? '');
    if (values.length !== 1) return null;
    const match = /^Bearer ([\x21-\x7e]+)$/.exec(values[0] as string);
    return match?.[1] ?? null;
  }

  /**
   * The key's record when it is currently valid (not revoked, not expired), else null.
   * `fresh` skips the cache (confirmation of a cached key); `via` is the connection to read through.
   */
  async lookup(
    token: string | null,
    fresh: boolean,
    via: Queryable = this.db,
  ): Promise<{ record: KeyRecord; cached: boolean } | null> {
    if (!token || !looksLikeApiKey(token)) return null;
    const hash = sha256(token);
    const cacheKey = hash.toString('base64');
    const now = this.now();
    const hit = fresh ? undefined : this.cache.get(cacheKey);
    if (hit && hit.until > now) {
      return this.valid(hit.record, now) ? { record: hit.record, cached: true } : null;
    }
    const rows = await via.query<KeyRow>(
      `select k.id, k.workspace_id, k.secret_hash, k.scopes, k.created_by, iso(k.expires_at) as expires_at,
              k.revoked_at is not null as revoked, w.plan
         from api_keys k join workspaces w on w.id = k.workspace_id
        where k.secret_hash = $1`,
      [hash],
    );
    const row = rows[0];
    if (!row || !constantTimeEqual(Buffer.from(row.secret_hash), hash)) {
      this.cache.delete(cacheKey);
      return null;
    }
    const record: KeyRecord = {
      keyId: row.id,
      workspaceId: row.workspace_id,
      scopes: new Set(row.scopes),
      createdBy: row.created_by,
      plan: row.plan,
      expiresAt: row.expires_at ? Date.parse(row.expires_at) : null,
      revoked: row.revoked,
    };
    this.cache.set(cacheKey, { record, until: now + this.options.cacheTtlMs });
    this.touch(record.keyId, now);
    return this.valid(record, now) ? { record, cached: false } : null;
  }

  private valid(record: KeyRecord, now: number): boolean {
    return !record.revoked && (record.expiresAt === null || record.expiresAt > now);
  }

  /** Forgets cached keys (after a revocation or plan change in this process). */
  invalidate(): void {
    this.cache.clear();
  }

  // last_used_at is informative: written at most once a minute per key, off the request path.
  private touch(keyId: string, now: number): void {
    if ((this.lastUsedWritten.get(keyId) ?? 0) > now - 60_000) return;
    this.lastUsedWritten.set(keyId, now);
    this.db
      .query('update api_keys set last_used_at = now() where id = $1', [keyId])
      .catch(() => this.lastUsedWritten.delete(keyId));
  }
}
