import type { AdminRegistrar } from '../../management/app.js';

export const assessmentsAdmin: AdminRegistrar = () => undefined;
