// The only way resource code reaches tenant data. Tenant SQL names the caller's workspace with the token
// `$ws` and numbers its own parameters from $1; a query without `$ws` is refused, so a query that forgets
// its workspace cannot be written. For requests authenticated from the key cache, `$ws` becomes
// `live_workspace(key, workspace)`, which is null once the key is revoked or expired or the workspace is
// downgraded: stale credentials see no rows, and an empty answer is confirmed against the database before it
// is trusted. Cached authentication therefore costs no extra round trip and can never outlive a revocation.
import type { Queryable } from './db.js';

export interface TenantGuard {
  keyId: string;
  /** Re-checks the key; throws the right 401/403 when it is no longer valid. */
  confirm(): Promise<void>;
}

const rewritten = new Map<string, string>();

function rewrite(sql: string, guarded: boolean): string {
  const cacheKey = `${guarded ? 'g' : 'v'}:${sql}`;
  let text = rewritten.get(cacheKey);
  if (text === undefined) {
    if (!sql.includes('$ws')) throw new Error(`Tenant query without $ws: ${sql.slice(0, 80)}`);
    const shift = guarded ? 2 : 1;
    const workspace = guarded ? '(select live_workspace($1::uuid, $2::uuid))' : '$1::uuid';
    text = sql
      .replace(/\$(\d+)/g, (_match, n: string) => `$${Number(n) + shift}`)
      .replaceAll('$ws', workspace);
    rewritten.set(cacheKey, text);
  }
  return text;
}

export class TenantDb implements Queryable {
  private confirmed: boolean;

  constructor(
    private readonly db: Queryable,
    readonly workspaceId: string,
    private readonly guard: TenantGuard | null = null,
  ) {
    this.confirmed = guard === null;
  }

  async query<R = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const guarded = this.guard !== null && !this.confirmed;
    const prefix = guarded ? [this.guard?.keyId, this.workspaceId] : [this.workspaceId];
    const rows = await this.db.query<R>(rewrite(sql, guarded), [...prefix, ...params]);
    if (guarded && rows.length === 0) await this.confirm();
    return rows;
  }

  /** Confirms the credentials once; afterwards queries bind the workspace directly. */
  async confirm(): Promise<void> {
    if (this.confirmed || !this.guard) return;
    await this.guard.confirm();
    this.confirmed = true;
  }

  /** The same workspace inside a transaction (credentials are confirmed before any write). */
  within(tx: Queryable): TenantDb {
    return new TenantDb(tx, this.workspaceId);
  }
}
