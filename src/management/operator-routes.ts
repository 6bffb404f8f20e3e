// The operator's routes on workspaces, their users and keys, and the import (management-api.md "Endpoints").
// The resource areas declare their own lifecycle actions (resources/*/admin.ts).
import { Type } from 'typebox';
import { importDocument } from './import.js';
import * as ops from './operations.js';
import { adminRoute } from './route.js';
import {
  ApiKey,
  ApiKeyCreate,
  ApiKeyWithSecret,
  ImportResult,
  listOf,
  User,
  UserCreate,
  Workspace,
  WorkspaceCreate,
  WorkspacePatch,
} from './schemas.js';

const WORKSPACES = 'Workspaces';
const KEYS = 'API keys';

export const operatorRoutes = {
  createWorkspace: adminRoute({
    method: 'POST',
    url: '/workspaces',
    tag: WORKSPACES,
    summary: 'Create a workspace',
    status: 201,
    body: WorkspaceCreate,
    response: Workspace.schema,
    handler: ({ op }, { body }) => ops.createWorkspace(op, body),
  }),
  listWorkspaces: adminRoute({
    method: 'GET',
    url: '/workspaces',
    tag: WORKSPACES,
    summary: 'List workspaces, newest first',
    status: 200,
    response: listOf(Workspace.schema),
    handler: ({ op }) => ops.listWorkspaces(op.db),
  }),
  getWorkspace: adminRoute({
    method: 'GET',
    url: '/workspaces/:id',
    tag: WORKSPACES,
    summary: 'Get a workspace',
    status: 200,
    response: Workspace.schema,
    errors: [404],
    handler: ({ op }, { params }) => ops.readWorkspace(op.db, params.id),
  }),
  updateWorkspace: adminRoute({
    method: 'PATCH',
    url: '/workspaces/:id',
    tag: WORKSPACES,
    summary: "Change a workspace's name, plan or assessment quota",
    status: 200,
    body: WorkspacePatch,
    response: Workspace.schema,
    errors: [404],
    handler: ({ op }, { params, body }) => ops.updateWorkspace(op, params.id, body),
  }),
  createUser: adminRoute({
    method: 'POST',
    url: '/workspaces/:id/users',
    tag: WORKSPACES,
    summary: 'Add a user to a workspace',
    status: 201,
    body: UserCreate,
    response: User.schema,
    errors: [404],
    handler: ({ op }, { params, body }) => ops.createUser(op, params.id, body),
  }),
  listUsers: adminRoute({
    method: 'GET',
    url: '/workspaces/:id/users',
    tag: WORKSPACES,
    summary: "List a workspace's users, newest first",
    status: 200,
    response: listOf(User.schema),
    errors: [404],
    handler: ({ op }, { params }) => ops.listUsers(op.db, params.id),
  }),
  createApiKey: adminRoute({
    method: 'POST',
    url: '/workspaces/:id/api-keys',
    tag: KEYS,
    summary: 'Issue an API key (its secret is shown in this response only)',
    status: 201,
    body: ApiKeyCreate,
    response: ApiKeyWithSecret,
    errors: [404],
    handler: ({ op }, { params, body }) => ops.createApiKey(op, params.id, body),
  }),
  listApiKeys: adminRoute({
    method: 'GET',
    url: '/workspaces/:id/api-keys',
    tag: KEYS,
    summary: "List a workspace's API keys, newest first",
    status: 200,
    response: listOf(ApiKey.schema),
    errors: [404],
    handler: ({ op }, { params }) => ops.listApiKeys(op.db, params.id),
  }),
  revokeApiKey: adminRoute({
    method: 'POST',
    url: '/api-keys/:id/revoke',
    tag: KEYS,
    summary: 'Revoke an API key, effective on the next request on every instance',
    status: 200,
    response: ApiKey.schema,
    errors: [404],
    handler: ({ op }, { params }) => ops.revokeApiKey(op, params.id),
  }),
  importData: adminRoute({
    method: 'POST',
    url: '/workspaces/:id/import',
    tag: WORKSPACES,
    summary: 'Import records into a workspace, all or nothing',
    description:
      'An import document: collection names to arrays of records. Each record is checked against its ' +
      "collection's fields and references; any problem refuses the whole document with a 422. `audit_logs` " +
      "are appended to the audit chain after the trail's last entry, never among the entries already chained: " +
      'one dated before it is such a problem, and one without `occurred_at` is stamped as it is appended.',
    status: 200,
    body: Type.Record(Type.String(), Type.Array(Type.Record(Type.String(), Type.Unknown())), {
      title: 'ImportDocument',
    }),
    validateBody: false,
    response: ImportResult,
    errors: [404, 422],
    handler: async ({ op }, { params, body }) => {
      await ops.readWorkspace(op.db, params.id);
      const created = await importDocument(op.db, params.id, body, { requestId: op.requestId });
      return JSON.stringify({ created });
    },
  }),
};
