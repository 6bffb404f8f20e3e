// GET /webhook-endpoints and GET /webhook-deliveries (risk-data-api.md "Webhooks", decisions 22 and 43).
// Read only: endpoints are registered through the management API, and the signing secret is never returned.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { fieldFilters, listRoute, NEWEST_FIRST } from '../../http/list.js';
import type { RouteDef } from '../../http/route.js';
import { WebhookDelivery, WebhookEndpoint } from './schema.js';

export const webhooksRoutes: RouteDef[] = [
  listRoute({
    url: '/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    scope: 'webhooks:read',
    tag: 'Webhooks',
    summary: 'List the registered webhook endpoints',
    description:
      'Newest first. Endpoints are registered in the web application; the signing secret is never returned.',
    list: { resource: WebhookEndpoint, filters: {}, order: NEWEST_FIRST },
  }),
  listRoute({
    url: '/webhook-deliveries',
    operationId: 'listWebhookDeliveries',
    scope: 'webhooks:read',
    tag: 'Webhooks',
    summary: 'List delivery attempts with the response seen',
    description:
      'One row per attempt, newest first by `created_at`, then `id`. `from` keeps attempts with ' +
      '`attempted_at` (the due time of a `pending` attempt) at or after it.',
    list: {
      resource: WebhookDelivery,
      filters: {
        ...fieldFilters(WebhookDelivery, ['endpoint_id', 'status']),
        from: {
          schema: Type.String({
            format: 'date-time',
            description: 'Attempts with attempted_at at or after this instant (inclusive).',
          }),
          where: 't.attempted_at >= ?::timestamptz',
        },
      },
      // decision 12 (P74): the specification states no order for attempts.
      order: NEWEST_FIRST,
    },
  }),
];
