// Every public operation bound to its handler (the contracts: operations.ts), which the public listener
// registers; and the management lifecycle actions of each area.
import type { Route } from '../http/route.js';
import { actionPlansAdmin } from './action-plans/admin.js';
import { actionPlansRoutes } from './action-plans/routes.js';
import { alertsAdmin } from './alerts/admin.js';
import { alertsRoutes } from './alerts/routes.js';
import { assessmentsAdmin } from './assessments/admin.js';
import { assessmentsRoutes } from './assessments/routes.js';
import { assetsAdmin } from './assets/admin.js';
import { assetsRoutes } from './assets/routes.js';
import { auditLogsAdmin } from './audit-logs/admin.js';
import { auditLogsRoutes } from './audit-logs/routes.js';
import { contextRoutes } from './context/routes.js';
import { reportsAdmin } from './reports/admin.js';
import { reportsRoutes } from './reports/routes.js';
import { risksRoutes } from './risks/routes.js';
import { suppliersRoutes } from './suppliers/routes.js';
import { webhooksAdmin } from './webhooks/admin.js';
import { webhooksRoutes } from './webhooks/routes.js';

export const publicRoutes: Route[] = [
  ...suppliersRoutes,
  ...assessmentsRoutes,
  ...reportsRoutes,
  ...assetsRoutes,
  ...contextRoutes,
  ...risksRoutes,
  ...actionPlansRoutes,
  ...alertsRoutes,
  ...auditLogsRoutes,
  ...webhooksRoutes,
];

/** The lifecycle actions of the areas on the management listener, by operationId. */
export const sliceAdminRoutes = {
  ...assessmentsAdmin,
  ...reportsAdmin,
  ...assetsAdmin,
  ...actionPlansAdmin,
  ...alertsAdmin,
  ...webhooksAdmin,
  ...auditLogsAdmin,
};
