// What the operator's handlers reach the database through (the management listener, the first start's demo
// workspace): a workspace's data to read, and one unit of work per change (unit-of-work.ts), so that every
// operator write commits with its audit entry and its events, attributed to one actor. The pool itself is not
// handed out. Records the operator names by id alone are located here first: tenant tables are keyed by
// (workspace_id, id), and an import may give records of two workspaces the same id (the seed generator is
// deterministic); the request must then name the workspace.
import { ambiguousId, notFound } from '../contract/errors.js';
import type { Db, Queryable } from './db.js';
import { TenantDb } from './tenant.js';
import { type Actor, SYSTEM_ACTOR, type UnitOfWork, unitOfWork } from './unit-of-work.js';

/** Tables whose records the operator names by id alone. */
export type LocatableTable =
  | 'assessments'
  | 'reports'
  | 'assets'
  | 'action_plan_items'
  | 'api_keys'
  | 'webhook_endpoints'
  | 'webhook_deliveries'
  | 'sinks';

/** A record named by id alone, standing for the workspace that holds it. */
export interface Locator {
  table: LocatableTable;
  id: string;
  /** What the record is called in a 404 or a 409 (`assessment`, `webhook endpoint`). */
  what: string;
  /** The workspace the request names, for an id several workspaces hold. */
  workspaceId?: string;
  /** A user: of the workspaces holding the id, the one this user belongs to, and no 409 when several do. */
  member?: string;
}

/** A workspace by its id, or by a record it holds. */
export type WorkspaceRef = string | Locator;

export interface OperatorStore {
  /** The workspace's id: 404 when there is no such workspace or record, 409 `ambiguous_id` (see Locator). */
  locate(ref: WorkspaceRef): Promise<string>;
  /** A workspace's data to read, outside any transaction (located as by `locate`). */
  read(ref: WorkspaceRef): Promise<TenantDb>;
  /**
   * One change to one workspace: a transaction in which the workspace is located, and its unit of work,
   * attributed to `actor` (the service itself unless the operation names a user).
   */
  write<T>(ref: WorkspaceRef, work: (unit: UnitOfWork) => Promise<T>, actor?: Actor): Promise<T>;
  /** The change that makes workspace `id`: its work inserts the workspace's row before anything else. */
  create<T>(id: string, work: (unit: UnitOfWork) => Promise<T>): Promise<T>;
  /** Every workspace, newest first, each as the JSON that `json` makes of its row `t`. */
  listWorkspaces(json: string): Promise<string[]>;
}

async function locate(q: Queryable, ref: WorkspaceRef): Promise<string> {
  if (typeof ref === 'string') {
    const rows = await q.query('select 1 from workspaces where id = $1', [ref]);
    if (rows.length === 0) throw notFound('workspace');
    return ref;
  }
  const rows = await q.query<{ workspace_id: string }>(
    ref.member === undefined
      ? `select workspace_id from ${ref.table} where id = $1 and ($2::uuid is null or workspace_id = $2) limit 2`
      : `select t.workspace_id from ${ref.table} t
          where t.id = $1 and ($2::uuid is null or t.workspace_id = $2)
          order by exists (select 1 from users u where u.workspace_id = t.workspace_id and u.id = $3) desc
          limit 1`,
    ref.member === undefined
      ? [ref.id, ref.workspaceId ?? null]
      : [ref.id, ref.workspaceId ?? null, ref.member],
  );
  const [first, second] = rows;
  if (!first) throw notFound(ref.what);
  if (second) throw ambiguousId(ref.what);
  return first.workspace_id;
}

/** The store of one request (`requestId` goes into each audit entry; null for the service's own work). */
export function operatorStore(db: Db, requestId: string | null): OperatorStore {
  return {
    locate: (ref) => locate(db, ref),
    read: async (ref) => TenantDb.forOperator(db, await locate(db, ref)),
    write: (ref, work, actor = SYSTEM_ACTOR) =>
      db.transaction(async (tx) => work(unitOfWork(tx, await locate(tx, ref), actor, requestId))),
    create: (id, work) => db.transaction((tx) => work(unitOfWork(tx, id, SYSTEM_ACTOR, requestId))),
    listWorkspaces: async (json) => {
      const rows = await db.query<{ j: string }>(
        `select ${json} as j from workspaces t order by t.created_at desc, t.id desc`,
      );
      return rows.map((row) => row.j);
    },
  };
}
