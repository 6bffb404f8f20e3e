// Push: webhook endpoints and their delivery attempts, and sinks (docs/decisions.md P203-P219, P216), the
// destinations of the audit trail and the events.
import { type Command, Option } from 'commander';
import { ContractEventTypes, type EventType, EventTypes } from '../../contract/events.js';
import {
  type DeliveryStatus,
  DeliveryStatuses,
  SinkFormats,
  SinkKinds,
  SinkOutcomes,
  type SinkSource,
  SinkSources,
} from '../../schema/fields.js';
import { act, type Io } from '../command.js';
import { CliError } from '../errors.js';
import { examples, integer, list, pick, requireChanges, since } from '../options.js';
import { type Column, count, print, printWithSecret, record, table } from '../output.js';

// "all" is the contract's four types: the opt-in ones are subscribed to by name (P177).
const eventsHelp = `comma-separated events: ${EventTypes.join(', ')}; or "all" for ${ContractEventTypes.join(', ')}`;

export function webhookCommands(program: Command): void {
  const endpoints = program
    .command('endpoints')
    .alias('webhook-endpoints')
    .description('webhook endpoints that receive signed events')
    .addHelpText(
      'after',
      examples([
        'tprm endpoints create 4f6c… --url https://hooks.acme.example/tprm --events all',
        'tprm endpoints test 1d3f… --event alert.created --wait',
        'tprm endpoints deliveries 1d3f… --status failed --since 24h',
        'tprm endpoints replay 1d3f… --from 2026-11-20T02:00:00Z',
        'tprm endpoints rotate-secret 1d3f… --overlap 48h',
      ]),
    );
  registerCommands(endpoints);
  changeCommands(endpoints);
  deliveryCommands(program, endpoints);
  sinkCommands(program);
}

function registerCommands(endpoints: Command): void {
  endpoints
    .command('create <workspace-id>')
    .description(
      'register an endpoint and print its signing secret, once (POST /admin/workspaces/{id}/webhook-endpoints)',
    )
    .requiredOption('--url <url>', 'https:// URL that receives the events')
    .requiredOption('--events <list>', eventsHelp, list(ContractEventTypes))
    .option('--description <text>', 'free text')
    .addHelpText(
      'after',
      examples([
        'tprm endpoints create 4f6c… --url https://hooks.acme.example/tprm --events assessment.completed,alert.created',
      ]),
    )
    .action(
      act<[workspaceId: string], { url: string; events: EventType[]; description?: string }>(
        async (io, [id], opts) => {
          const body = pick(opts, { url: 'url', events: 'events', description: 'description' });
          const endpoint = await io.admin.createWebhookEndpoint({ params: { id }, body });
          printWithSecret(io, endpoint, 'signing_secret', 'The signing secret');
        },
      ),
    );
  endpoints
    .command('list <workspace-id>')
    .description(
      "list a workspace's endpoints, newest first, without secrets (GET /admin/workspaces/{id}/webhook-endpoints)",
    )
    .addHelpText('after', examples(['tprm endpoints list 4f6c…', 'tprm endpoints list 4f6c… --json']))
    .action(
      act<[workspaceId: string]>(async (io, [id]) => {
        const page = await io.admin.listWebhookEndpoints({ params: { id } });
        print(io, page, () =>
          table(page.data, ['id', 'url', 'events', 'enabled', 'description', 'created_at']),
        );
      }),
    );
  endpoints
    .command('get <endpoint-id>')
    .description('show one endpoint, without its secret (GET /admin/webhook-endpoints/{id})')
    .addHelpText('after', examples(['tprm endpoints get 1d3f…']))
    .action(
      act<[endpointId: string]>(async (io, [id]) => {
        const endpoint = await io.admin.getWebhookEndpoint({ params: { id } });
        print(io, endpoint, () => record(endpoint));
      }),
    );
}

