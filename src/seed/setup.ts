// The set-up of the demo workspace, which the seed's records refer to but an import cannot write: the workspace
// itself, its users, its two API keys, its webhook endpoint and one delivery to it. The set-up's audit trail
// (shared.ts) is written from the same constants, so the trail and these records name the same keys, scopes,
// endpoint and instants. The first start creates the workspace and its first user with these names
// (bootstrap.ts); the OpenAPI examples show these records (src/openapi/seed-samples.ts, P121).
import { createHash } from 'node:crypto';
import { generateSigningSecret } from '../../sdk/src/signing.js';
import type { EventType } from '../contract/events.js';
import { DEFAULT_ASSESSMENT_QUOTA } from '../management/schemas.js';
import { type DeliveryStatus, SCOPES, type Scope } from '../schema/fields.js';
import { generateApiKey } from '../security/secrets.js';
import { ascii, DAY, iso } from './format.js';
import { recordId, type SeedContext, type SeedRecord, WORKSPACE_USERS } from './unit.js';
import { FIRST_NAMES, LAST_NAMES } from './vocabulary.js';

/** The demo workspace and its first user, as the first start creates them. */
export const DEMO_WORKSPACE = { name: 'Demo workspace', plan: 'enterprise' } as const;
export const DEMO_ADMIN = { name: 'Demo Admin', email: 'admin@demo.example' } as const;

/** The API keys and the webhook endpoint were set up at the start of the data's two years. */
const SETUP_DAYS_AGO = 729;

/** The workspace's API keys: created (and revoked) this many days after the set-up began. */
export const SETUP_KEYS: readonly {
  name: string;
  scopes: readonly Scope[];
  createdDay: number;
  revokedDay?: number;
}[] = [
  { name: 'SIEM export', scopes: ['audit:read'], createdDay: 0 },
  {
    name: 'Procurement dashboard',
    scopes: ['suppliers:read', 'assessments:read'],
    createdDay: 1,
    revokedDay: 300,
  },
];

/** The workspace's webhook endpoint. */
export const SETUP_ENDPOINT: {
  url: string;
  description: string;
  events: readonly EventType[];
  createdDay: number;
} = {
  url: 'https://soc.demo.example/hooks/tprm',
  description: 'Security operations: new alerts and completed assessments',
  events: ['assessment.completed', 'alert.created'],
  createdDay: 2,
};

/** Random-looking bytes that are the same in every run: the secrets shown are never those of a real key. */
const fixedBytes = (ctx: SeedContext, label: string) => (size: number) =>
  createHash('sha512').update(`${ctx.seed}:${label}`).digest().subarray(0, size);

const setupStart = (ctx: SeedContext) => ctx.now - SETUP_DAYS_AGO * DAY;

/** The set-up's records by table (`workspaces`, `users`, `api_keys`, `webhook_endpoints`, `webhook_deliveries`,
 * `sinks`, `sink_deliveries`).
 * Secrets are included as the service shows them once (`secret`, `signing_secret`). */
