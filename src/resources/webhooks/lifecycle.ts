// Webhook endpoints on the management listener (management-api.md) and the delivery operations of P30-P33:
// register, change and delete endpoints, rotate a signing secret with an overlap, replay one delivery or every
// failed delivery of an endpoint in a time range, read an endpoint's recent attempts, and send one endpoint a
// test event (P81). Contracts only; the handlers are admin.ts.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { type TSchema, Type } from 'typebox';
import { EventTypes } from '../../contract/events.js';
import { WEBHOOK_TESTS_PER_MINUTE } from '../../contract/limits.js';
import { operation, operator } from '../../contract/operation.js';
import {
  created,
  INVALID_FIELD,
  listOf,
  NO_CONTENT,
  NO_RECORD,
  ok,
  REFUSED,
} from '../../contract/operator.js';
import { DateTime, DeliveryStatuses, Nullable, StringEnum } from '../../schema/fields.js';
import {
  EndpointReplay,
  SecretRotation,
  TestEventRequest,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointPatch,
} from './schema.js';

/** Attempts a page of the admin listing of one endpoint holds by default, and at most (P167). */
export const RECENT_ATTEMPTS = 100;
export const MAX_ATTEMPTS_PAGE = 500;

/** The filters and paging of an endpoint's attempts (P167): each narrows the list, the cursor continues it. */
const DeliveriesQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(DeliveryStatuses, 'Only attempts in this status.')),
    event_type: Type.Optional(StringEnum(EventTypes, 'Only attempts of events of this type.')),
    from: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'Only attempts with `attempted_at` (the due time of a `pending` attempt) at or after this instant.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_ATTEMPTS_PAGE,
        default: RECENT_ATTEMPTS,
        description: `Attempts per page, 1 to ${MAX_ATTEMPTS_PAGE} (default ${RECENT_ATTEMPTS}).`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          "The previous page's `next_cursor`: the attempts after its last one, with the same filters. Opaque.",
      }),
    ),
  },
  { additionalProperties: false },
);

const DeliveriesPage = Type.Object(
  {
    data: Type.Array(WebhookDelivery.schema),
    next_cursor: Nullable(
      Type.String({
        description: 'Pass as `cursor` for the next page; null on the last page.',
        examples: ['WyIyMDI2LTExLTI4VDAzOjA1OjM2LjgwNzAwMFoiLCIzOTU0NTkwYi1jNjVjIl0.wSpSz3EF7xh7et00A25Xvg'],
      }),
    ),
  },
  { additionalProperties: false, title: 'WebhookDeliveryPage' },
);

/** An endpoint as registered or re-keyed: its new signing secret is shown in this response only. */
const EndpointWithSecret = (title: string, extra: Record<string, TSchema> = {}) =>
  Type.Object(
    {
      ...WebhookEndpoint.schema.properties,
      signing_secret: Type.String({ description: 'Shown in this response only.' }),
      ...extra,
    },
    { additionalProperties: false, title },
  );
const TAG = 'Webhook endpoints';

export const createWebhookEndpoint = operation({
  id: 'createWebhookEndpoint',
  method: 'POST',
  path: '/workspaces/:id/webhook-endpoints',
  auth: operator(),
  tag: TAG,
  summary: 'Register a webhook endpoint (its signing secret is shown in this response only)',
  body: WebhookEndpointCreate,
  responses: {
    201: created(EndpointWithSecret('WebhookEndpointWithSecret')),
    404: NO_RECORD,
    422: INVALID_FIELD,
  },
});

export const listWebhookEndpoints = operation({
  id: 'listWebhookEndpoints',
  method: 'GET',
  path: '/workspaces/:id/webhook-endpoints',
  auth: operator(),
  tag: TAG,
  summary: "List a workspace's webhook endpoints, newest first (no secrets)",
  responses: { 200: ok(listOf(WebhookEndpoint.schema)), 404: NO_RECORD },
});

export const getWebhookEndpoint = operation({
  id: 'getWebhookEndpoint',
  method: 'GET',
  path: '/webhook-endpoints/:id',
  auth: operator(),
  tag: TAG,
  summary: 'Get a webhook endpoint (no secret)',
  responses: { 200: ok(WebhookEndpoint.schema), 404: NO_RECORD },
});

export const updateWebhookEndpoint = operation({
  id: 'updateWebhookEndpoint',
  method: 'PATCH',
  path: '/webhook-endpoints/:id',
  auth: operator(),
  tag: TAG,
  summary: "Change an endpoint's URL, events, description or enabled flag",
  body: WebhookEndpointPatch,
  responses: { 200: ok(WebhookEndpoint.schema), 404: NO_RECORD, 422: INVALID_FIELD },
});

