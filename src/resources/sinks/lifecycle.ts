// Sinks on the management listener (docs/decisions.md P203-P219): register, list, read, change and delete a
// workspace's push destinations, and read a sink's delivery log. Contracts only; the handlers are admin.ts.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { operation, operator } from '../../contract/operation.js';
import { created, INVALID_FIELD, listOf, NO_CONTENT, NO_RECORD, ok } from '../../contract/operator.js';
import { Nullable, SinkOutcomes, StringEnum } from '../../schema/fields.js';
import { Sink, SinkCreate, SinkDelivery, SinkPatch } from './schema.js';

/** Batch attempts a page of a sink's delivery log holds by default, and at most. */
export const RECENT_SINK_DELIVERIES = 100;
const MAX_SINK_DELIVERIES_PAGE = 500;

const SinkDeliveriesQuery = Type.Object(
  {
    outcome: Type.Optional(StringEnum(SinkOutcomes, 'Only attempts with this outcome.')),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_SINK_DELIVERIES_PAGE,
        default: RECENT_SINK_DELIVERIES,
        description: `Attempts per page, 1 to ${MAX_SINK_DELIVERIES_PAGE} (default ${RECENT_SINK_DELIVERIES}).`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: "The previous page's `next_cursor`: the attempts after its last one. Opaque.",
      }),
    ),
  },
  { additionalProperties: false },
);

const SinkDeliveriesPage = Type.Object(
  {
    data: Type.Array(SinkDelivery.schema),
    next_cursor: Nullable(
      Type.String({
        description: 'Pass as `cursor` for the next page; null on the last page.',
        examples: ['WyIyMDI1LTA2LTAxVDA5OjAwOjAwLjAwMDAwMFoiLCI0YjJmIl0.Qm9vdHN0cmFwcGVkQ3Vyc29y'],
      }),
    ),
  },
  { additionalProperties: false, title: 'SinkDeliveryPage' },
);

const TAG = 'Sinks';

export const createSink = operation({
  id: 'createSink',
  method: 'POST',
  path: '/workspaces/:id/sinks',
  auth: operator(),
  tag: TAG,
  summary: 'Register a sink that receives the audit trail and/or the events (its credential is never shown)',
  description:
    '`http` needs `url` (`hec` for a Splunk HTTP Event Collector, `credential` for its token or for an ' +
    'Authorization header value); `syslog` needs `host` and `port` (`ca`, `server_name` for its TLS). The ' +
    'address policy of webhooks applies: https:// and public addresses only, unless ' +
    'WEBHOOK_ALLOW_INSECURE_URLS (422 naming the field).',
  body: SinkCreate,
  responses: { 201: created(Sink.schema), 404: NO_RECORD, 422: INVALID_FIELD },
});

export const listSinks = operation({
  id: 'listSinks',
  method: 'GET',
  path: '/workspaces/:id/sinks',
  auth: operator(),
  tag: TAG,
  summary: "List a workspace's sinks, newest first (no credentials)",
  responses: { 200: ok(listOf(Sink.schema)), 404: NO_RECORD },
});

export const getSink = operation({
  id: 'getSink',
  method: 'GET',
  path: '/sinks/:id',
  auth: operator(),
  tag: TAG,
  summary: 'Get a sink and its positions (no credential)',
  responses: { 200: ok(Sink.schema), 404: NO_RECORD },
});

export const updateSink = operation({
  id: 'updateSink',
  method: 'PATCH',
  path: '/sinks/:id',
  auth: operator(),
  tag: TAG,
  summary: "Change a sink's target, sources, format, credential or enabled flag (its position stays)",
  body: SinkPatch,
  responses: { 200: ok(Sink.schema), 404: NO_RECORD, 422: INVALID_FIELD },
});

export const deleteSink = operation({
  id: 'deleteSink',
  method: 'DELETE',
  path: '/sinks/:id',
  auth: operator(),
  tag: TAG,
  summary: 'Delete a sink and its delivery log',
  responses: { 204: NO_CONTENT, 404: NO_RECORD },
});

export const listSinkDeliveries = operation({
  id: 'listSinkDeliveries',
  method: 'GET',
  path: '/sinks/:id/deliveries',
  auth: operator(),
  tag: TAG,
  summary: "The sink's delivery log: one row per batch attempt, newest first, paged",
  description:
    `Newest first by \`created_at\`, then \`id\`; ${RECENT_SINK_DELIVERIES} a page unless \`limit\` says ` +
    'otherwise. `outcome` narrows the list; `next_cursor` continues it with the same filter.',
  query: SinkDeliveriesQuery,
  responses: { 200: ok(SinkDeliveriesPage), 404: NO_RECORD },
});

export const sinksLifecycle = {
  createSink,
  listSinks,
  getSink,
  updateSink,
  deleteSink,
  listSinkDeliveries,
};