interface EndpointChanges {
  url?: string;
  events?: EventType[];
  description?: string;
  enable?: boolean;
  disable?: boolean;
}

function changeCommands(endpoints: Command): void {
  endpoints
    .command('update <endpoint-id>')
    .description('change an endpoint (PATCH /admin/webhook-endpoints/{id})')
    .option('--url <url>', 'new URL')
    .option('--events <list>', eventsHelp, list(ContractEventTypes))
    .option('--description <text>', 'new description ("" clears it)')
    .addOption(new Option('--enable', 'deliver events again').conflicts('disable'))
    .addOption(new Option('--disable', 'stop delivering events'))
    .addHelpText(
      'after',
      examples([
        'tprm endpoints update 1d3f… --disable',
        'tprm endpoints update 1d3f… --events all --enable',
      ]),
    )
    .action(
      act<[endpointId: string], EndpointChanges>(async (io, [id], opts, cmd) => {
        const body = {
          ...pick(opts, { url: 'url', events: 'events' }),
          ...(opts.description === undefined ? {} : { description: opts.description || null }),
          ...(opts.enable || opts.disable ? { enabled: Boolean(opts.enable) } : {}),
        };
        requireChanges(cmd, body);
        const endpoint = await io.admin.updateWebhookEndpoint({ params: { id }, body });
        print(io, endpoint, () => record(endpoint));
      }),
    );
  endpoints
    .command('delete <endpoint-id>')
    .description('delete an endpoint (DELETE /admin/webhook-endpoints/{id})')
    .addHelpText('after', examples(['tprm endpoints delete 1d3f…']))
    .action(
      act<[endpointId: string]>(async (io, [id]) => {
        await io.admin.deleteWebhookEndpoint({ params: { id } });
        // The API answers 204 without a body; scripts still get a JSON line.
        print(io, { id, deleted: true }, () => `Deleted webhook endpoint ${id}.`);
      }),
    );
  endpoints
    .command('rotate-secret <endpoint-id>')
    .description(
      'issue a new signing secret and print it, once; the old one keeps signing too during the overlap (POST /admin/webhook-endpoints/{id}/rotate-secret)',
    )
    .option(
      '--overlap <duration>',
      'how long both secrets sign (ms, s, m, h; at most 168h; 0s ends it now)',
      '24h',
    )
    .addHelpText(
      'after',
      `
During the overlap every delivery carries two signatures (v1=<new>,v1=<old>), so receivers can switch to
the new secret at their own pace.
${examples(['tprm endpoints rotate-secret 1d3f…', 'tprm endpoints rotate-secret 1d3f… --overlap 0s'])}`,
    )
    .action(
      act<[endpointId: string], { overlap: string }>(async (io, [id], opts) => {
        const endpoint = await io.admin.rotateWebhookSecret({
          params: { id },
          body: { overlap: opts.overlap },
        });
        printWithSecret(io, endpoint, 'signing_secret', 'The new signing secret');
      }),
    );
}

interface DeliveriesOptions {
  status?: DeliveryStatus;
  event?: EventType;
  since?: string;
  limit?: number;
  cursor?: string;
  all?: boolean;
  wide?: boolean;
}

/** An attempt as the management API lists it (the fields the tables show). */
interface Attempt {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: string;
  test: boolean;
  response_status: number | null;
  error: string | null;
  duration_ms: number | null;
  attempted_at: string;
}

/** The widest a default table of attempts is (P168). */
const TABLE_WIDTH = 100;

/** "2026-11-28 02:57:59": an attempt's instant to the second, UTC. */
const shortInstant = (iso: string) => iso.slice(0, 19).replace('T', ' ');

const attemptColumns = (wide: boolean): Column<Attempt>[] => [
  ...(wide ? (['id'] as const) : []),
  ['attempted (utc)', (a) => (wide ? a.attempted_at : shortInstant(a.attempted_at))],
  ['event', (a) => a.event_type],
  // A test event's one attempt says so where a real event's attempts are numbered.
  ['#', (a) => (a.test ? 'test' : a.attempt)],
  'status',
  ['http', (a) => a.response_status],
  ['ms', (a) => a.duration_ms],
  'error',
  ...(wide ? (['event_id'] as const) : []),
];

