// Webhook endpoints and delivery attempts: resources.md "Webhook endpoint" and "Webhook delivery attempt",
// decisions 21-24 and 43. Endpoints are registered through the management API; the public API only reads.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { EventTypes } from '../../contract/events.js';
import {
  DateTime,
  DeliveryStatuses,
  FreeObject,
  Nullable,
  StringEnum,
  Uuid,
  WEBHOOK_URL_MAX_LENGTH,
  WITHOUT_CONTROLS,
} from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

export const WebhookEndpoint = defineResource({
  name: 'WebhookEndpoint',
  table: 'webhook_endpoints',
  description: 'A registered webhook endpoint. The signing secret is never returned after registration.',
  fields: {
    id: field(Uuid),
    url: field(Type.String()),
    description: field(Nullable(Type.String())),
    events: field(Type.Array(StringEnum(EventTypes)), { keptText: true }),
    enabled: field(
      Type.Boolean({
        description:
          'False while paused: by an operator, or by the service when its deliveries have all failed for ' +
          'WEBHOOK_DISABLE_AFTER (default 5 days). Re-enabling resumes delivery.',
      }),
    ),
    failing_since: field(
      Nullable(
        Type.String({
          format: 'date-time',
          description:
            'When the current run of failed attempts began (the first failure since the last delivery); ' +
            'null while the last attempt was delivered, and again after re-enabling.',
        }),
      ),
      { keptText: true },
    ),
    created_at: field(DateTime, { keptText: true }),
    updated_at: field(DateTime, { keptText: true }),
  },
});

/**
 * One event of the workspace as GET /v1/events serves it (P172): the payload its webhook deliveries carry,
 * field for field and byte for byte. The fields are read from the stored event (the view `event_log` leaves
 * out test events, migration 0020); `data` is the stored payload's own text, so its bytes are the webhook's.
 */
export const Event = defineResource({
  name: 'Event',
  table: 'event_log',
  description:
    'An event of the workspace, exactly as its webhook deliveries carry it (the same `event_id`), also when ' +
    "no endpoint subscribed to its type. `data` is described per type under the document's `webhooks`.",
  fields: {
    event_id: field(
      Type.String({ format: 'uuid', description: 'Stable across retries and fan-out: deduplicate on it.' }),
      { sql: '$t.id' },
    ),
    type: field(StringEnum(EventTypes)),
    occurred_at: field(DateTime, { keptText: true }),
    organization_id: field(Uuid, { sql: '$t.workspace_id' }),
    data: field(
      Type.Unsafe<Record<string, unknown>>({
        ...FreeObject,
        description:
          "The event type's `data` (ids and minimum state), as its webhook payload schema gives it.",
      }),
      { sql: "($t.payload::json -> 'data')" },
    ),
  },
});

export const WebhookDelivery = defineResource({
  name: 'WebhookDeliveryAttempt',
  table: 'webhook_deliveries',
  description:
    'One attempt to deliver one event to one endpoint. `pending`: due but not started (`attempted_at` is ' +
    'the due time); `delivering`: in flight; then `delivered`, `failed` (with `next_retry_at`) or ' +
    "`exhausted` (no retry left; the event's latest attempt to the endpoint, and none once a replay " +
    'delivered it). `created_at` is when the attempt was scheduled (a retry: when the attempt ' +
    'before it failed); `updated_at` its last change of status.',
  fields: {
    id: field(Uuid),
    endpoint_id: field(Uuid),
    event_id: field(Uuid),
    event_type: field(StringEnum(EventTypes)),
    attempt: field(Type.Integer({ minimum: 1, description: '1 for the first try.' })),
    status: field(StringEnum(DeliveryStatuses)),
    test: field(
      Type.Boolean({
        description:
          'True for a test event an operator sent to this endpoint alone: never fanned out, never retried.',
      }),
      {
        sql: 'exists (select 1 from events ev where ev.workspace_id = $t.workspace_id and ev.id = $t.event_id and ev.test)',
      },
    ),
    response_status: field(Nullable(Type.Integer())),
    response_body: field(Nullable(Type.String({ description: 'The first 1 KiB of the response body.' }))),
    error: field(Nullable(Type.String())),
    duration_ms: field(
      Nullable(
        Type.Integer({
          minimum: 0,
          description: 'From the start of the request to its outcome; null until the outcome is recorded.',
        }),
      ),
    ),
    attempted_at: field(DateTime, { keptText: true }),
    next_retry_at: field(Nullable(DateTime), { keptText: true }),
    created_at: field(DateTime, { keptText: true }),
    updated_at: field(DateTime, { keptText: true }),
  },
});

// Without control characters (P105): what is stored is what is shown and, for the URL, what is called.
const Url = Type.String({
  minLength: 1,
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  pattern: WITHOUT_CONTROLS,
  description:
    'Stored, shown and called in its normalised form (as a WHATWG URL parser serialises it: lower-case ' +
    'host, default port and dot segments removed, spaces percent-encoded). No control characters, no ' +
    'credentials, no fragment.',
  examples: ['https://hooks.acme.example/tprm'],
});
const Events = Type.Array(StringEnum(EventTypes), { minItems: 1, uniqueItems: true });
const Description = Nullable(
  Type.String({ maxLength: 500, pattern: WITHOUT_CONTROLS, examples: ['SIEM ingestion'] }),
);

export const WebhookEndpointCreate = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export const WebhookEndpointPatch = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export const SecretRotation = Type.Object(
  {
    overlap: Type.Optional(
      Type.String({
        pattern: '^\\d+(\\.\\d+)?(ms|s|m|h)$',
        description:
          'How long the old secret keeps signing too (default 24h, at most 7 days; 0s ends it now).',
      }),
    ),
  },
  { additionalProperties: false },
);
export const TestEventRequest = Type.Object(
  { event_type: StringEnum(EventTypes, 'The type of the example event to send.') },
  { additionalProperties: false },
);
export const EndpointReplay = Type.Object(
  {
    from: DateTime,
    to: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);
