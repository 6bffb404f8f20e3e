// Management of webhook endpoints (management-api.md) and the delivery operations of decision P30-P33:
// register, change and delete endpoints, rotate a signing secret with an overlap, replay one delivery or
// every failed delivery of an endpoint in a time range, read an endpoint's recent attempts, and send one
// endpoint a test event (P81).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { type TProperties, type TSchema, Type } from 'typebox';
import { generateSigningSecret } from '../../../sdk/src/signing.js';
import { conflict, notFound, validationFailed } from '../../contract/errors.js';
import { EVENT_CATALOGUE, type EventData, type EventType } from '../../contract/events.js';
import { normalizeWebhookUrl } from '../../events/address-policy.js';
import { DELIVERY_CHANNEL, storeEvent } from '../../events/outbox.js';
import { parseDuration } from '../../events/retry-schedule.js';
import { type Bucket, WEBHOOK_TEST_BUCKETS } from '../../http/rate-limit.js';
import { dataList, type Operator, one, requireWorkspace, systemActor } from '../../management/operations.js';
import { adminRoute } from '../../management/route.js';
import { listOf } from '../../management/schemas.js';
import { DateTime } from '../../schema/fields.js';
import { recordAudit } from '../../storage/audit.js';
import type { Queryable } from '../../storage/db.js';
import {
  EndpointReplay,
  SecretRotation,
  TestEventRequest,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointPatch,
} from './schema.js';

const endpointJson = WebhookEndpoint.json('t', { pii: true });
const TEST_EVENTS_PER_MINUTE = (WEBHOOK_TEST_BUCKETS[0] as Bucket).limit;
const deliveryJson = WebhookDelivery.json('t', { pii: true });
const DEFAULT_OVERLAP_MS = 24 * 3_600_000;
const MAX_OVERLAP_MS = 7 * 24 * 3_600_000;
/** Attempts shown by the admin listing of one endpoint (the public API pages through all of them). */
const RECENT_ATTEMPTS = 100;

const readEndpoint = (q: Queryable, id: string) =>
  one(q, `select ${endpointJson} as j from webhook_endpoints t where t.id = $1`, [id], 'webhook endpoint');

/** The endpoint JSON with a freshly issued secret, shown in this response only. */
const withSecret = (json: string, secret: string, extra = '') =>
  `${json.slice(0, -1)},"signing_secret":${JSON.stringify(secret)}${extra}}`;

/** The URL as stored and called (P105): normalised, or a 422 naming `url`. */
function storedUrl(op: Operator, url: string): string {
  const result = normalizeWebhookUrl(url, { allowInsecure: op.allowInsecureWebhookUrls });
  if (result.problem !== undefined) throw validationFailed({ url: result.problem });
  return result.href;
}

interface EndpointInput {
  url?: string;
  events?: string[];
  description?: string | null;
  enabled?: boolean;
}

export async function createWebhookEndpoint(
  op: Operator,
  workspaceId: string,
  input: Required<Pick<EndpointInput, 'url' | 'events'>> & EndpointInput,
): Promise<string> {
  const url = storedUrl(op, input.url);
  const id = randomUUID();
  const secret = generateSigningSecret();
  const json = await op.db.transaction(async (tx) => {
    await requireWorkspace(tx, workspaceId);
    await tx.query(
      `insert into webhook_endpoints (workspace_id, id, url, description, events, signing_secret)
       values ($1, $2, $3, $4, $5::text[], $6)`,
      [workspaceId, id, url, input.description ?? null, input.events, secret],
    );
    await recordAudit(tx, {
      ...systemActor(op, workspaceId),
      action: 'webhook_endpoint.created',
      targetType: 'webhook_endpoint',
      targetId: id,
      // Never the URL (its query may hold the receiver's token): audit:read does not see endpoints (P72).
      metadata: { events: input.events },
    });
    return readEndpoint(tx, id);
  });
  return withSecret(json, secret);
}

