// Sinks: push destinations of a workspace's audit trail and events (issue 26 point 5; docs/decisions.md
// P203-P219), registered through the management API, and their delivery log. A sink's credential is written,
// never read: no response carries it (P206).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { EventTypes } from '../../contract/events.js';
import {
  DateTime,
  Nullable,
  SinkFormats,
  SinkKinds,
  SinkOutcomes,
  SinkSources,
  StringEnum,
  Uuid,
  WEBHOOK_URL_MAX_LENGTH,
  WITHOUT_CONTROLS,
} from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

/** A certificate in PEM. */
function PemText(description: string, limits: { minLength?: number; maxLength?: number }) {
  return Type.String({
    ...limits,
    description: `${description} PEM.`,
    examples: ['-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU…\n-----END CERTIFICATE-----\n'],
  });
}

const NullableInstant = (description: string) => Nullable(Type.String({ format: 'date-time', description }));

export const Sink = defineResource({
  name: 'Sink',
  table: 'sinks',
  description:
    "A push destination of the workspace's audit trail and/or events. Its credential (a Splunk HEC token or " +
    'an Authorization header value) is never returned, not even when it is registered.',
  fields: {
    id: field(Uuid),
    kind: field(
      StringEnum(
        SinkKinds,
        '`http`: batched NDJSON POSTs (or the Splunk HTTP Event Collector envelope with `hec`); `syslog`: RFC ' +
          '5424 over TLS with octet-counting framing (RFC 6587).',
      ),
    ),
    description: field(Nullable(Type.String({ examples: ['SIEM'] }))),
    sources: field(Type.Array(StringEnum(SinkSources))),
    event_types: field(
      Nullable(
        Type.Array(StringEnum(EventTypes), {
          description: 'The event types delivered; null for every type (the opt-in ones included).',
        }),
      ),
    ),
    format: field(
      StringEnum(
        SinkFormats,
        '`native`: each record as the feed serves it (GET /v1/audit-logs, GET /v1/events); `ocsf`: as the ' +
          'feeds serve it with `format=ocsf` (OCSF 1.8.0).',
      ),
    ),
    url: field(
      Nullable(
        Type.String({
          description: 'The collector (http).',
          examples: ['https://splunk.acme.example:8088/services/collector/event'],
        }),
      ),
    ),
    hec: field(Type.Boolean({ description: 'Whether the http collector is a Splunk HTTP Event Collector.' })),
    host: field(
      Nullable(
        Type.String({ description: 'The syslog receiver (syslog).', examples: ['syslog.acme.example'] }),
      ),
    ),
    port: field(Nullable(Type.Integer({ minimum: 1, maximum: 65535, examples: [6514] }))),
    server_name: field(
      Nullable(
        Type.String({
          description: "The name checked in the receiver's certificate (syslog).",
          examples: ['syslog.acme.example'],
        }),
      ),
    ),
    ca: field(Nullable(PemText("The CA of the receiver's certificate (syslog).", {}))),
    has_credential: field(
      Type.Boolean({ description: 'Whether a credential is set; the credential itself is never returned.' }),
      { sql: '($t.credential is not null)' },
    ),
    enabled: field(
      Type.Boolean({
        description:
          'False while paused: by an operator, or by the service when its batches have all failed for ' +
          'WEBHOOK_DISABLE_AFTER. Re-enabling resumes from the position: nothing is skipped.',
      }),
    ),
    failing_since: field(
      NullableInstant(
        'When the current run of failed batches began; null after a delivery and after re-enabling.',
      ),
    ),
    audit_position: field(Nullable(Uuid), {
      sql: '$t.audit_id',
    }),
    audit_position_at: field(
      NullableInstant('`occurred_at` of the last audit entry the collector acknowledged.'),
      { sql: 'iso($t.audit_at)' },
    ),
    event_position: field(Nullable(Uuid), { sql: '$t.event_id' }),
    event_position_at: field(NullableInstant('`occurred_at` of the last event the collector acknowledged.'), {
      sql: 'iso($t.event_at)',
    }),
    created_at: field(DateTime),
    updated_at: field(DateTime),
  },
});