function deliveryCommands(program: Command, endpoints: Command): void {
  endpoints
    .command('deliveries <endpoint-id>')
    .description(
      "an endpoint's delivery attempts, newest first, filtered and paged (GET /admin/webhook-endpoints/{id}/deliveries)",
    )
    .addOption(new Option('--status <status>', 'only attempts in this status').choices(DeliveryStatuses))
    .addOption(new Option('--event <type>', 'only attempts of this event type').choices(EventTypes))
    .option(
      '--since <when>',
      'only attempts at or after an ISO 8601 instant, or this long ago (30m, 6h, 7d)',
      since,
    )
    .option('--limit <n>', 'attempts per page (1 to 500; default 100)', integer(1, 500))
    .option('--cursor <cursor>', 'continue after the page that printed it (same filters)')
    .addOption(new Option('--all', 'every page, one after the other').conflicts('cursor'))
    .option('--wide', 'every column (ids, exact instants); wider than 100 columns')
    .addHelpText(
      'after',
      `
The table fits 100 columns: long event types and errors are cut (--wide or --json show them whole, and
the ids that "tprm deliveries replay" takes). When more attempts match, the last line says how to get
the next page.
${examples([
  'tprm endpoints deliveries 1d3f…',
  'tprm endpoints deliveries 1d3f… --status exhausted --since 24h',
  'tprm endpoints deliveries 1d3f… --event alert.created --limit 20 --wide',
  'tprm endpoints deliveries 1d3f… --status failed --all --json | jq -r ".data[].id"',
])}`,
    )
    .action(
      act<[endpointId: string], DeliveriesOptions>(async (io, [id], opts) => {
        const query = {
          ...pick(opts, { status: 'status', event: 'event_type', since: 'from', cursor: 'cursor' }),
          ...(opts.limit !== undefined || opts.all ? { limit: opts.limit ?? 500 } : {}),
        };
        let page = await io.admin.listWebhookEndpointDeliveries({ params: { id }, query });
        const data = [...page.data];
        while (opts.all && page.next_cursor) {
          page = await io.admin.listWebhookEndpointDeliveries({
            params: { id },
            query: { ...query, cursor: page.next_cursor },
          });
          data.push(...page.data);
        }
        const result = { data, next_cursor: page.next_cursor };
        print(io, result, () => {
          const shown = table(data, attemptColumns(Boolean(opts.wide)), {
            fit: opts.wide ? undefined : { width: TABLE_WIDTH, shrink: ['error', 'event'] },
          });
          if (!result.next_cursor) return `${shown}\n\n${count(data.length, 'delivery', 'deliveries')}.`;
          const again = [
            'tprm endpoints deliveries',
            id,
            ...(opts.status ? ['--status', opts.status] : []),
            ...(opts.event ? ['--event', opts.event] : []),
            ...(opts.since ? ['--since', opts.since] : []),
            ...(opts.limit ? ['--limit', String(opts.limit)] : []),
            ...(opts.wide ? ['--wide'] : []),
            '--cursor',
            result.next_cursor,
          ].join(' ');
          return `${shown}\n\n${count(data.length, 'delivery', 'deliveries')} shown; more match. Next page:\n  ${again}`;
        });
      }),
    );
  endpoints
    .command('test <endpoint-id>')
    .description(
      'send a signed test event to this endpoint alone, now (POST /admin/webhook-endpoints/{id}/test)',
    )
    .addOption(
      new Option('--event <type>', 'the event type of the example payload')
        .choices(EventTypes)
        .makeOptionMandatory(),
    )
    .option('--wait', "wait for the attempt's outcome and print it: status, HTTP status, duration, error")
    .option('--timeout <seconds>', 'how long --wait waits (default 30)', integer(1, 3600), 30)
    .addHelpText(
      'after',
      `
The payload has the event type's shape, with the nil uuid for every id in data. The attempt is listed with
test: true by "tprm endpoints deliveries"; it is never retried nor sent to another endpoint. A webhook
worker (ROLE=worker or all) sends it. With --wait the command exits 1 when the attempt was not delivered
(failed, or no outcome within --timeout).
${examples(['tprm endpoints test 1d3f… --event alert.created', 'tprm endpoints test 1d3f… --event report.ready --wait'])}`,
    )
    .action(
      act<[endpointId: string], { event: EventType; wait?: boolean; timeout: number }>(
        async (io, [id], opts) => {
          const attempt = await io.admin.sendWebhookTestEvent({
            params: { id },
            body: { event_type: opts.event },
          });
          if (!opts.wait) {
            print(io, attempt, () => record(attempt));
            return;
          }
          const outcome = await waitForOutcome(io, id, attempt, opts.timeout * 1000);
          // Not delivered: the record on stdout, and the outcome as the error (stderr, exit 1).
          const delivered = outcome.status === 'delivered';
          print(io, outcome, () => record(outcome) + (delivered ? `\n\n${outcomeLine(outcome)}` : ''));
          if (!delivered) throw new CliError(outcomeLine(outcome));
        },
      ),
    );
  endpoints
    .command('replay <endpoint-id>')
    .description(
      'send again every delivery of the endpoint that failed in a time range and was not delivered since (POST /admin/webhook-endpoints/{id}/replay)',
    )
    .requiredOption('--from <instant>', 'ISO 8601 date-time: failed attempts at or after it')
    .option('--to <instant>', 'ISO 8601 date-time: failed attempts at or before it (default: now)')
    .addHelpText(
      'after',
      `
Each replay is one new attempt with the original event_id and body, numbered after the event's last
attempt; it is not retried automatically.
${examples(['tprm endpoints replay 1d3f… --from 2026-11-20T02:00:00Z --to 2026-11-20T06:00:00Z'])}`,
    )
    .action(
      act<[endpointId: string], { from: string; to?: string }>(async (io, [id], opts) => {
        const body = pick(opts, { from: 'from', to: 'to' });
        const result = await io.admin.replayWebhookEndpoint({ params: { id }, body });
        print(io, result, () => `Replaying ${count(result.replayed, 'delivery', 'deliveries')}.`);
      }),
    );
  program
    .command('deliveries')
    .description('webhook delivery attempts')
    .addHelpText(
      'after',
      examples([
        'tprm endpoints deliveries 1d3f… --status exhausted --wide   # the ids to replay',
        'tprm deliveries replay 93ab…',
      ]),
    )
    .command('replay <delivery-id>')
    .description(
      'send one delivery again: a new attempt with the original event_id (POST /admin/webhook-deliveries/{id}/replay)',
    )
    .addHelpText('after', examples(['tprm deliveries replay 93ab…']))
    .action(
      act<[deliveryId: string]>(async (io, [id]) => {
        const attempt = await io.admin.replayWebhookDelivery({ params: { id } });
        print(io, attempt, () => record(attempt));
      }),
    );
}

