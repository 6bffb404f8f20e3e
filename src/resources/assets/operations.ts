// GET /assets and PUT /assets: the contracts (handlers: routes.ts; risk-data-api.md "Assets", decision 34).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { listOperation } from '../../contract/list.js';
import { apiKey, operation } from '../../contract/operation.js';
import { Asset, AssetUpsert, AssetUpsertResult } from './schema.js';

const TAG = 'Assets';

export const listAssets = listOperation({
  id: 'listAssets',
  path: '/assets',
  scope: 'assets:read',
  tag: TAG,
  summary: 'List assets, newest first',
  resource: Asset,
  fieldFilters: [
    'asset_type',
    'technical_criticality',
    'exposure',
    'source',
    'cloud_provider',
    'review_status',
  ],
});

export const upsertAssets = operation({
  id: 'upsertAssets',
  method: 'PUT',
  path: '/assets',
  auth: apiKey('assets:write'),
  tag: TAG,
  summary: 'Create or update up to 500 assets of one source',
  description:
    'Body AssetUpsert: `source`, `cloud_provider` (required for cloud, null or absent for manual) and `assets`. ' +
    'Items are matched on (source, cloud_provider, external_id). A malformed item, or a repeat of an ' +
    'external_id earlier in the batch, is skipped with a reason while the others are written. Attributes an ' +
    'item omits are stored as null. New assets are `discovered`; the review status of existing ones is never ' +
    'changed. No Idempotency-Key: repeating a payload is harmless and reports 0 created, 0 updated.',
  // Rule 3 wants each item judged on its own: the handler checks the envelope, then every item.
  body: AssetUpsert,
  validateBody: false,
  responses: {
    200: { description: 'What the batch did.', schema: AssetUpsertResult },
  },
});

/** In the specification's order. */
export const assetsOperations = [listAssets, upsertAssets];
