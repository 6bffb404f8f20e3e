// GET /webhook-endpoints and GET /webhook-deliveries: the contracts (handlers: routes.ts; risk-data-api.md
// "Webhooks", decisions 22 and 43). Read only: endpoints are registered through the management API, and the
// signing secret is never returned.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { listOperation } from '../../contract/list.js';
import { WebhookDelivery, WebhookEndpoint } from './schema.js';

export const listWebhookEndpoints = listOperation({
  id: 'listWebhookEndpoints',
  path: '/webhook-endpoints',
  scope: 'webhooks:read',
  tag: 'Webhooks',
  summary: 'List the registered webhook endpoints',
  description:
    'Newest first. Endpoints are registered in the web application; the signing secret is never returned.',
  resource: WebhookEndpoint,
});

export const listWebhookDeliveries = listOperation({
  id: 'listWebhookDeliveries',
  path: '/webhook-deliveries',
  scope: 'webhooks:read',
  tag: 'Webhooks',
  summary: 'List delivery attempts with the response seen',
  description:
    'One row per attempt, newest first by `created_at`, then `id`. `from` keeps attempts with ' +
    '`attempted_at` (the due time of a `pending` attempt) at or after it.',
  resource: WebhookDelivery,
  fieldFilters: ['endpoint_id', 'status'],
  filters: {
    from: Type.String({
      format: 'date-time',
      description: 'Attempts with attempted_at at or after this instant (inclusive).',
    }),
  },
});

/** In the specification's order. */
export const webhooksOperations = [listWebhookEndpoints, listWebhookDeliveries];