async function updateWebhookEndpoint(op: Operator, id: string, input: EndpointInput): Promise<string> {
  const url = input.url === undefined ? null : storedUrl(op, input.url);
  return op.db.transaction(async (tx) => {
    // Re-enabling starts afresh: the failures before the pause do not count towards disabling (P83).
    const [row] = await tx.query<{ workspace_id: string }>(
      `update webhook_endpoints set url = coalesce($2, url), events = coalesce($3::text[], events),
              description = case when $4::boolean then $5 else description end,
              enabled = coalesce($6, enabled), updated_at = now(),
              failing_since = case when $6 and not enabled then null else failing_since end
        where id = $1 returning workspace_id`,
      [
        id,
        url,
        input.events ?? null,
        'description' in input,
        input.description ?? null,
        input.enabled ?? null,
      ],
    );
    if (!row) throw notFound('webhook endpoint');
    await recordAudit(tx, {
      ...systemActor(op, row.workspace_id),
      action: 'webhook_endpoint.updated',
      targetType: 'webhook_endpoint',
      targetId: id,
      metadata: { changes: Object.keys(input) },
    });
    // Re-enabling releases attempts that came due while the endpoint was disabled.
    if (input.enabled === true) await tx.query('select pg_notify($1, $2)', [DELIVERY_CHANNEL, '']);
    return readEndpoint(tx, id);
  });
}

async function deleteWebhookEndpoint(op: Operator, id: string): Promise<void> {
  await op.db.transaction(async (tx) => {
    const [row] = await tx.query<{ workspace_id: string }>(
      'delete from webhook_endpoints where id = $1 returning workspace_id',
      [id],
    );
    if (!row) throw notFound('webhook endpoint');
    // Attempts not yet started will never be: drop them. Attempts made stay readable as history.
    await tx.query(
      `delete from webhook_deliveries where workspace_id = $1 and endpoint_id = $2 and status = 'pending'`,
      [row.workspace_id, id],
    );
    await recordAudit(tx, {
      ...systemActor(op, row.workspace_id),
      action: 'webhook_endpoint.deleted',
      targetType: 'webhook_endpoint',
      targetId: id,
    });
  });
}

async function rotateSigningSecret(op: Operator, id: string, input: { overlap?: string }): Promise<string> {
  const overlapMs = input.overlap === undefined ? DEFAULT_OVERLAP_MS : parseDuration(input.overlap);
  if (overlapMs > MAX_OVERLAP_MS) throw validationFailed({ overlap: 'must be at most 7 days (168h)' });
  const secret = generateSigningSecret();
  return op.db.transaction(async (tx) => {
    const [row] = await tx.query<{ workspace_id: string; expires: string }>(
      `update webhook_endpoints
          set previous_signing_secret = signing_secret, signing_secret = $2,
              previous_secret_expires_at = clock_timestamp() + $3 * interval '1 millisecond', updated_at = now()
        where id = $1
        returning workspace_id, iso(previous_secret_expires_at) as expires`,
      [id, secret, overlapMs],
    );
    if (!row) throw notFound('webhook endpoint');
    await recordAudit(tx, {
      ...systemActor(op, row.workspace_id),
      action: 'webhook_endpoint.secret_rotated',
      targetType: 'webhook_endpoint',
      targetId: id,
      metadata: { overlap_ms: overlapMs },
    });
    const json = await readEndpoint(tx, id);
    return withSecret(json, secret, `,"previous_secret_expires_at":${JSON.stringify(row.expires)}`);
  });
}

/**
 * Inserts, due now, the replay attempts chosen by `source` (rows of event_id, event_type, next_attempt over
 * $1 workspace and $2 endpoint), wakes the dispatchers, and returns the new attempts.
 */
async function insertReplays(tx: Queryable, source: string, params: unknown[]): Promise<string[]> {
  const rows = await tx.query<{ j: string }>(
    `insert into webhook_deliveries as t
            (workspace_id, id, endpoint_id, event_id, event_type, attempt, status, attempted_at, replay)
     select $1, gen_random_uuid(), $2, c.event_id, c.event_type, c.next_attempt, 'pending', clock_timestamp(), true
       from (${source}) c
     on conflict do nothing
     returning ${deliveryJson} as j`,
    params,
  );
  if (rows.length > 0) await tx.query('select pg_notify($1, $2)', [DELIVERY_CHANNEL, '']);
  return rows.map((row) => row.j);
}

async function endpointState(tx: Queryable, workspaceId: string, endpointId: string): Promise<void> {
  const [endpoint] = await tx.query<{ enabled: boolean }>(
    'select enabled from webhook_endpoints where workspace_id = $1 and id = $2',
    [workspaceId, endpointId],
  );
  if (!endpoint) {
    throw conflict('The endpoint of this delivery was deleted.', { reason: 'endpoint_deleted' });
  }
  if (!endpoint.enabled) {
    throw conflict('The endpoint is disabled: enable it before replaying.', { reason: 'endpoint_disabled' });
  }
}

