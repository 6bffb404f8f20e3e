import type { AdminRegistrar } from '../../management/app.js';

export const alertsAdmin: AdminRegistrar = () => undefined;
