// Every operation of the management listener, by operationId: the operator's own and the areas' lifecycle
// actions, in the document's order. Contracts only, so that the typed admin client and the CLI load no
// handler; the listener binds them to their handlers (handlers.ts), and its OpenAPI document reads them.
import { actionPlansLifecycle } from '../resources/action-plans/lifecycle.js';
import { alertsLifecycle } from '../resources/alerts/lifecycle.js';
import { assessmentsLifecycle } from '../resources/assessments/lifecycle.js';
import { assetsLifecycle } from '../resources/assets/lifecycle.js';
import { auditLogsLifecycle } from '../resources/audit-logs/lifecycle.js';
import { reportsLifecycle } from '../resources/reports/lifecycle.js';
import { sinksLifecycle } from '../resources/sinks/lifecycle.js';
import { webhooksLifecycle } from '../resources/webhooks/lifecycle.js';
import { operatorOperations } from './operations.js';

export const adminOperations = {
  ...operatorOperations,
  ...assessmentsLifecycle,
  ...reportsLifecycle,
  ...assetsLifecycle,
  ...actionPlansLifecycle,
  ...alertsLifecycle,
  ...webhooksLifecycle,
  ...sinksLifecycle,
  ...auditLogsLifecycle,
};
export type AdminOperations = typeof adminOperations;
