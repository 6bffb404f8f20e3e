// The operator's own operations (management-api.md "Endpoints"): workspaces, their users and API keys, and the
// import. Contracts only: their handlers are management/handlers.ts; the resource areas declare their own
// lifecycle actions (resources/<area>/lifecycle.ts). Each is exported under its operationId.

import { validationFailed } from '../contract/errors.js';
import { operation, operator } from '../contract/operation.js';
import { created, INVALID_FIELD, listOf, NO_RECORD, ok } from '../contract/operator.js';
import {
  ApiKey,
  ApiKeyCreate,
  ApiKeyWithSecret,
  ImportDocument,
  ImportResult,
  User,
  UserCreate,
  Workspace,
  WorkspaceCreate,
  WorkspacePatch,
} from './schemas.js';

const WORKSPACES = 'Workspaces';
const KEYS = 'API keys';

export const createWorkspace = operation({
  id: 'createWorkspace',
  method: 'POST',
  path: '/workspaces',
  auth: operator(),
  tag: WORKSPACES,
  summary: 'Create a workspace',
  body: WorkspaceCreate,
  responses: { 201: created(Workspace.schema) },
});

export const listWorkspaces = operation({
  id: 'listWorkspaces',
  method: 'GET',
  path: '/workspaces',
  auth: operator(),
  tag: WORKSPACES,
  summary: 'List workspaces, newest first',
  responses: { 200: ok(listOf(Workspace.schema)) },
});

export const getWorkspace = operation({
  id: 'getWorkspace',
  method: 'GET',
  path: '/workspaces/:id',
  auth: operator(),
  tag: WORKSPACES,
  summary: 'Get a workspace',
  responses: { 200: ok(Workspace.schema), 404: NO_RECORD },
});

export const updateWorkspace = operation({
  id: 'updateWorkspace',
  method: 'PATCH',
  path: '/workspaces/:id',
  auth: operator(),
  tag: WORKSPACES,
  summary: "Change a workspace's name, plan or assessment quota",
  body: WorkspacePatch,
  responses: { 200: ok(Workspace.schema), 404: NO_RECORD },
});

export const createUser = operation({
  id: 'createUser',
  method: 'POST',
  path: '/workspaces/:id/users',
  auth: operator(),
  tag: WORKSPACES,
  summary: 'Add a user to a workspace',
  body: UserCreate,
  responses: { 201: created(User.schema), 404: NO_RECORD },
});

export const listUsers = operation({
  id: 'listUsers',
  method: 'GET',
  path: '/workspaces/:id/users',
  auth: operator(),
  tag: WORKSPACES,
  summary: "List a workspace's users, newest first",
  responses: { 200: ok(listOf(User.schema)), 404: NO_RECORD },
});

export const createApiKey = operation({
  id: 'createApiKey',
  method: 'POST',
  path: '/workspaces/:id/api-keys',
  auth: operator(),
  tag: KEYS,
  summary: 'Issue an API key (its secret is shown in this response only)',
  body: ApiKeyCreate,
  responses: { 201: created(ApiKeyWithSecret), 404: NO_RECORD },
});

export const listApiKeys = operation({
  id: 'listApiKeys',
  method: 'GET',
  path: '/workspaces/:id/api-keys',
  auth: operator(),
  tag: KEYS,
  summary: "List a workspace's API keys, newest first",
  responses: { 200: ok(listOf(ApiKey.schema)), 404: NO_RECORD },
});

export const revokeApiKey = operation({
  id: 'revokeApiKey',
  method: 'POST',
  path: '/api-keys/:id/revoke',
  auth: operator(),
  tag: KEYS,
  summary: 'Revoke an API key, effective on the next request on every instance',
  responses: { 200: ok(ApiKey.schema), 404: NO_RECORD },
});

export const importData = operation({
  id: 'importData',
  method: 'POST',
  path: '/workspaces/:id/import',
  auth: operator(),
  tag: WORKSPACES,
  summary: 'Import records into a workspace, all or nothing',
  description:
    'An import document: collection names to arrays of records. Each record is checked against its ' +
    "collection's fields and references; any problem refuses the whole document with a 422. `audit_logs` " +
    "are appended to the audit chain after the trail's last entry, never among the entries already chained: " +
    'one dated before it is such a problem, and one without `occurred_at` is stamped as it is appended.',
  body: ImportDocument,
  validateBody: false,
  responses: {
    200: ok(ImportResult),
    404: NO_RECORD,
    422: {
      ...INVALID_FIELD,
      errors: [validationFailed({ 'collection[index].field': 'what is wrong with it' })],
    },
  },
});

/** The operator's own operations, by operationId, in the document's order. */
export const operatorOperations = {
  createWorkspace,
  listWorkspaces,
  getWorkspace,
  updateWorkspace,
  createUser,
  listUsers,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  importData,
};
