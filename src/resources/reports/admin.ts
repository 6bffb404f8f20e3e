import type { AdminRegistrar } from '../../management/app.js';

export const reportsAdmin: AdminRegistrar = () => undefined;
