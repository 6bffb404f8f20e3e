// Webhook endpoints and their delivery attempts.
import { type Command, Option } from 'commander';
import { ContractEventTypes, type EventType, EventTypes } from '../../contract/events.js';
import { act } from '../command.js';
import { examples, list, pick, requireChanges } from '../options.js';
import { print, printWithSecret, record, table } from '../output.js';

// "all" is the contract's four types: the opt-in ones are subscribed to by name (P177).
const eventsHelp = `comma-separated events: ${EventTypes.join(', ')}; or "all" for ${ContractEventTypes.join(', ')}`;

export function webhookCommands(program: Command): void {
  const endpoints = program
    .command('endpoints')
    .alias('webhook-endpoints')
    .description('webhook endpoints that receive signed events');
  registerCommands(endpoints);
  changeCommands(endpoints);
  deliveryCommands(program, endpoints);
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

function deliveryCommands(program: Command, endpoints: Command): void {
  endpoints
    .command('deliveries <endpoint-id>')
    .description("an endpoint's latest 100 delivery attempts (GET /admin/webhook-endpoints/{id}/deliveries)")
    .addHelpText('after', examples(['tprm endpoints deliveries 1d3f…']))
    .action(
      act<[endpointId: string]>(async (io, [id]) => {
        const result = await io.admin.listWebhookEndpointDeliveries({ params: { id } });
        print(io, result, () =>
          table(result.data, [
            'attempted_at',
            'event_type',
            'attempt',
            'status',
            'response_status',
            'duration_ms',
            'error',
            'id',
            'event_id',
            'test',
          ]),
        );
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
    .addHelpText(
      'after',
      `
The payload has the event type's shape, with the nil uuid for every id in data. The attempt is listed with
test: true by "tprm endpoints deliveries"; it is never retried nor sent to another endpoint.
${examples(['tprm endpoints test 1d3f… --event alert.created'])}`,
    )
    .action(
      act<[endpointId: string], { event: EventType }>(async (io, [id], opts) => {
        const attempt = await io.admin.sendWebhookTestEvent({
          params: { id },
          body: { event_type: opts.event },
        });
        print(io, attempt, () => record(attempt));
      }),
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
        print(io, result, () => `Replaying ${result.replayed} deliveries.`);
      }),
    );
  program
    .command('deliveries')
    .description('webhook delivery attempts')
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
