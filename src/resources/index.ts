// Every public route, in the order of the specification, and the management lifecycle actions of each area.
// The OpenAPI document and the route-table tests walk these lists.
import type { OpenRouteDef } from '../http/open-route.js';
import type { RouteDef } from '../http/route.js';
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
import { fileRoute } from './reports/files.js';
import { reportsRoutes } from './reports/routes.js';
import { risksRoutes } from './risks/routes.js';
import { supplierRoutes } from './suppliers/routes.js';
import { webhooksAdmin } from './webhooks/admin.js';
import { webhooksRoutes } from './webhooks/routes.js';

export const publicRoutes: RouteDef[] = [
  ...supplierRoutes,
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

/** Public routes outside /v1 that need no key: the signed PDF download (the API reference adds its own). */
export const openRoutes: OpenRouteDef[] = [fileRoute];

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