/** The workspace of an endpoint that may be sent to now: 404 when there is none, 409 while it is disabled. */
async function sendableEndpoint(tx: Queryable, endpointId: string): Promise<string> {
  const [endpoint] = await tx.query<{ workspace_id: string }>(
    'select workspace_id from webhook_endpoints where id = $1',
    [endpointId],
  );
  if (!endpoint) throw notFound('webhook endpoint');
  await endpointState(tx, endpoint.workspace_id, endpointId);
  return endpoint.workspace_id;
}

async function replayDelivery(op: Operator, deliveryId: string): Promise<string> {
  return op.db.transaction(async (tx) => {
    const [source] = await tx.query<{
      workspace_id: string;
      endpoint_id: string;
      event_id: string;
      test: boolean;
    }>(
      `select d.workspace_id, d.endpoint_id, d.event_id, ev.test
         from webhook_deliveries d join events ev on ev.workspace_id = d.workspace_id and ev.id = d.event_id
        where d.id = $1`,
      [deliveryId],
    );
    if (!source) throw notFound('webhook delivery');
    // A test is one attempt (P81): sending its signed body again would be a second one that no throttle counts
    // (P109). A new test event is the way to try again.
    if (source.test)
      throw conflict('A test delivery is not replayed: send a new test event instead.', {
        reason: 'test_delivery',
      });
    await endpointState(tx, source.workspace_id, source.endpoint_id);
    // The next attempt number; none while an attempt of this event to this endpoint is still due or in
    // flight (a concurrent replay that won the number also lands here, through `on conflict do nothing`).
    const [replay] = await insertReplays(
      tx,
      `select d.event_id, d.event_type, max(d.attempt) + 1 as next_attempt
         from webhook_deliveries d
        where d.workspace_id = $1 and d.endpoint_id = $2 and d.event_id = $3
        group by d.event_id, d.event_type
       having not bool_or(d.status in ('pending', 'delivering'))`,
      [source.workspace_id, source.endpoint_id, source.event_id],
    );
    if (!replay) {
      throw conflict('This event is already being delivered to this endpoint.', {
        reason: 'delivery_in_progress',
      });
    }
    await recordAudit(tx, {
      ...systemActor(op, source.workspace_id),
      action: 'webhook_delivery.replayed',
      targetType: 'webhook_delivery',
      targetId: deliveryId,
      metadata: { event_id: source.event_id, endpoint_id: source.endpoint_id },
    });
    return replay;
  });
}

async function replayEndpoint(
  op: Operator,
  endpointId: string,
  input: { from: string; to?: string },
): Promise<string> {
  if (input.to !== undefined && Date.parse(input.to) < Date.parse(input.from)) {
    throw validationFailed({ to: 'must not be before from' });
  }
  return op.db.transaction(async (tx) => {
    const workspaceId = await sendableEndpoint(tx, endpointId);
    // Every event whose delivery failed in the range (an attempt failed or exhausted then) and that is
    // neither delivered since nor still due or in flight; never a test event (P109).
    const replays = await insertReplays(
      tx,
      `select d.event_id, d.event_type, max(d.attempt) + 1 as next_attempt
         from webhook_deliveries d
         join events ev on ev.workspace_id = d.workspace_id and ev.id = d.event_id and not ev.test
        where d.workspace_id = $1 and d.endpoint_id = $2
        group by d.event_id, d.event_type
       having bool_or(d.status in ('failed', 'exhausted') and d.attempted_at >= $3::timestamptz
                      and ($4::timestamptz is null or d.attempted_at <= $4::timestamptz))
          and not bool_or(d.status in ('pending', 'delivering', 'delivered'))`,
      [workspaceId, endpointId, input.from, input.to ?? null],
    );
    await recordAudit(tx, {
      ...systemActor(op, workspaceId),
      action: 'webhook_endpoint.deliveries_replayed',
      targetType: 'webhook_endpoint',
      targetId: endpointId,
      metadata: { from: input.from, to: input.to ?? null, replayed: replays.length },
    });
    return `{"replayed":${replays.length},"data":[${replays.join(',')}]}`;
  });
}

/**
 * A payload's `data` for a test event (P81), from the event's own schema: the first value of each enumeration,
 * the nil uuid for each id (no record of the workspace is named), so it validates like a real one.
 */