export const SinkDelivery = defineResource({
  name: 'SinkDelivery',
  table: 'sink_deliveries',
  description:
    'One attempt to send one batch to a sink: its first and last record (an audit entry id or an event_id), ' +
    'how many it held, and what came of it. A failed batch is sent again, from the same position, by the ' +
    'retry schedule: its next attempt starts with the same first record.',
  fields: {
    id: field(Uuid),
    sink_id: field(Uuid),
    first_id: field(Uuid),
    last_id: field(Uuid),
    count: field(Type.Integer({ minimum: 1 })),
    attempt: field(Type.Integer({ minimum: 1, description: '1 for the batch’s first send.' })),
    outcome: field(StringEnum(SinkOutcomes)),
    status: field(
      Nullable(
        Type.Integer({ description: "The collector's HTTP status (http); null otherwise.", examples: [200] }),
      ),
    ),
    error: field(
      Nullable(
        Type.String({
          description: 'Why the send failed, one line (never a credential); null when delivered.',
          examples: ['HTTP 503: only a 2xx acknowledges'],
        }),
      ),
    ),
    duration_ms: field(Type.Integer({ minimum: 0 })),
    created_at: field(DateTime),
  },
});

const Description = Nullable(Type.String({ maxLength: 500, pattern: WITHOUT_CONTROLS, examples: ['SIEM'] }));
// The same rules as a webhook URL (P105): what is stored is what is called.
const Url = Type.String({
  minLength: 1,
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  pattern: WITHOUT_CONTROLS,
  description:
    'The collector, https:// (http:// and private addresses only with WEBHOOK_ALLOW_INSECURE_URLS); stored in ' +
    'its normalised form. A Splunk HEC URL ends in /services/collector/event.',
  examples: ['https://splunk.acme.example:8088/services/collector/event'],
});
const Host = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9.:-]+$',
  description: 'A public host name or IP address (private ones only with WEBHOOK_ALLOW_INSECURE_URLS).',
  examples: ['syslog.acme.example'],
});
const Credential = Type.String({
  minLength: 1,
  maxLength: 4096,
  pattern: WITHOUT_CONTROLS,
  description:
    'Written, never read: with `hec`, the HEC token (sent as `Authorization: Splunk <token>`); otherwise the ' +
    'whole value of the Authorization header sent with each batch (e.g. `Bearer …`). http only.',
  examples: ['b7f3c2e4-4a9d-4f0e-9c1a-2d5e8f7a6b3c'],
});
const Sources = Type.Array(StringEnum(SinkSources), { minItems: 1, uniqueItems: true });
const EventTypeList = Nullable(
  Type.Array(StringEnum(EventTypes), {
    minItems: 1,
    uniqueItems: true,
    description: 'Only these event types (with the source `events`); null or absent for every type.',
  }),
);
const Pem = PemText("The CA of the receiver's certificate.", { minLength: 1, maxLength: 65536 });

/** What a sink's registration and its change may set: every kind's fields, judged against the kind (P204). */
const settable = {
  description: Type.Optional(Description),
  sources: Type.Optional(Sources),
  event_types: Type.Optional(EventTypeList),
  format: Type.Optional(StringEnum(SinkFormats, 'Default `native`.')),
  url: Type.Optional(Url),
  hec: Type.Optional(Type.Boolean({ description: 'Default false.' })),
  credential: Type.Optional(Nullable(Credential)),
  host: Type.Optional(Host),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  server_name: Type.Optional(Nullable(Host)),
  ca: Type.Optional(Nullable(Pem)),
};

export const SinkCreate = Type.Object(
  {
    kind: StringEnum(SinkKinds),
    ...settable,
    sources: Sources,
    start: Type.Optional(
      StringEnum(
        ['now', 'beginning'] as const,
        '`now` (default): the records that follow the registration, its own audit entry first; `beginning`: ' +
          'every record the logs still hold (events are kept for EVENT_RETENTION).',
      ),
    ),
  },
  { additionalProperties: false },
);
export const SinkPatch = Type.Object(
  { ...settable, enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
