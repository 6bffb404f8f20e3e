// Every public operation, in the order of the specification: the contracts alone (no handler is loaded from
// here), which the OpenAPI document, the MCP catalogue, the code samples and the route-table tests read. The
// listener binds each to its handler (src/resources/index.ts).
import type { ApiKeyAuth, NoneAuth, Operation } from '../contract/operation.js';
import { actionPlansOperations } from './action-plans/operations.js';
import { alertsOperations } from './alerts/operations.js';
import { assessmentsOperations } from './assessments/operations.js';
import { assetsOperations } from './assets/operations.js';
import { auditLogsOperations } from './audit-logs/operations.js';
import { contextOperations } from './context/operations.js';
import { downloadReportPdf, reportsOperations } from './reports/operations.js';
import { risksOperations } from './risks/operations.js';
import { suppliersOperations } from './suppliers/operations.js';
import { webhooksOperations } from './webhooks/operations.js';

/** The operations under /v1, each needing an API key with its scope. */
export const publicOperations: readonly Operation<ApiKeyAuth>[] = [
  ...suppliersOperations,
  ...assessmentsOperations,
  ...reportsOperations,
  ...assetsOperations,
  ...contextOperations,
  ...risksOperations,
  ...actionPlansOperations,
  ...alertsOperations,
  ...auditLogsOperations,
  ...webhooksOperations,
];

/** The resources' operations outside /v1 that need no key: the signed PDF download (decision 4). */
export const openOperations: readonly Operation<NoneAuth>[] = [downloadReportPdf];
