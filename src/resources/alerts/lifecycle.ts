// The alerts' lifecycle action on the management listener (management-api.md): the service raises an alert.
// Contract only; the handler is admin.ts.
import { operation, operator } from '../../contract/operation.js';
import { created, INVALID_FIELD, NO_RECORD } from '../../contract/operator.js';
import { Alert, AlertCreate } from './schema.js';

export const createAlert = operation({
  id: 'createAlert',
  method: 'POST',
  path: '/workspaces/:id/alerts',
  auth: operator(),
  tag: 'Lifecycle',
  summary: 'Raise an alert in a workspace (emits alert.created)',
  body: AlertCreate,
  responses: { 201: created(Alert.schema), 404: NO_RECORD, 422: INVALID_FIELD },
});

export const alertsLifecycle = { createAlert };
