import type { AdminRegistrar } from '../../management/app.js';

export const actionPlansAdmin: AdminRegistrar = () => undefined;