export const deleteWebhookEndpoint = operation({
  id: 'deleteWebhookEndpoint',
  method: 'DELETE',
  path: '/webhook-endpoints/:id',
  auth: operator(),
  tag: TAG,
  summary: 'Delete an endpoint and its delivery history',
  responses: { 204: NO_CONTENT, 404: NO_RECORD },
});

export const rotateWebhookSecret = operation({
  id: 'rotateWebhookSecret',
  method: 'POST',
  path: '/webhook-endpoints/:id/rotate-secret',
  auth: operator(),
  tag: TAG,
  summary: 'Issue a new signing secret; the old one keeps signing during the overlap',
  body: SecretRotation,
  responses: {
    200: ok(EndpointWithSecret('WebhookEndpointRotated', { previous_secret_expires_at: DateTime })),
    404: NO_RECORD,
    422: INVALID_FIELD,
  },
});

export const replayWebhookEndpoint = operation({
  id: 'replayWebhookEndpoint',
  method: 'POST',
  path: '/webhook-endpoints/:id/replay',
  auth: operator(),
  tag: TAG,
  summary: 'Deliver again every event whose delivery failed in a time range',
  description:
    'One new attempt per event that has an attempt `failed` or `exhausted` in the range and is neither ' +
    'delivered since nor still due or in flight, with its original `event_id` and body. Test events are ' +
    'not replayed.',
  body: EndpointReplay,
  responses: {
    200: ok(
      Type.Object(
        { replayed: Type.Integer({ minimum: 0 }), data: Type.Array(WebhookDelivery.schema) },
        { additionalProperties: false, title: 'EndpointReplayResult' },
      ),
    ),
    404: NO_RECORD,
    409: REFUSED,
    422: INVALID_FIELD,
  },
});

export const listWebhookEndpointDeliveries = operation({
  id: 'listWebhookEndpointDeliveries',
  method: 'GET',
  path: '/webhook-endpoints/:id/deliveries',
  auth: operator(),
  tag: TAG,
  summary: "The endpoint's delivery attempts, newest first, filtered and paged",
  description:
    'Newest first by `created_at`, then `id`; ' +
    `${RECENT_ATTEMPTS} a page unless \`limit\` says otherwise. \`status\`, \`event_type\` and \`from\` narrow ` +
    'the list; `next_cursor` continues it with the same filters (a cursor given other filters is a 400).',
  query: DeliveriesQuery,
  responses: { 200: ok(DeliveriesPage), 404: NO_RECORD },
});

export const sendWebhookTestEvent = operation({
  id: 'sendWebhookTestEvent',
  method: 'POST',
  path: '/webhook-endpoints/:id/test',
  auth: operator(),
  tag: TAG,
  summary: 'Send a signed test event of any type to this endpoint alone, now',
  description:
    "The payload has the event type's shape, with the workspace as `organization_id` and the nil uuid for " +
    'every id in `data`. One attempt, due at once, listed with `test: true`; never retried, never sent to ' +
    "another endpoint, not counted in the metrics and no part of the endpoint's failing state, and never " +
    'replayed. 409 `endpoint_disabled` while the endpoint is disabled. At most ' +
    `${WEBHOOK_TESTS_PER_MINUTE} a minute per endpoint (429 with \`Retry-After\`).`,
  body: TestEventRequest,
  limit: {
    buckets: 'webhookTests',
    message: 'Too many test events to this endpoint. Retry after the number of seconds in Retry-After.',
    description:
      `At most ${WEBHOOK_TESTS_PER_MINUTE} test events are sent to one endpoint per minute of the clock, ` +
      'across every process of the service; a refused request is not counted. Wait `Retry-After` seconds.',
  },
  responses: { 201: created(WebhookDelivery.schema), 404: NO_RECORD, 409: REFUSED, 422: INVALID_FIELD },
});

export const replayWebhookDelivery = operation({
  id: 'replayWebhookDelivery',
  method: 'POST',
  path: '/webhook-deliveries/:id/replay',
  auth: operator(),
  tag: TAG,
  summary: 'Deliver one event again to the endpoint of this attempt',
  description:
    'A new attempt with the original `event_id` and body, due at once and not retried. 409 ' +
    '`delivery_in_progress` while an attempt of the event to the endpoint is due or in flight, ' +
    '`endpoint_disabled` or `endpoint_deleted`, and `test_delivery` for an attempt of a test event ' +
    '(send a new test event instead).',
  responses: { 201: created(WebhookDelivery.schema), 404: NO_RECORD, 409: REFUSED },
});

export const webhooksLifecycle = {
  createWebhookEndpoint,
  listWebhookEndpoints,
  getWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookSecret,
  replayWebhookEndpoint,
  listWebhookEndpointDeliveries,
  sendWebhookTestEvent,
  replayWebhookDelivery,
};
