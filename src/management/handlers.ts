// The handler of every operation of the management listener, bound to its contract: the operator's own here
// (over actions.ts and the import), the areas' lifecycle actions from their slices. The type requires exactly
// one handler per contract of admin-operations.ts.
import type { Operation } from '../contract/operation.js';
import type { BoundOperation, OperatorHandler, OperatorHandlers } from '../http/operator.js';
import { actionPlansAdmin } from '../resources/action-plans/admin.js';
import { alertsAdmin } from '../resources/alerts/admin.js';
import { assessmentsAdmin } from '../resources/assessments/admin.js';
import { assetsAdmin } from '../resources/assets/admin.js';
import { auditLogsAdmin } from '../resources/audit-logs/admin.js';
import { reportsAdmin } from '../resources/reports/admin.js';
import { sinksAdmin } from '../resources/sinks/admin.js';
import { webhooksAdmin } from '../resources/webhooks/admin.js';
import * as actions from './actions.js';
import { type AdminOperations, adminOperations } from './admin-operations.js';
import { importDocument } from './import.js';
import type { operatorOperations } from './operations.js';

const operatorHandlers: OperatorHandlers<typeof operatorOperations> = {
  createWorkspace: (ctx, { body }) => actions.createWorkspace(ctx, body),
  listWorkspaces: (ctx) => actions.listWorkspaces(ctx),
  getWorkspace: (ctx, { params }) => actions.readWorkspace(ctx, params.id),
  updateWorkspace: async (ctx, { params, body }) => {
    const workspace = await actions.updateWorkspace(ctx, params.id, body);
    ctx.authChanged();
    return workspace;
  },
  createUser: (ctx, { params, body }) => actions.createUser(ctx, params.id, body),
  listUsers: (ctx, { params }) => actions.listUsers(ctx, params.id),
  createApiKey: (ctx, { params, body }) => actions.createApiKey(ctx, params.id, body),
  listApiKeys: (ctx, { params }) => actions.listApiKeys(ctx, params.id),
  revokeApiKey: async (ctx, { params }) => {
    const key = await actions.revokeApiKey(ctx, params.id);
    ctx.authChanged();
    return key;
  },
  importData: async (ctx, { params, body }) => {
    // A workspace that does not exist is a 404 before its document is judged.
    await ctx.locate(params.id);
    return JSON.stringify({ created: await importDocument(ctx, params.id, body) });
  },
};

const handlers: OperatorHandlers<AdminOperations> = {
  ...operatorHandlers,
  ...assessmentsAdmin,
  ...reportsAdmin,
  ...assetsAdmin,
  ...actionPlansAdmin,
  ...alertsAdmin,
  ...webhooksAdmin,
  ...sinksAdmin,
  ...auditLogsAdmin,
};

/** Every operation of the listener with its handler, in the contracts' order. */
export const boundAdminOperations: readonly BoundOperation[] = Object.entries(adminOperations).map(
  ([id, operation]) => {
    if (operation.id !== id) throw new Error(`operation ${operation.id} is listed as ${id}`);
    // The handler typed for this very contract, called with the input the listener validated against it.
    return { operation, handler: handlers[id as keyof AdminOperations] as OperatorHandler<Operation> };
  },
);