/** Polls the endpoint's attempts until the test attempt has an outcome, or `timeoutMs` passed. */
async function waitForOutcome<A extends Attempt>(io: Io, endpointId: string, sent: A, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let latest: Attempt = sent;
  for (;;) {
    const page = await io.admin.listWebhookEndpointDeliveries({
      params: { id: endpointId },
      query: { event_type: sent.event_type as EventType, limit: 50 },
    });
    const found = page.data.find((attempt) => attempt.id === sent.id);
    if (!found)
      throw new CliError(`The test attempt ${sent.id} is no longer listed (was the endpoint deleted?).`);
    latest = found;
    if (found.status !== 'pending' && found.status !== 'delivering') return found;
    if (Date.now() >= deadline) return latest;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** One line for people: what became of the attempt, its status, HTTP status, duration and error. */
function outcomeLine(attempt: Attempt): string {
  if (attempt.status === 'pending' || attempt.status === 'delivering')
    return `No outcome yet (${attempt.status}): is a webhook worker running (ROLE=worker or all)? Follow it with: tprm endpoints deliveries ${attempt.endpoint_id} --wide`;
  const parts = [
    attempt.status,
    attempt.response_status === null ? 'no HTTP answer' : `HTTP ${attempt.response_status}`,
    ...(attempt.duration_ms === null ? [] : [`${attempt.duration_ms} ms`]),
    ...(attempt.error ? [`error: ${attempt.error}`] : []),
  ];
  return `${attempt.status === 'delivered' ? 'Delivered' : 'Not delivered'}: ${parts.join(', ')}.`;
}

/** A credential is read from stdin, never from the command line (where `ps` and shell histories show it). */
async function readCredential(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

interface TargetOptions {
  description?: string;
  sources?: SinkSource[];
  eventTypes?: EventType[];
  format?: 'native' | 'ocsf';
  url?: string;
  hec?: boolean;
  credentialStdin?: boolean;
  host?: string;
  port?: number;
  serverName?: string;
  caFile?: string;
}

/** The options of a sink's target, its sources and its format: the same for `create` and `update`. */
function targetOptions(command: Command): Command {
  return command
    .option('--description <text>', 'free text')
    .option('--sources <list>', `comma-separated: ${SinkSources.join(', ')}`, list(SinkSources))
    .option(
      '--event-types <list>',
      `only these event types (${EventTypes.join(', ')}); default every type`,
      list(EventTypes),
    )
    .addOption(new Option('--format <format>', 'native (as the feeds serve) or ocsf').choices(SinkFormats))
    .option('--url <url>', 'http: the collector, https://')
    .option('--hec', 'http: the collector is a Splunk HTTP Event Collector')
    .option('--credential-stdin', 'http: read the HEC token, or the Authorization header value, from stdin')
    .option('--host <host>', 'syslog: the receiver')
    .option('--port <port>', 'syslog: its TLS port', integer(1, 65535))
    .option('--server-name <name>', "syslog: the name checked in the receiver's certificate")
    .option('--ca-file <path>', "syslog: the PEM of the CA that signs the receiver's certificate");
}

async function targetBody(opts: TargetOptions) {
  const { readFile } = await import('node:fs/promises');
  return {
    ...pick(opts, {
      description: 'description',
      sources: 'sources',
      eventTypes: 'event_types',
      format: 'format',
      url: 'url',
      hec: 'hec',
      host: 'host',
      port: 'port',
      serverName: 'server_name',
    }),
    ...(opts.credentialStdin ? { credential: await readCredential() } : {}),
    ...(opts.caFile ? { ca: await readFile(opts.caFile, 'utf8') } : {}),
  };
}

const SINK_COLUMNS = ['id', 'kind', 'sources', 'format', 'enabled', 'url', 'host', 'description'] as const;

function sinkCommands(program: Command): void {
  const sinks = program
    .command('sinks')
    .description('push destinations that receive the audit trail and the events (http, Splunk HEC, syslog)')
    .addHelpText(
      'after',
      examples([
        'tprm sinks create 4f6c… --kind http --url https://siem.acme.example/in --sources audit,events',
        'printf %s "$HEC_TOKEN" | tprm sinks create 4f6c… --kind http --hec --credential-stdin --url https://splunk.acme.example:8088/services/collector/event --sources audit --format ocsf',
        'tprm sinks deliveries 2b9e… --outcome failed',
      ]),
    );
  targetOptions(
    sinks
      .command('create <workspace-id>')
      .description('register a sink (POST /admin/workspaces/{id}/sinks); its credential is never shown')
      .addOption(new Option('--kind <kind>', 'http or syslog').choices(SinkKinds).makeOptionMandatory())
      .addOption(
        new Option(
          '--start <where>',
          'now: what follows the registration; beginning: all the logs hold',
        ).choices(['now', 'beginning']),
      ),
  ).action(
    act<[workspaceId: string], TargetOptions & { kind: 'http' | 'syslog'; start?: 'now' | 'beginning' }>(
      async (io, [id], opts) => {
        const body = {
          kind: opts.kind,
          sources: opts.sources ?? (['audit'] as SinkSource[]),
          ...(await targetBody(opts)),
          ...pick(opts, { start: 'start' }),
        };
        const sink = await io.admin.createSink({ params: { id }, body });
        print(io, sink, () => record(sink));
      },
    ),
  );
  sinks
    .command('list <workspace-id>')
    .description(
      "list a workspace's sinks, newest first, without credentials (GET /admin/workspaces/{id}/sinks)",
    )
    .action(
      act<[workspaceId: string]>(async (io, [id]) => {
        const page = await io.admin.listSinks({ params: { id } });
        print(io, page, () => table(page.data, SINK_COLUMNS));
      }),
    );
  sinks
    .command('show <sink-id>')
    .description('show one sink and its positions, without its credential (GET /admin/sinks/{id})')
    .action(
      act<[sinkId: string]>(async (io, [id]) => {
        const sink = await io.admin.getSink({ params: { id } });
        print(io, sink, () => record(sink));
      }),
    );
  targetOptions(
    sinks
      .command('update <sink-id>')
      .description('change a sink; its position stays (PATCH /admin/sinks/{id})')
      .addOption(new Option('--enable', 'deliver again, from the position').conflicts('disable'))
      .addOption(new Option('--disable', 'stop delivering')),
  ).action(
    act<[sinkId: string], TargetOptions & { enable?: boolean; disable?: boolean }>(
      async (io, [id], opts, cmd) => {
        const body = {
          ...(await targetBody(opts)),
          ...(opts.enable || opts.disable ? { enabled: Boolean(opts.enable) } : {}),
        };
        requireChanges(cmd, body);
        const sink = await io.admin.updateSink({ params: { id }, body });
        print(io, sink, () => record(sink));
      },
    ),
  );
  sinks
    .command('delete <sink-id>')
    .description('delete a sink and its delivery log (DELETE /admin/sinks/{id})')
    .action(
      act<[sinkId: string]>(async (io, [id]) => {
        await io.admin.deleteSink({ params: { id } });
        print(io, { id, deleted: true }, () => `Deleted sink ${id}.`);
      }),
    );
  sinks
    .command('deliveries <sink-id>')
    .description(
      "the sink's delivery log, one row per batch attempt, newest first (GET /admin/sinks/{id}/deliveries)",
    )
    .addOption(new Option('--outcome <outcome>', 'only attempts with this outcome').choices(SinkOutcomes))
    .option('--limit <n>', 'attempts per page (1 to 500; default 100)', integer(1, 500))
    .option('--cursor <cursor>', 'continue after the page that printed it')
    .action(
      act<[sinkId: string], { outcome?: 'delivered' | 'failed'; limit?: number; cursor?: string }>(
        async (io, [id], opts) => {
          const query = pick(opts, { outcome: 'outcome', limit: 'limit', cursor: 'cursor' });
          const page = await io.admin.listSinkDeliveries({ params: { id }, query });
          print(io, page, () => {
            const shown = table(page.data, [
              'created_at',
              'outcome',
              'attempt',
              'count',
              'status',
              'duration_ms',
              'error',
            ]);
            const more = page.next_cursor ? ` More: --cursor ${page.next_cursor}` : '';
            return `${shown}\n\n${count(page.data.length, 'batch attempt')}.${more}`;
          });
        },
      ),
    );
}
