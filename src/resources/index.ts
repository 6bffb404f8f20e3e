// Every public route, in the order of the specification. The OpenAPI document and the route-table tests
// walk this list.
import type { RouteDef } from '../http/route.js';
import { supplierRoutes } from './suppliers/routes.js';

export const publicRoutes: RouteDef[] = [...supplierRoutes];
