// The handlers of the sinks' operations on the management listener (contracts in lifecycle.ts): a sink's
// target is judged by the webhooks' address policy at registration and at each change (P211), its credential is
// stored and never read back (P206), and a new sink starts at the end of the logs or at their beginning (P207).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import type { Static } from 'typebox';
import { notFound, validationFailed } from '../../contract/errors.js';
import { checkTargetHost, normalizeWebhookUrl } from '../../events/address-policy.js';
import { fetchPage, type ListQuery, NEWEST_FIRST } from '../../http/list.js';
import type { OperatorContext, OperatorHandlers } from '../../http/operator.js';
import { cursorBinding } from '../../http/pagination.js';
import type { Locator } from '../../storage/operator.js';
import type { TenantDb } from '../../storage/tenant.js';
import { RECENT_SINK_DELIVERIES, type sinksLifecycle } from './lifecycle.js';
import { Sink, type SinkCreate, SinkDelivery, type SinkPatch } from './schema.js';

const sinkJson = Sink.json('t', { pii: true });

const sink = (id: string): Locator => ({ table: 'sinks', id, what: 'sink' });

async function readSink(tenant: TenantDb, id: string): Promise<string> {
  const [row] = await tenant.query<{ j: string }>(
    `select ${sinkJson} as j from sinks t where t.workspace_id = $ws and t.id = $1`,
    [id],
  );
  if (!row) throw notFound('sink');
  return row.j;
}

const DELIVERIES: ListQuery = {
  resource: SinkDelivery,
  filters: { sink_id: 't.sink_id = ?::uuid', outcome: 't.outcome = ?' },
  order: NEWEST_FIRST,
};

/** The fields of each kind's target; the others may not be given (P204). */
const KIND_FIELDS = {
  http: ['url', 'hec', 'credential'],
  syslog: ['host', 'port', 'server_name', 'ca'],
} as const;

type Settable = Omit<Static<typeof SinkPatch>, 'enabled'>;

/** What says where and how a sink sends: a change of any makes its next batch due at once (P247). */
const DELIVERY_SETTINGS: readonly (keyof Settable)[] = [...KIND_FIELDS.http, ...KIND_FIELDS.syslog, 'format'];

/** A sink as stored: what a change is judged against. */
interface StoredSink {
  kind: 'http' | 'syslog';
  sources: string[];
  event_types: string[] | null;
}

/**
 * The columns a registration or a change sets, judged against the sink's kind and its sources as they will be:
 * a field of the other kind, a missing target, a target the address policy refuses (P211) or event types for a
 * sink that does not follow the events are each a 422 naming the field.
 */
function columnsOf(ctx: OperatorContext, input: Settable, sinkAsWillBe: StoredSink, creating: boolean) {
  const problems: Record<string, string> = {};
  const { kind } = sinkAsWillBe;
  const other = kind === 'http' ? KIND_FIELDS.syslog : KIND_FIELDS.http;
  for (const name of other)
    if (input[name] !== undefined) problems[name] = `is not a field of a ${kind} sink`;
  const required = kind === 'http' ? (['url'] as const) : (['host', 'port'] as const);
  if (creating)
    for (const name of required)
      if (input[name] === undefined) problems[name] = `is required for a ${kind} sink`;
  const allowInsecure = ctx.allowInsecureWebhookUrls;
  let url: string | undefined;
  if (input.url !== undefined) {
    const result = normalizeWebhookUrl(input.url, { allowInsecure });
    if (result.problem !== undefined) problems.url = result.problem;
    else url = result.href;
  }
  const hostProblem = input.host === undefined ? null : checkTargetHost(input.host, { allowInsecure });
  if (hostProblem) problems.host = hostProblem;
  if (sinkAsWillBe.event_types !== null && !sinkAsWillBe.sources.includes('events'))
    problems.event_types = 'needs the source `events`';
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
  return { ...input, url };
}

