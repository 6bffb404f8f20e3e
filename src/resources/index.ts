// Every public route, in the order of the specification, and the management lifecycle actions of each area.
// The OpenAPI document and the route-table tests walk these lists.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../app.js';
import type { RouteDef } from '../http/route.js';
import type { AdminRegistrar } from '../management/app.js';
import { actionPlansAdmin } from './action-plans/admin.js';
import { actionPlansRoutes } from './action-plans/routes.js';
import { alertsAdmin } from './alerts/admin.js';
import { alertsRoutes } from './alerts/routes.js';
import { assessmentsAdmin } from './assessments/admin.js';
import { assessmentsRoutes } from './assessments/routes.js';
import { assetsAdmin } from './assets/admin.js';
import { assetsRoutes } from './assets/routes.js';
import { auditLogsRoutes } from './audit-logs/routes.js';
import { contextRoutes } from './context/routes.js';
import { reportsAdmin } from './reports/admin.js';
import { registerFileRoute } from './reports/files.js';
import { reportsRoutes } from './reports/routes.js';
import { risksRoutes } from './risks/routes.js';
import { supplierRoutes } from './suppliers/routes.js';

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
];

/** Public routes outside /v1 that are not API operations (the signed PDF download). */
export const publicPlugins: ((app: FastifyInstance, services: Services) => void)[] = [registerFileRoute];

export const adminRegistrars: AdminRegistrar[] = [
  assessmentsAdmin,
  reportsAdmin,
  assetsAdmin,
  actionPlansAdmin,
  alertsAdmin,
];
