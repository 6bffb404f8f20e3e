// GET /webhook-endpoints and GET /webhook-deliveries: the contracts (handlers: routes.ts; risk-data-api.md
// "Webhooks", decisions 22 and 43). Read only: endpoints are registered through the management API, and the
// signing secret is never returned.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { listOperation } from '../../contract/list.js';
import { Event, WebhookDelivery, WebhookEndpoint } from './schema.js';

const instant = (description: string) => Type.String({ format: 'date-time', description });

export const listWebhookEndpoints = listOperation({
  id: 'listWebhookEndpoints',
  path: '/webhook-endpoints',
  scope: 'webhooks:read',
  tag: 'Webhooks',
  summary: 'List the registered webhook endpoints',
  description:
    'Newest first. Endpoints are registered in the web application; the signing secret is never returned. ' +
    '`updated_since` keeps the endpoints changed at or after the instant.',
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
    '`attempted_at` (the due time of a `pending` attempt) at or after it; `updated_since` those whose ' +
    'status last changed at or after it.',
  resource: WebhookDelivery,
  fieldFilters: ['endpoint_id', 'status'],
  filters: {
    from: Type.String({
      format: 'date-time',
      description: 'Attempts with attempted_at at or after this instant (inclusive).',
    }),
  },
});

export const listEvents = listOperation({
  id: 'listEvents',
  path: '/events',
  scope: 'webhooks:read',
  tag: 'Webhooks',
  summary: 'Read the events of the workspace, oldest first (a resumable feed)',
  description:
    'Every event of the workspace, also those no endpoint subscribed to, each exactly as its webhook ' +
    'deliveries carry it (the same `event_id` and payload): to catch up after an outage and to reconcile ' +
    'deliveries. Oldest first by `occurred_at`, then `event_id`; an event is listed once its change has ' +
    'committed, in commit order. `from` and `to` bound `occurred_at` inclusively; `type` matches the type ' +
    'exactly. `meta.next_cursor` is set on every page with at least one event, also when `has_more` is ' +
    'false: store it and pass it later to receive only newer events. An empty page returns the cursor that ' +
    'was sent (null when none was sent). Events are kept for EVENT_RETENTION (90 days unless the operator ' +
    'sets otherwise); test events an operator sent to one endpoint are not listed. `format=ocsf` gives each ' +
    'event as an OCSF 1.8.0 event (Detection Finding for `alert.created`, API Activity otherwise; ' +
    'docs/ocsf.md), with the same envelope and cursors.',
  feed: true,
  ocsf: true,
  resource: Event,
  fieldFilters: ['type'],
  filters: {
    from: instant('Events with occurred_at at or after this instant (inclusive).'),
    to: instant('Events with occurred_at at or before this instant (inclusive).'),
  },
});

/** In the specification's order; the event log after the webhooks it complements. */
export const webhooksOperations = [listWebhookEndpoints, listWebhookDeliveries, listEvents];