export const sinksAdmin: OperatorHandlers<typeof sinksLifecycle> = {
  createSink: async (ctx, { params, body }) => {
    const input = body as Static<typeof SinkCreate>;
    const { kind, start, ...settable } = input;
    const columns = columnsOf(
      ctx,
      settable,
      { kind, sources: input.sources, event_types: input.event_types ?? null },
      true,
    );
    const id = randomUUID();
    return ctx.write(params.id, async ({ tenant, audit }) => {
      // `now`: the position is the logs' last record, read before this registration's own audit entry, which
      // is then the first record the sink delivers (P207).
      await tenant.query(
        `insert into sinks (workspace_id, id, kind, description, sources, event_types, format, url, hec, host,
                            port, server_name, ca, credential, audit_at, audit_id, event_at, event_id)
         select $ws, $1, $2, $3, $4::text[], $5::text[], $6, $7, $8, $9, $10, $11, $12, $13,
                a.occurred_at, a.id, e.occurred_at, e.id
           from (select 1) one
           left join lateral (select occurred_at, id from audit_logs where workspace_id = $ws
                               order by occurred_at desc, id desc limit 1) a on $14
           left join lateral (select occurred_at, id from event_log where workspace_id = $ws
                               order by occurred_at desc, id desc limit 1) e on $14`,
        [
          id,
          kind,
          columns.description ?? null,
          columns.sources,
          columns.event_types ?? null,
          columns.format ?? 'native',
          columns.url ?? null,
          columns.hec ?? false,
          columns.host ?? null,
          columns.port ?? null,
          columns.server_name ?? null,
          columns.ca ?? null,
          columns.credential ?? null,
          (start ?? 'now') === 'now',
        ],
      );
      // Never the target nor the credential: audit:read does not see sinks (P72).
      await audit(
        'sink.created',
        { type: 'sink', id },
        { kind, sources: columns.sources, format: columns.format ?? 'native', start: start ?? 'now' },
      );
      return readSink(tenant, id);
    });
  },

  listSinks: async (ctx, { params }) => {
    const tenant = await ctx.read(params.id);
    const rows = await tenant.query<{ j: string }>(
      `select ${sinkJson} as j from sinks t where t.workspace_id = $ws order by t.created_at desc, t.id desc`,
    );
    return `{"data":[${rows.map((row) => row.j).join(',')}]}`;
  },

  getSink: async (ctx, { params: { id } }) => readSink(await ctx.read(sink(id)), id),

  updateSink: (ctx, { params: { id }, body: input }) =>
    ctx.write(sink(id), async ({ tenant, audit }) => {
      const [stored] = await tenant.query<StoredSink>(
        'select kind, sources, event_types from sinks where workspace_id = $ws and id = $1 for update',
        [id],
      );
      if (!stored) throw notFound('sink');
      const { enabled, ...settable } = input;
      const columns = columnsOf(
        ctx,
        settable,
        {
          kind: stored.kind,
          sources: settable.sources ?? stored.sources,
          event_types: settable.event_types === undefined ? stored.event_types : settable.event_types,
        },
        false,
      );
      // A nullable field given as null clears it; an absent one stays. Re-enabling starts afresh: the failures
      // before the pause do not count towards disabling, and the batch at the position is due now. A change of
      // where or how the sink sends makes that batch due now too, not at the end of a back-off its old target
      // earned (P247). Any change ends the current claim, so a worker sends nothing more with the settings it
      // read (P238).
      const given = (name: keyof Settable) => name in settable;
      const retarget = DELIVERY_SETTINGS.some(given);
      await tenant.query(
        `update sinks set
            description = case when $2 then $3 else description end,
            sources = coalesce($4::text[], sources),
            event_types = case when $5 then $6::text[] else event_types end,
            format = coalesce($7, format), url = coalesce($8, url), hec = coalesce($9, hec),
            credential = case when $10 then $11 else credential end,
            host = coalesce($12, host), port = coalesce($13, port),
            server_name = case when $14 then $15 else server_name end,
            ca = case when $16 then $17 else ca end,
            enabled = coalesce($18, enabled),
            failing_since = case when $18 and not enabled then null else failing_since end,
            failures = case when $18 and not enabled then 0 else failures end,
            due_at = case when ($18 and not enabled) or $19 then clock_timestamp() else due_at end,
            claim_token = null, lease_expires_at = null,
            updated_at = clock_timestamp()
          where workspace_id = $ws and id = $1`,
        [
          id,
          given('description'),
          columns.description ?? null,
          columns.sources ?? null,
          given('event_types'),
          columns.event_types ?? null,
          columns.format ?? null,
          columns.url ?? null,
          columns.hec ?? null,
          given('credential'),
          columns.credential ?? null,
          columns.host ?? null,
          columns.port ?? null,
          given('server_name'),
          columns.server_name ?? null,
          given('ca'),
          columns.ca ?? null,
          enabled ?? null,
          retarget,
        ],
      );
      await audit('sink.updated', { type: 'sink', id }, { changes: Object.keys(input) });
      return readSink(tenant, id);
    }),

  deleteSink: async (ctx, { params: { id } }) => {
    await ctx.write(sink(id), async ({ tenant, audit }) => {
      // Its delivery log goes with it (the foreign key cascades).
      const rows = await tenant.query('delete from sinks where workspace_id = $ws and id = $1 returning id', [
        id,
      ]);
      if (rows.length === 0) throw notFound('sink');
      await audit('sink.deleted', { type: 'sink', id });
    });
    return undefined;
  },

  listSinkDeliveries: async (ctx, { params: { id }, query }) => {
    const tenant = await ctx.read(sink(id));
    // A sink that is gone has no log to read.
    await readSink(tenant, id);
    const binding = cursorBinding(tenant.workspaceId, `listSinkDeliveries:${id}`, query);
    const page = await fetchPage(tenant, DELIVERIES, {
      query: { ...query, sink_id: id },
      after: query.cursor ? ctx.cursors.decode(binding, query.cursor) : null,
      limit: query.limit ?? RECENT_SINK_DELIVERIES,
      pii: true,
    });
    const next = page.hasMore && page.last ? ctx.cursors.encode(binding, page.last) : null;
    return `{"data":[${page.items.join(',')}],"next_cursor":${JSON.stringify(next)}}`;
  },
};
