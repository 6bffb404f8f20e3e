// The assets' lifecycle action on the management listener (management-api.md): the human review of the web
// application. Contract only; the handler is admin.ts.
import { operation, operator } from '../../contract/operation.js';
import { NO_RECORD, ok, REFUSED } from '../../contract/operator.js';
import { Asset } from './schema.js';

export const confirmAsset = operation({
  id: 'confirmAsset',
  method: 'POST',
  path: '/assets/:id/confirm',
  auth: operator(),
  tag: 'Lifecycle',
  summary: 'Confirm a discovered asset (review_status becomes confirmed)',
  responses: { 200: ok(Asset.schema), 404: NO_RECORD, 409: REFUSED },
});

export const assetsLifecycle = { confirmAsset };
