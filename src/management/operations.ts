// The operator's actions on workspaces (management-api.md). Each change is one transaction that also writes
// its audit entry (decision 26). Used by the /admin API and by the first-start bootstrap.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { notFound, validationFailed } from '../contract/errors.js';
import { generateApiKey } from '../security/secrets.js';
import { recordAudit } from '../storage/audit.js';
import type { Db, Queryable } from '../storage/db.js';
import { ApiKey, User, Workspace } from './schemas.js';

/** The quota of a workspace created without one. */
export const DEFAULT_ASSESSMENT_QUOTA = 100;

export interface Operator {
  db: Db;
  allowInsecureWebhookUrls: boolean;
  requestId?: string;
  /** Called after a change that affects authentication (revocation, plan change). */
  onAuthChange?: () => void;
}

export const systemActor = (op: Operator, workspaceId: string) => ({
  workspaceId,
  actorType: 'system' as const,
  actorId: null,
  requestId: op.requestId ?? null,
});

/** An admin listing: the records' JSON under `data`, in the order of the rows. */
export const dataList = (rows: readonly { j: string }[]): string =>
  `{"data":[${rows.map((row) => row.j).join(',')}]}`;

export async function one(q: Queryable, sql: string, params: unknown[], what: string): Promise<string> {
  const [row] = await q.query<{ j: string }>(sql, params);
  if (!row) throw notFound(what);
  return row.j;
}

export const readWorkspace = (q: Queryable, id: string) =>
  one(
    q,
    `select ${Workspace.json('t', { pii: true })} as j from workspaces t where t.id = $1`,
    [id],
    'workspace',
  );

export async function listWorkspaces(q: Queryable): Promise<string> {
  const rows = await q.query<{ j: string }>(
    `select ${Workspace.json('t', { pii: true })} as j from workspaces t order by t.created_at desc, t.id desc`,
  );
  return dataList(rows);
}

export async function createWorkspace(
  op: Operator,
  input: { name: string; plan: string; assessment_quota?: number },
): Promise<string> {
  const id = randomUUID();
  return op.db.transaction(async (tx) => {
    await tx.query('insert into workspaces (id, name, plan, assessment_quota) values ($1, $2, $3, $4)', [
      id,
      input.name,
      input.plan,
      input.assessment_quota ?? DEFAULT_ASSESSMENT_QUOTA,
    ]);
    await recordAudit(tx, {
      ...systemActor(op, id),
      action: 'workspace.created',
      targetType: 'workspace',
      targetId: id,
      metadata: { plan: input.plan },
    });
    return readWorkspace(tx, id);
  });
}

export async function updateWorkspace(
  op: Operator,
  id: string,
  input: { name?: string; plan?: string; assessment_quota?: number },
): Promise<string> {
  const result = await op.db.transaction(async (tx) => {
    const rows = await tx.query(
      `update workspaces set name = coalesce($2, name), plan = coalesce($3, plan),
              assessment_quota = coalesce($4, assessment_quota), updated_at = now()
        where id = $1 returning id`,
      [id, input.name ?? null, input.plan ?? null, input.assessment_quota ?? null],
    );
    if (rows.length === 0) throw notFound('workspace');
    await recordAudit(tx, {
      ...systemActor(op, id),
      action: 'workspace.updated',
      targetType: 'workspace',
      targetId: id,
      // P72: the changed fields by name, and the new values of those that are not free text.
      metadata: { changes: Object.keys(input), plan: input.plan, assessment_quota: input.assessment_quota },
    });
    return readWorkspace(tx, id);
  });
  op.onAuthChange?.();
  return result;
}

export async function requireWorkspace(q: Queryable, id: string): Promise<void> {
  const rows = await q.query('select 1 from workspaces where id = $1', [id]);
  if (rows.length === 0) throw notFound('workspace');
}

export async function listUsers(q: Queryable, workspaceId: string): Promise<string> {
  await requireWorkspace(q, workspaceId);
  const rows = await q.query<{ j: string }>(
    `select ${User.json('t', { pii: true })} as j from users t where t.workspace_id = $1
      order by t.created_at desc, t.id desc`,
    [workspaceId],
  );
  return dataList(rows);
}

export async function createUser(
  op: Operator,
  workspaceId: string,
  input: { name: string; email: string },
): Promise<string> {
  const id = randomUUID();
  return op.db.transaction(async (tx) => {
    await requireWorkspace(tx, workspaceId);
    await tx.query('insert into users (workspace_id, id, name, email) values ($1, $2, $3, $4)', [
      workspaceId,
      id,
      input.name,
      input.email,
    ]);
    await recordAudit(tx, {
      ...systemActor(op, workspaceId),
      action: 'user.created',
      targetType: 'user',
      targetId: id,
    });
    return one(
      tx,
      `select ${User.json('t', { pii: true })} as j from users t where t.workspace_id = $1 and t.id = $2`,
      [workspaceId, id],
      'user',
    );
  });
}

const keyJson = ApiKey.json('t', { pii: true });

export async function createApiKey(
  op: Operator,
  workspaceId: string,
  input: { name: string; scopes: string[]; created_by: string; expires_at?: string | null },
): Promise<string> {
  const id = randomUUID();
  const key = generateApiKey();
  const json = await op.db.transaction(async (tx) => {
    await requireWorkspace(tx, workspaceId);
    const creator = await tx.query('select 1 from users where workspace_id = $1 and id = $2', [
      workspaceId,
      input.created_by,
    ]);
    if (creator.length === 0) throw validationFailed({ created_by: 'is not a user of this workspace' });
    await tx.query(
      `insert into api_keys (workspace_id, id, name, prefix, secret_hash, scopes, created_by, expires_at)
       values ($1, $2, $3, $4, $5, $6::text[], $7, $8::timestamptz)`,
      [
        workspaceId,
        id,
        input.name,
        key.prefix,
        key.hash,
        input.scopes,
        input.created_by,
        input.expires_at ?? null,
      ],
    );
    await recordAudit(tx, {
      ...systemActor(op, workspaceId),
      action: 'api_key.created',
      targetType: 'api_key',
      targetId: id,
      metadata: { scopes: input.scopes, created_by: input.created_by },
    });
    return one(
      tx,
      `select ${keyJson} as j from api_keys t where t.workspace_id = $1 and t.id = $2`,
      [workspaceId, id],
      'api key',
    );
  });
  // The secret appears in this response only.
  return `${json.slice(0, -1)},"secret":${JSON.stringify(key.secret)}}`;
}

export async function listApiKeys(q: Queryable, workspaceId: string): Promise<string> {
  await requireWorkspace(q, workspaceId);
  const rows = await q.query<{ j: string }>(
    `select ${keyJson} as j from api_keys t where t.workspace_id = $1 order by t.created_at desc, t.id desc`,
    [workspaceId],
  );
  return dataList(rows);
}

export async function revokeApiKey(op: Operator, keyId: string): Promise<string> {
  const json = await op.db.transaction(async (tx) => {
    const [row] = await tx.query<{ workspace_id: string }>(
      'update api_keys set revoked_at = coalesce(revoked_at, now()), updated_at = now() where id = $1 returning workspace_id',
      [keyId],
    );
    if (!row) throw notFound('api key');
    await recordAudit(tx, {
      ...systemActor(op, row.workspace_id),
      action: 'api_key.revoked',
      targetType: 'api_key',
      targetId: keyId,
    });
    return one(tx, `select ${keyJson} as j from api_keys t where t.id = $1`, [keyId], 'api key');
  });
  op.onAuthChange?.();
  return json;
}
