import type { AdminRegistrar } from '../../management/app.js';

export const assetsAdmin: AdminRegistrar = () => undefined;
