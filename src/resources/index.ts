// Every public route, in the order of the specification.
// The OpenAPI document and the route-table tests walk these lists.
import type { OpenRouteDef } from '../http/open-route.js';
import type { RouteDef } from '../http/route.js';
import { actionPlansRoutes } from './action-plans/routes.js';
import { alertsRoutes } from './alerts/routes.js';
import { assessmentsRoutes } from './assessments/routes.js';
import { assetsRoutes } from './assets/routes.js';
import { auditLogsRoutes } from './audit-logs/routes.js';
import { contextRoutes } from './context/routes.js';
import { fileRoute } from './reports/files.js';
import { reportsRoutes } from './reports/routes.js';
import { risksRoutes } from './risks/routes.js';
import { supplierRoutes } from './suppliers/routes.js';
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