function exampleValue(schema: TSchema): unknown {
  const s = schema as TSchema & {
    enum?: unknown[];
    anyOf?: TSchema[];
    format?: string;
    properties?: TProperties;
  };
  if (s.enum) return s.enum[0];
  if (s.anyOf)
    return exampleValue(s.anyOf.find((branch) => (branch as { type?: string }).type !== 'null') ?? s);
  if (s.properties)
    return Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, exampleValue(v)]));
  if (s.format === 'uuid') return NIL_UUID;
  throw new Error(`no example for schema ${JSON.stringify(schema)}`);
}
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

async function sendTestEvent(
  op: Operator,
  endpointId: string,
  input: { event_type: EventType },
): Promise<string> {
  return op.db.transaction(async (tx) => {
    const workspaceId = await sendableEndpoint(tx, endpointId);
    const data = exampleValue(EVENT_CATALOGUE[input.event_type].data) as EventData<EventType>;
    const event = await storeEvent(tx, workspaceId, input.event_type, data, { test: true });
    const [attempt] = await tx.query<{ j: string }>(
      `insert into webhook_deliveries as t
              (workspace_id, id, endpoint_id, event_id, event_type, attempt, status, attempted_at)
       values ($1, gen_random_uuid(), $2, $3, $4, 1, 'pending', clock_timestamp())
       returning ${deliveryJson} as j`,
      [workspaceId, endpointId, event.id, input.event_type],
    );
    await tx.query('select pg_notify($1, $2)', [DELIVERY_CHANNEL, '']);
    await recordAudit(tx, {
      ...systemActor(op, workspaceId),
      action: 'webhook_endpoint.test_sent',
      targetType: 'webhook_endpoint',
      targetId: endpointId,
      metadata: { event_type: input.event_type, event_id: event.id },
    });
    return (attempt as { j: string }).j;
  });
}

async function listEndpoints(q: Queryable, workspaceId: string): Promise<string> {
  await requireWorkspace(q, workspaceId);
  const rows = await q.query<{ j: string }>(
    `select ${endpointJson} as j from webhook_endpoints t where t.workspace_id = $1
      order by t.created_at desc, t.id desc`,
    [workspaceId],
  );
  return dataList(rows);
}

async function recentAttempts(q: Queryable, endpointId: string): Promise<string> {
  const [endpoint] = await q.query<{ workspace_id: string }>(
    'select workspace_id from webhook_endpoints where id = $1',
    [endpointId],
  );
  if (!endpoint) throw notFound('webhook endpoint');
  const rows = await q.query<{ j: string }>(
    `select ${deliveryJson} as j from webhook_deliveries t
      where t.workspace_id = $1 and t.endpoint_id = $2
      order by t.created_at desc, t.id desc limit ${RECENT_ATTEMPTS}`,
    [endpoint.workspace_id, endpointId],
  );
  return dataList(rows);
}

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