export function buildSetup(ctx: SeedContext): Record<string, SeedRecord[]> {
  const start = setupStart(ctx);
  const created = start - 7 * DAY;
  const workspaceId = recordId(ctx, 'workspaces', 0);
  const users = Array.from({ length: WORKSPACE_USERS }, (_, index) => {
    const first = FIRST_NAMES[(index * 7) % FIRST_NAMES.length] as string;
    const last = LAST_NAMES[(index * 11) % LAST_NAMES.length] as string;
    const person =
      index === 0
        ? DEMO_ADMIN
        : { name: `${first} ${last}`, email: `${ascii(first)}.${ascii(last)}@demo.example` };
    return { id: recordId(ctx, 'users', index), ...person, created_at: iso(created + index * DAY) };
  });
  const admin = users[0]?.id as string;
  const keys = SETUP_KEYS.map((key, index) => {
    const { secret, prefix } = generateApiKey(fixedBytes(ctx, `api_keys:${index}`));
    const revoked = key.revokedDay === undefined ? null : start + key.revokedDay * DAY;
    return {
      id: recordId(ctx, 'api_keys', index),
      name: key.name,
      scopes: [...key.scopes].sort((a, b) => SCOPES.indexOf(a) - SCOPES.indexOf(b)),
      created_by: admin,
      expires_at: null,
      created_at: iso(start + key.createdDay * DAY),
      prefix,
      last_used_at: iso((revoked ?? ctx.now) - 3 * 3_600_000),
      revoked_at: revoked === null ? null : iso(revoked),
      secret,
    };
  });
  const endpointCreated = start + SETUP_ENDPOINT.createdDay * DAY;
  const endpoint = {
    id: recordId(ctx, 'webhook_endpoints', 0),
    url: SETUP_ENDPOINT.url,
    description: SETUP_ENDPOINT.description,
    events: [...SETUP_ENDPOINT.events],
    enabled: true,
    failing_since: null,
    created_at: iso(endpointCreated),
    updated_at: iso(endpointCreated),
    signing_secret: generateSigningSecret(fixedBytes(ctx, 'webhook_endpoints:0')),
    // A rotation keeps the previous secret valid for its overlap (24 hours unless asked otherwise).
    previous_secret_expires_at: iso(ctx.now + DAY),
  };
  // The latest delivery: an alert of the day before, acknowledged on the first attempt.
  const attempted = ctx.now - DAY + 9 * 3_600_000;
  const durationMs = 184;
  const status: DeliveryStatus = 'delivered';
  const delivery = {
    id: recordId(ctx, 'webhook_deliveries', 0),
    endpoint_id: endpoint.id,
    event_id: recordId(ctx, 'events', 0),
    event_type: 'alert.created' satisfies EventType,
    attempt: 1,
    status,
    test: false,
    response_status: 200,
    response_body: '{"received":true}',
    error: null,
    duration_ms: durationMs,
    attempted_at: iso(attempted),
    next_retry_at: null,
    created_at: iso(attempted),
    updated_at: iso(attempted + durationMs),
  };
  // A Splunk HEC sink of the audit trail in OCSF, and its latest batch (the examples of the sinks' operations).
  const sinkCreated = endpointCreated + DAY;
  const sink = {
    id: recordId(ctx, 'sinks', 0),
    kind: 'http',
    description: 'Splunk: the audit trail as OCSF',
    sources: ['audit'],
    event_types: null,
    format: 'ocsf',
    url: 'https://splunk.demo.example:8088/services/collector/event',
    hec: true,
    host: null,
    port: null,
    server_name: null,
    ca: null,
    has_credential: true,
    enabled: true,
    failing_since: null,
    audit_position: recordId(ctx, 'audit_logs', 0),
    audit_position_at: iso(attempted),
    event_position: null,
    event_position_at: null,
    created_at: iso(sinkCreated),
    updated_at: iso(sinkCreated),
  };
  const sinkDelivery = {
    id: recordId(ctx, 'sink_deliveries', 0),
    sink_id: sink.id,
    first_id: recordId(ctx, 'audit_logs', 1),
    last_id: recordId(ctx, 'audit_logs', 0),
    count: 2,
    attempt: 1,
    outcome: 'delivered',
    status: 200,
    error: null,
    duration_ms: 41,
    created_at: iso(attempted),
  };
  return {
    workspaces: [
      {
        id: workspaceId,
        ...DEMO_WORKSPACE,
        assessment_quota: DEFAULT_ASSESSMENT_QUOTA,
        created_at: iso(created),
        updated_at: iso(created),
      },
    ],
    users,
    api_keys: keys,
    webhook_endpoints: [endpoint],
    webhook_deliveries: [delivery],
    sinks: [sink],
    sink_deliveries: [sinkDelivery],
  };
}
