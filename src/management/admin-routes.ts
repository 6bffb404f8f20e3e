// Every route of the management listener, by operationId: the operator's own and the areas' lifecycle
// actions. The listener (management/app.ts), its OpenAPI document and the typed admin client read this table.
import { sliceAdminRoutes } from '../resources/index.js';
import { operatorRoutes } from './operator-routes.js';

export const adminRoutes = { ...operatorRoutes, ...sliceAdminRoutes };
export type AdminRoutes = typeof adminRoutes;