export const webhooksAdmin = {
  createWebhookEndpoint: adminRoute({
    method: 'POST',
    url: '/workspaces/:id/webhook-endpoints',
    tag: TAG,
    summary: 'Register a webhook endpoint (its signing secret is shown in this response only)',
    status: 201,
    body: WebhookEndpointCreate,
    response: EndpointWithSecret('WebhookEndpointWithSecret'),
    errors: [404, 422],
    handler: ({ op }, { params, body }) => createWebhookEndpoint(op, params.id, body),
  }),
  listWebhookEndpoints: adminRoute({
    method: 'GET',
    url: '/workspaces/:id/webhook-endpoints',
    tag: TAG,
    summary: "List a workspace's webhook endpoints, newest first (no secrets)",
    status: 200,
    response: listOf(WebhookEndpoint.schema),
    errors: [404],
    handler: ({ op }, { params }) => listEndpoints(op.db, params.id),
  }),
  getWebhookEndpoint: adminRoute({
    method: 'GET',
    url: '/webhook-endpoints/:id',
    tag: TAG,
    summary: 'Get a webhook endpoint (no secret)',
    status: 200,
    response: WebhookEndpoint.schema,
    errors: [404],
    handler: ({ op }, { params }) => readEndpoint(op.db, params.id),
  }),
  updateWebhookEndpoint: adminRoute({
    method: 'PATCH',
    url: '/webhook-endpoints/:id',
    tag: TAG,
    summary: "Change an endpoint's URL, events, description or enabled flag",
    status: 200,
    body: WebhookEndpointPatch,
    response: WebhookEndpoint.schema,
    errors: [404, 422],
    handler: ({ op }, { params, body }) => updateWebhookEndpoint(op, params.id, body),
  }),
  deleteWebhookEndpoint: adminRoute({
    method: 'DELETE',
    url: '/webhook-endpoints/:id',
    tag: TAG,
    summary: 'Delete an endpoint and its delivery history',
    status: 204,
    errors: [404],
    handler: async ({ op }, { params }) => {
      await deleteWebhookEndpoint(op, params.id);
      return undefined;
    },
  }),
  rotateWebhookSecret: adminRoute({
    method: 'POST',
    url: '/webhook-endpoints/:id/rotate-secret',
    tag: TAG,
    summary: 'Issue a new signing secret; the old one keeps signing during the overlap',
    status: 200,
    body: SecretRotation,
    response: EndpointWithSecret('WebhookEndpointRotated', { previous_secret_expires_at: DateTime }),
    errors: [404, 422],
    handler: ({ op }, { params, body }) => rotateSigningSecret(op, params.id, body),
  }),
  replayWebhookEndpoint: adminRoute({
    method: 'POST',
    url: '/webhook-endpoints/:id/replay',
    tag: TAG,
    summary: 'Deliver again every event whose delivery failed in a time range',
    description:
      'One new attempt per event that has an attempt `failed` or `exhausted` in the range and is neither ' +
      'delivered since nor still due or in flight, with its original `event_id` and body. Test events are ' +
      'not replayed.',
    status: 200,
    body: EndpointReplay,
    response: Type.Object(
      { replayed: Type.Integer({ minimum: 0 }), data: Type.Array(WebhookDelivery.schema) },
      { additionalProperties: false, title: 'EndpointReplayResult' },
    ),
    errors: [404, 409, 422],
    handler: ({ op }, { params, body }) => replayEndpoint(op, params.id, body),
  }),
  listWebhookEndpointDeliveries: adminRoute({
    method: 'GET',
    url: '/webhook-endpoints/:id/deliveries',
    tag: TAG,
    summary: `The endpoint's ${RECENT_ATTEMPTS} most recent delivery attempts`,
    status: 200,
    response: listOf(WebhookDelivery.schema),
    errors: [404],
    handler: ({ op }, { params }) => recentAttempts(op.db, params.id),
  }),
  sendWebhookTestEvent: adminRoute({
    method: 'POST',
    url: '/webhook-endpoints/:id/test',
    tag: TAG,
    summary: 'Send a signed test event of any type to this endpoint alone, now',
    description:
      "The payload has the event type's shape, with the workspace as `organization_id` and the nil uuid for " +
      'every id in `data`. One attempt, due at once, listed with `test: true`; never retried, never sent to ' +
      "another endpoint, not counted in the metrics and no part of the endpoint's failing state, and never " +
      'replayed. 409 `endpoint_disabled` while the endpoint is disabled. At most ' +
      `${TEST_EVENTS_PER_MINUTE} a minute per endpoint (429 with \`Retry-After\`).`,
    status: 201,
    body: TestEventRequest,
    response: WebhookDelivery.schema,
    limit: {
      buckets: 'webhookTests',
      message: 'Too many test events to this endpoint. Retry after the number of seconds in Retry-After.',
      description:
        `At most ${TEST_EVENTS_PER_MINUTE} test events are sent to one endpoint per minute of the clock, ` +
        'across every process of the service; a refused request is not counted. Wait `Retry-After` seconds.',
    },
    errors: [404, 409, 422],
    handler: ({ op }, { params, body }) => sendTestEvent(op, params.id, body),
  }),
  replayWebhookDelivery: adminRoute({
    method: 'POST',
    url: '/webhook-deliveries/:id/replay',
    tag: TAG,
    summary: 'Deliver one event again to the endpoint of this attempt',
    description:
      'A new attempt with the original `event_id` and body, due at once and not retried. 409 ' +
      '`delivery_in_progress` while an attempt of the event to the endpoint is due or in flight, ' +
      '`endpoint_disabled` or `endpoint_deleted`, and `test_delivery` for an attempt of a test event ' +
      '(send a new test event instead).',
    status: 201,
    response: WebhookDelivery.schema,
    errors: [404, 409],
    handler: ({ op }, { params }) => replayDelivery(op, params.id),
  }),
};
