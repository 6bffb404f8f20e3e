// Every public operation bound to its handler (the contracts: operations.ts), which the public listener
// registers.
import type { Route } from '../http/route.js';
import { actionPlansRoutes } from './action-plans/routes.js';
import { alertsRoutes } from './alerts/routes.js';
import { assessmentsRoutes } from './assessments/routes.js';
import { assetsRoutes } from './assets/routes.js';
import { auditLogsRoutes } from './audit-logs/routes.js';
import { contextRoutes } from './context/routes.js';
import { reportsRoutes } from './reports/routes.js';
import { risksRoutes } from './risks/routes.js';
import { suppliersRoutes } from './suppliers/routes.js';
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
