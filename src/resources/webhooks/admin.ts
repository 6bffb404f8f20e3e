// The handlers of the webhook endpoints' operations on the management listener (contracts in lifecycle.ts):
// register, change and delete endpoints, rotate a signing secret with an overlap, replay one delivery or
// every failed delivery of an endpoint in a time range, read an endpoint's recent attempts, and send one
// endpoint a test event (P81).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import type { TProperties, TSchema } from 'typebox';
import { generateSigningSecret } from '../../../sdk/src/signing.js';
import { conflict, notFound, validationFailed } from '../../contract/errors.js';
import { EVENT_CATALOGUE, type EventData, type EventType } from '../../contract/events.js';
import { normalizeWebhookUrl } from '../../events/address-policy.js';
import { DELIVERY_CHANNEL } from '../../events/outbox.js';
import { parseDuration } from '../../events/retry-schedule.js';
import { fetchPage, type ListQuery, NEWEST_FIRST } from '../../http/list.js';
import type { OperatorContext, OperatorHandlers } from '../../http/operator.js';
import { cursorBinding } from '../../http/pagination.js';
import type { Locator } from '../../storage/operator.js';
import type { TenantDb } from '../../storage/tenant.js';
import { RECENT_ATTEMPTS, type webhooksLifecycle } from './lifecycle.js';
import { WebhookDelivery, WebhookEndpoint } from './schema.js';

const endpointJson = WebhookEndpoint.json('t', { pii: true });
const deliveryJson = WebhookDelivery.json('t', { pii: true });
const DEFAULT_OVERLAP_MS = 24 * 3_600_000;
const MAX_OVERLAP_MS = 7 * 24 * 3_600_000;

const endpoint = (id: string): Locator => ({ table: 'webhook_endpoints', id, what: 'webhook endpoint' });

async function readEndpoint(tenant: TenantDb, id: string): Promise<string> {
  const [row] = await tenant.query<{ j: string }>(
    `select ${endpointJson} as j from webhook_endpoints t where t.workspace_id = $ws and t.id = $1`,
    [id],
  );
  if (!row) throw notFound('webhook endpoint');
  return row.j;
}

/** An endpoint's attempts, newest first, by the filters of the admin listing (P167). */
const DELIVERIES: ListQuery = {
  resource: WebhookDelivery,
  filters: {
    endpoint_id: 't.endpoint_id = ?::uuid',
    status: 't.status = ?',
    event_type: 't.event_type = ?',
    from: 't.attempted_at >= ?::timestamptz',
  },
  order: NEWEST_FIRST,
};

/** An admin listing: the records' JSON under `data`, in the order of the rows. */
const dataList = (rows: readonly { j: string }[]): string =>
  `{"data":[${rows.map((row) => row.j).join(',')}]}`;

/** Wakes the dispatchers, at commit, for attempts that came due. */
const wakeDispatchers = (tenant: TenantDb) =>
  tenant.query(`select pg_notify($1, '') from workspaces where id = $ws`, [DELIVERY_CHANNEL]);

/** The endpoint JSON with a freshly issued secret, shown in this response only. */
const withSecret = (json: string, secret: string, extra = '') =>
  `${json.slice(0, -1)},"signing_secret":${JSON.stringify(secret)}${extra}}`;

/** The URL as stored and called (P105): normalised, or a 422 naming `url`. */
function storedUrl(ctx: OperatorContext, url: string): string {
  const result = normalizeWebhookUrl(url, { allowInsecure: ctx.allowInsecureWebhookUrls });
  if (result.problem !== undefined) throw validationFailed({ url: result.problem });
  return result.href;
}

/**
 * Inserts, due now, the replay attempts chosen by `source` (rows of event_id, event_type, next_attempt over
 * the workspace `$ws` and the endpoint $1), wakes the dispatchers, and returns the new attempts.
 */
async function insertReplays(tenant: TenantDb, source: string, params: unknown[]): Promise<string[]> {
  const rows = await tenant.query<{ j: string }>(
    `insert into webhook_deliveries as t
            (workspace_id, id, endpoint_id, event_id, event_type, attempt, status, attempted_at, replay)
     select $ws, gen_random_uuid(), $1, c.event_id, c.event_type, c.next_attempt, 'pending', clock_timestamp(), true
       from (${source}) c
     on conflict do nothing
     returning ${deliveryJson} as j`,
    params,
  );
  if (rows.length > 0) await wakeDispatchers(tenant);
  return rows.map((row) => row.j);
}

