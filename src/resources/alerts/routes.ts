import type { RouteDef } from '../../http/route.js';

export const alertsRoutes: RouteDef[] = [];
