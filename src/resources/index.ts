// Every public route, in the order of the specification, and the management lifecycle actions of each area.
// The OpenAPI document and the route-table tests walk these lists.
import type { RouteDef } from '../http/route.js';
import type { AdminRegistrar } from '../management/app.js';
import { supplierRoutes } from './suppliers/routes.js';

export const publicRoutes: RouteDef[] = [...supplierRoutes];

export const adminRegistrars: AdminRegistrar[] = [];
