// The operator's actions on workspaces, their users and API keys (management-api.md). Each change is one unit
// of work that also writes its audit entry (decision 26). Used by the /admin API (handlers.ts) and by the
// first-start bootstrap.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { notFound, validationFailed } from '../contract/errors.js';
import { generateApiKey } from '../security/secrets.js';
import type { OperatorStore } from '../storage/operator.js';
import type { TenantDb } from '../storage/tenant.js';
import { ApiKey, DEFAULT_ASSESSMENT_QUOTA, User, Workspace } from './schemas.js';

/** An admin listing: the records' JSON under `data`, in the order of the rows. */
const dataList = (rows: readonly string[]): string => `{"data":[${rows.join(',')}]}`;

async function one(tenant: TenantDb, sql: string, params: unknown[], what: string): Promise<string> {
  const [row] = await tenant.query<{ j: string }>(sql, params);
  if (!row) throw notFound(what);
  return row.j;
}

const workspaceJson = Workspace.json('t', { pii: true });
const userJson = User.json('t', { pii: true });
const keyJson = ApiKey.json('t', { pii: true });

const workspaceRow = (tenant: TenantDb) =>
  one(tenant, `select ${workspaceJson} as j from workspaces t where t.id = $ws`, [], 'workspace');

export const readWorkspace = async (store: OperatorStore, id: string) => workspaceRow(await store.read(id));

export const listWorkspaces = async (store: OperatorStore) =>
  dataList(await store.listWorkspaces(workspaceJson));

export async function createWorkspace(
  store: OperatorStore,
  input: { name: string; plan: string; assessment_quota?: number },
): Promise<string> {
  return store.create(randomUUID(), async ({ tenant, audit }) => {
    await tenant.query('insert into workspaces (id, name, plan, assessment_quota) values ($ws, $1, $2, $3)', [
      input.name,
      input.plan,
      input.assessment_quota ?? DEFAULT_ASSESSMENT_QUOTA,
    ]);
    await audit('workspace.created', { type: 'workspace', id: tenant.workspaceId }, { plan: input.plan });
    return workspaceRow(tenant);
  });
}

export async function updateWorkspace(
  store: OperatorStore,
  id: string,
  input: { name?: string; plan?: string; assessment_quota?: number },
): Promise<string> {
  return store.write(id, async ({ tenant, audit }) => {
    await tenant.query(
      `update workspaces set name = coalesce($1, name), plan = coalesce($2, plan),
              assessment_quota = coalesce($3, assessment_quota), updated_at = now()
        where id = $ws`,
      [input.name ?? null, input.plan ?? null, input.assessment_quota ?? null],
    );
    // P72: the changed fields by name, and the new values of those that are not free text.
    await audit(
      'workspace.updated',
      { type: 'workspace', id },
      { changes: Object.keys(input), plan: input.plan, assessment_quota: input.assessment_quota },
    );
    return workspaceRow(tenant);
  });
}

export async function listUsers(store: OperatorStore, workspaceId: string): Promise<string> {
  const rows = await (await store.read(workspaceId)).query<{ j: string }>(
    `select ${userJson} as j from users t where t.workspace_id = $ws order by t.created_at desc, t.id desc`,
  );
  return dataList(rows.map((row) => row.j));
}

export async function createUser(
  store: OperatorStore,
  workspaceId: string,
  input: { name: string; email: string },
): Promise<string> {
  const id = randomUUID();
  return store.write(workspaceId, async ({ tenant, audit }) => {
    await tenant.query('insert into users (workspace_id, id, name, email) values ($ws, $1, $2, $3)', [
      id,
      input.name,
      input.email,
    ]);
    await audit('user.created', { type: 'user', id });
    return one(
      tenant,
      `select ${userJson} as j from users t where t.workspace_id = $ws and t.id = $1`,
      [id],
      'user',
    );
  });
}

export async function createApiKey(
  store: OperatorStore,
  workspaceId: string,
  input: { name: string; scopes: string[]; created_by: string; expires_at?: string | null },
): Promise<string> {
  const id = randomUUID();
  const key = generateApiKey();
  const json = await store.write(workspaceId, async ({ tenant, audit }) => {
    const creator = await tenant.query('select 1 from users where workspace_id = $ws and id = $1', [
      input.created_by,
    ]);
    if (creator.length === 0) throw validationFailed({ created_by: 'is not a user of this workspace' });
    await tenant.query(
      `insert into api_keys (workspace_id, id, name, prefix, secret_hash, scopes, created_by, expires_at)
       values ($ws, $1, $2, $3, $4, $5::text[], $6, $7::timestamptz)`,
      [id, input.name, key.prefix, key.hash, input.scopes, input.created_by, input.expires_at ?? null],
    );
    await audit(
      'api_key.created',
      { type: 'api_key', id },
      { scopes: input.scopes, created_by: input.created_by },
    );
    return one(
      tenant,
      `select ${keyJson} as j from api_keys t where t.workspace_id = $ws and t.id = $1`,
      [id],
      'api key',
    );
  });
  // The secret appears in this response only.
  return `${json.slice(0, -1)},"secret":${JSON.stringify(key.secret)}}`;
}

export async function listApiKeys(store: OperatorStore, workspaceId: string): Promise<string> {
  const rows = await (await store.read(workspaceId)).query<{ j: string }>(
    `select ${keyJson} as j from api_keys t where t.workspace_id = $ws order by t.created_at desc, t.id desc`,
  );
  return dataList(rows.map((row) => row.j));
}

export async function revokeApiKey(store: OperatorStore, keyId: string): Promise<string> {
  return store.write({ table: 'api_keys', id: keyId, what: 'api key' }, async ({ tenant, audit }) => {
    await tenant.query(
      `update api_keys set revoked_at = coalesce(revoked_at, now()), updated_at = now()
        where workspace_id = $ws and id = $1`,
      [keyId],
    );
    await audit('api_key.revoked', { type: 'api_key', id: keyId });
    return one(
      tenant,
      `select ${keyJson} as j from api_keys t where t.workspace_id = $ws and t.id = $1`,
      [keyId],
      'api key',
    );
  });
}