/** 409 when the endpoint may not be sent to now: deleted, or disabled. */
async function endpointState(tenant: TenantDb, endpointId: string): Promise<void> {
  const [found] = await tenant.query<{ enabled: boolean }>(
    'select enabled from webhook_endpoints where workspace_id = $ws and id = $1',
    [endpointId],
  );
  if (!found) {
    throw conflict('The endpoint of this delivery was deleted.', { reason: 'endpoint_deleted' });
  }
  if (!found.enabled) {
    throw conflict('The endpoint is disabled: enable it before replaying.', { reason: 'endpoint_disabled' });
  }
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
  if ((s as { type?: string }).type === 'integer') return 0;
  throw new Error(`no example for schema ${JSON.stringify(schema)}`);
}
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export const webhooksAdmin: OperatorHandlers<typeof webhooksLifecycle> = {
  createWebhookEndpoint: async (ctx, { params, body: input }) => {
    const url = storedUrl(ctx, input.url);
    const id = randomUUID();
    const secret = generateSigningSecret();
    const json = await ctx.write(params.id, async ({ tenant, audit }) => {
      await tenant.query(
        `insert into webhook_endpoints (workspace_id, id, url, description, events, signing_secret)
         values ($ws, $1, $2, $3, $4::text[], $5)`,
        [id, url, input.description ?? null, input.events, secret],
      );
      // Never the URL (its query may hold the receiver's token): audit:read does not see endpoints (P72).
      await audit('webhook_endpoint.created', { type: 'webhook_endpoint', id }, { events: input.events });
      return readEndpoint(tenant, id);
    });
    return withSecret(json, secret);
  },

  listWebhookEndpoints: async (ctx, { params }) => {
    const tenant = await ctx.read(params.id);
    const rows = await tenant.query<{ j: string }>(
      `select ${endpointJson} as j from webhook_endpoints t where t.workspace_id = $ws
        order by t.created_at desc, t.id desc`,
    );
    return dataList(rows);
  },

  getWebhookEndpoint: async (ctx, { params: { id } }) => readEndpoint(await ctx.read(endpoint(id)), id),

  updateWebhookEndpoint: (ctx, { params: { id }, body: input }) => {
    const url = input.url === undefined ? null : storedUrl(ctx, input.url);
    return ctx.write(endpoint(id), async ({ tenant, audit }) => {
      // Re-enabling starts afresh: the failures before the pause do not count towards disabling (P83).
      const rows = await tenant.query(
        `update webhook_endpoints set url = coalesce($2, url), events = coalesce($3::text[], events),
                description = case when $4::boolean then $5 else description end,
                enabled = coalesce($6, enabled), updated_at = now(),
                failing_since = case when $6 and not enabled then null else failing_since end
          where workspace_id = $ws and id = $1 returning id`,
        [
          id,
          url,
          input.events ?? null,
          'description' in input,
          input.description ?? null,
          input.enabled ?? null,
        ],
      );
      if (rows.length === 0) throw notFound('webhook endpoint');
      await audit(
        'webhook_endpoint.updated',
        { type: 'webhook_endpoint', id },
        { changes: Object.keys(input) },
      );
      // Re-enabling releases attempts that came due while the endpoint was disabled.
      if (input.enabled === true) await wakeDispatchers(tenant);
      return readEndpoint(tenant, id);
    });
  },

  deleteWebhookEndpoint: async (ctx, { params: { id } }) => {
    await ctx.write(endpoint(id), async ({ tenant, audit }) => {
      const rows = await tenant.query(
        'delete from webhook_endpoints where workspace_id = $ws and id = $1 returning id',
        [id],
      );
      if (rows.length === 0) throw notFound('webhook endpoint');
      // Attempts not yet started will never be: drop them. Attempts made stay readable as history.
      await tenant.query(
        `delete from webhook_deliveries where workspace_id = $ws and endpoint_id = $1 and status = 'pending'`,
        [id],
      );
      await audit('webhook_endpoint.deleted', { type: 'webhook_endpoint', id });
    });
    return undefined;
  },

  rotateWebhookSecret: (ctx, { params: { id }, body: input }) => {
    const overlapMs = input.overlap === undefined ? DEFAULT_OVERLAP_MS : parseDuration(input.overlap);
    if (overlapMs > MAX_OVERLAP_MS) throw validationFailed({ overlap: 'must be at most 7 days (168h)' });
    const secret = generateSigningSecret();
    return ctx.write(endpoint(id), async ({ tenant, audit }) => {
      const [row] = await tenant.query<{ expires: string }>(
        `update webhook_endpoints
            set previous_signing_secret = signing_secret, signing_secret = $2,
                previous_secret_expires_at = clock_timestamp() + $3 * interval '1 millisecond', updated_at = now()
          where workspace_id = $ws and id = $1
          returning iso(previous_secret_expires_at) as expires`,
        [id, secret, overlapMs],
      );
      if (!row) throw notFound('webhook endpoint');
      await audit(
        'webhook_endpoint.secret_rotated',
        { type: 'webhook_endpoint', id },
        { overlap_ms: overlapMs },
      );
      const json = await readEndpoint(tenant, id);
      return withSecret(json, secret, `,"previous_secret_expires_at":${JSON.stringify(row.expires)}`);
    });
  },

  replayWebhookEndpoint: (ctx, { params: { id }, body: input }) => {
    if (input.to !== undefined && Date.parse(input.to) < Date.parse(input.from)) {
      throw validationFailed({ to: 'must not be before from' });
    }
    return ctx.write(endpoint(id), async ({ tenant, audit }) => {
      await endpointState(tenant, id);
      // Every event whose delivery failed in the range (an attempt failed or exhausted then) and that is
      // neither delivered since nor still due or in flight; never a test event (P109).
      const replays = await insertReplays(
        tenant,
        `select d.event_id, d.event_type, max(d.attempt) + 1 as next_attempt
           from webhook_deliveries d
           join events ev on ev.workspace_id = d.workspace_id and ev.id = d.event_id and not ev.test
          where d.workspace_id = $ws and d.endpoint_id = $1
          group by d.event_id, d.event_type
         having bool_or(d.status in ('failed', 'exhausted') and d.attempted_at >= $2::timestamptz
                        and ($3::timestamptz is null or d.attempted_at <= $3::timestamptz))
            and not bool_or(d.status in ('pending', 'delivering', 'delivered'))`,
        [id, input.from, input.to ?? null],
      );
      await audit(
        'webhook_endpoint.deliveries_replayed',
        { type: 'webhook_endpoint', id },
        { from: input.from, to: input.to ?? null, replayed: replays.length },
      );
      return `{"replayed":${replays.length},"data":[${replays.join(',')}]}`;
    });
  },

  listWebhookEndpointDeliveries: async (ctx, { params: { id }, query }) => {
    const tenant = await ctx.read(endpoint(id));
    // The cursor is bound to the endpoint and the filters (P167): another endpoint or filter is a 400.
    const binding = cursorBinding(tenant.workspaceId, `listWebhookEndpointDeliveries:${id}`, query);
    const page = await fetchPage(tenant, DELIVERIES, {
      query: { ...query, endpoint_id: id },
      after: query.cursor ? ctx.cursors.decode(binding, query.cursor) : null,
      limit: query.limit ?? RECENT_ATTEMPTS,
      pii: true,
    });
    const next = page.hasMore && page.last ? ctx.cursors.encode(binding, page.last) : null;
    return `{"data":[${page.items}],"next_cursor":${JSON.stringify(next)}}`;
  },

  sendWebhookTestEvent: (ctx, { params: { id }, body: input }) =>
    ctx.write(endpoint(id), async ({ tenant, audit, testEvent }) => {
      await endpointState(tenant, id);
      const data = exampleValue(EVENT_CATALOGUE[input.event_type].data) as EventData<EventType>;
      const event = await testEvent(input.event_type, data);
      const [attempt] = await tenant.query<{ j: string }>(
        `insert into webhook_deliveries as t
                (workspace_id, id, endpoint_id, event_id, event_type, attempt, status, attempted_at)
         values ($ws, gen_random_uuid(), $1, $2, $3, 1, 'pending', clock_timestamp())
         returning ${deliveryJson} as j`,
        [id, event.id, input.event_type],
      );
      await wakeDispatchers(tenant);
      await audit(
        'webhook_endpoint.test_sent',
        { type: 'webhook_endpoint', id },
        { event_type: input.event_type, event_id: event.id },
      );
      return (attempt as { j: string }).j;
    }),

  replayWebhookDelivery: (ctx, { params: { id } }) =>
    ctx.write({ table: 'webhook_deliveries', id, what: 'webhook delivery' }, async ({ tenant, audit }) => {
      const [source] = await tenant.query<{ endpoint_id: string; event_id: string; test: boolean }>(
        `select d.endpoint_id, d.event_id, ev.test
           from webhook_deliveries d join events ev on ev.workspace_id = d.workspace_id and ev.id = d.event_id
          where d.workspace_id = $ws and d.id = $1`,
        [id],
      );
      if (!source) throw notFound('webhook delivery');
      // A test is one attempt (P81): sending its signed body again would be a second one that no throttle
      // counts (P109). A new test event is the way to try again.
      if (source.test)
        throw conflict('A test delivery is not replayed: send a new test event instead.', {
          reason: 'test_delivery',
        });
      await endpointState(tenant, source.endpoint_id);
      // The next attempt number; none while an attempt of this event to this endpoint is still due or in
      // flight (a concurrent replay that won the number also lands here, through `on conflict do nothing`).
      const [replay] = await insertReplays(
        tenant,
        `select d.event_id, d.event_type, max(d.attempt) + 1 as next_attempt
           from webhook_deliveries d
          where d.workspace_id = $ws and d.endpoint_id = $1 and d.event_id = $2
          group by d.event_id, d.event_type
         having not bool_or(d.status in ('pending', 'delivering'))`,
        [source.endpoint_id, source.event_id],
      );
      if (!replay) {
        throw conflict('This event is already being delivered to this endpoint.', {
          reason: 'delivery_in_progress',
        });
      }
      await audit(
        'webhook_delivery.replayed',
        { type: 'webhook_delivery', id },
        { event_id: source.event_id, endpoint_id: source.endpoint_id },
      );
      return replay;
    }),
};
