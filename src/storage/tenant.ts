// The only way resource code reaches tenant data. Tenant SQL names the caller's workspace with the token
// `$ws` and numbers its own parameters from $1; a query that never names `$ws` is refused. That check is
// textual: it cannot tell that every table of a join is filtered by the workspace. What stops a row of another
// workspace from being joined is the schema (composite `(workspace_id, id)` foreign keys) and the tenancy
// suite (test/cross-cutting/tenancy.test.ts), which calls every route with the ids of two other workspaces. For requests authenticated from the key cache, `$ws` becomes
// `live_workspace(key, workspace)`, which is empty once the key is revoked or expired or the workspace is
// downgraded: stale credentials see no rows, and an empty answer is confirmed against the database before it
// is trusted. Cached authentication therefore costs no extra round trip and can never outlive a revocation;
// PostgreSQL inlines the function (two primary-key probes, planned with the prepared statement).
import pg from 'pg';
import type { Engine } from '../schema/resource.js';
import type { CopyOut, Queryable } from './db.js';

export interface TenantGuard {
  keyId: string;
  /** Re-checks the key (through `via` when given); throws the right 401/403 when it is no longer valid. */
  confirm(via?: Queryable): Promise<void>;
}

const rewritten = new Map<string, string>();

function rewrite(sql: string, guarded: boolean): string {
  const cacheKey = `${guarded ? 'g' : 'v'}:${sql}`;
  let text = rewritten.get(cacheKey);
  if (text === undefined) {
    if (!sql.includes('$ws')) throw new Error(`Tenant query without $ws: ${sql.slice(0, 80)}`);
    const shift = guarded ? 2 : 1;
    const workspace = guarded ? '(select workspace_id from live_workspace($1::uuid, $2::uuid))' : '$1::uuid';
    text = sql
      .replace(/\$(\d+)/g, (_match, n: string) => `$${Number(n) + shift}`)
      .replaceAll('$ws', workspace);
    rewritten.set(cacheKey, text);
  }
  return text;
}

export class TenantDb implements Queryable {
  private confirmed: boolean;
  private confirmation: Promise<void> | null = null;
  readonly engine: Engine;

  /** The workspace of an authenticated API key: made by the request pipeline only (http/route.ts). */
  static forKey(db: Queryable, workspaceId: string, guard: TenantGuard | null): TenantDb {
    return new TenantDb(db, workspaceId, guard);
  }

  /** A workspace the operator named (the management API's lifecycle actions), on the pool or a transaction. */
  static forOperator(q: Queryable, workspaceId: string): TenantDb {
    return new TenantDb(q, workspaceId, null);
  }

  private constructor(
    private readonly db: Queryable,
    readonly workspaceId: string,
    private readonly guard: TenantGuard | null,
  ) {
    this.confirmed = guard === null;
    this.engine = db.engine;
  }

  query<R = Record<string, unknown>>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    return this.run(sql, params, (text, values) => this.db.query<R>(text, values));
  }

  queryArrays(sql: string, params: readonly unknown[] = []): Promise<unknown[][]> {
    return this.run(sql, params, (text, values) => this.db.queryArrays(text, values));
  }

  /**
   * A COPY of the workspace's rows (a whole-collection export on a PostgreSQL server, inside its snapshot
   * transaction). COPY takes no parameters, so each value goes into the statement as a literal quoted by the
   * driver's `escapeLiteral`: an untyped literal, which PostgreSQL types from its context exactly as it types a
   * parameter. The credentials are confirmed beforehand (the export does), so `$ws` is the workspace itself.
   */
  copyOut(sql: string, params: readonly unknown[] = []): CopyOut {
    if (!this.db.copyOut) throw new Error('COPY runs only in a transaction on a PostgreSQL server');
    if (!this.confirmed) throw new Error('COPY before the credentials were confirmed');
    const values = [this.workspaceId, ...params];
    const literal = (n: string) => {
      const value = values[Number(n) - 1];
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
        throw new Error(`COPY parameter $${n} is not a scalar`);
      return pg.escapeLiteral(String(value));
    };
    return this.db.copyOut(rewrite(sql, false).replace(/\$(\d+)/g, (_match, n: string) => literal(n)));
  }

  private async run<T>(
    sql: string,
    params: readonly unknown[],
    execute: (text: string, values: unknown[]) => Promise<T[]>,
  ): Promise<T[]> {
    const guarded = this.guard !== null && !this.confirmed;
    const prefix = guarded ? [this.guard?.keyId, this.workspaceId] : [this.workspaceId];
    const rows = await execute(rewrite(sql, guarded), [...prefix, ...params]);
    if (guarded && rows.length === 0) await this.confirm();
    return rows;
  }

  /**
   * Confirms the credentials once (a refusal too: asked again, it answers the same without re-reading the key
   * or giving its count back twice); afterwards queries bind the workspace directly.
   */
  async confirm(via?: Queryable): Promise<void> {
    if (this.confirmed || !this.guard) return;
    this.confirmation ??= this.guard.confirm(via);
    await this.confirmation;
    this.confirmed = true;
  }

  /**
   * Confirms the credentials with a statement of the transaction `tx` (it travels with the transaction's first
   * statements); only when the key no longer looks live is it re-read to tell 401 from 403.
   */
  async confirmWithin(tx: Queryable): Promise<void> {
    if (this.confirmed || !this.guard) return;
    const live = await tx.query('select 1 from live_workspace($1::uuid, $2::uuid)', [
      this.guard.keyId,
      this.workspaceId,
    ]);
    // Re-read on the transaction's own connection: a write holding one must never wait for another.
    if (live.length > 0) this.confirmed = true;
    else await this.confirm(tx);
  }

  /** The same workspace inside a transaction (writes confirm the credentials with `confirmWithin`). */
  within(tx: Queryable): TenantDb {
    return new TenantDb(tx, this.workspaceId, null);
  }
}
