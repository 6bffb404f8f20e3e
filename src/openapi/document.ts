import type { TSchema } from 'typebox';
import { SIGNATURE_HEADER } from '../../sdk/src/signing.js';
import { internalError, notFound } from '../contract/errors.js';
import { EventPayloads } from '../contract/events.js';
import {
  type ApiKeyAuth,
  type NoneAuth,
  type Operation,
  PATH_PREFIX,
  type ResponseSpec,
} from '../contract/operation.js';
import { DEFAULT_RETRY_DELAYS_MS } from '../events/retry-schedule.js';
import { ADDRESS_BUCKETS, type Bucket, PDF_BUCKETS, WORKSPACE_BUCKETS } from '../http/rate-limit.js';
import {
  INTERNAL_ERROR_DESCRIPTION,
  NOT_FOUND_DESCRIPTION,
  pipelineErrors,
  pipelineHeaders,
  RATE_LIMIT_HEADERS,
  rateLimitExceeded,
  unmeteredHeaders,
} from '../http/route.js';
import { openOperations, publicOperations } from '../resources/operations.js';
import {
  type AuthRules,
  buildDocument,
  type DescribedResponse,
  type DocumentParts,
  PUBLISHER,
  RESPONSE_EXAMPLES,
  sorted,
} from './builder.js';
import { openRouteSamples, routeSamples } from './code-samples.js';
import { type ExampleOptions, exampleOf, type JsonSchema, plain } from './examples.js';
import { referenceOperations } from './reference-operations.js';
import { writeSample } from './seed-samples.js';

const SECURITY_SCHEME = 'bearerAuth';
const INFO = {
  title: 'Third-party risk data API',
  version: '1.0.0',
  description: [
    "Server-to-server access to one workspace's third-party risk data: suppliers, assessments, reports, assets,",
    'business context, risks, action plans, alerts, insights and the audit trail, with a few writes.',
    '',
    '**Quickstart.** A read needs only the key:',
    '`curl -H "Authorization: Bearer $TPRM_API_KEY" "$TPRM_API_URL/suppliers?limit=2"`. **Every `POST` also',
    'needs an `Idempotency-Key` header** (without it: `400 invalid_request`): a new unique value for each write,',
    'sent again only to retry that same write, which is then applied once. Make one with `uuidgen`, or',
    '`node -e "console.log(crypto.randomUUID())"` where `uuidgen` is not installed:',
    '`curl -X POST -H "Authorization: Bearer $TPRM_API_KEY" -H "Idempotency-Key: $(uuidgen)"',
    '-H "Content-Type: application/json" -d \'{"name":"Acme"}\' "$TPRM_API_URL/suppliers"`. The SDK makes one for',
    'each call by itself.',
    '',
    '- **Authentication**: `Authorization: Bearer <API key>` on every `/v1` request. The workspace is the',
    "  key's; each operation names the scope it needs (`x-required-scope`). `pii:read` only un-redacts",
    '  personal fields, which are otherwise absent (never null).',
    '- **Errors**: one shape everywhere (`Error`); clients branch on `error.code`. Any other path or method',
    '  (OPTIONS included) answers `404 resource_not_found` before authentication (the `NotFound` response).',
    '- **Headers**: every response carries `X-Request-Id` and `Cache-Control: no-store`; once the workspace is',
    '  known, the `X-RateLimit-*` headers of the bucket closest to its ceiling. `HEAD` behaves as `GET`',
    '  without a body.',
    '- **Collections**: `data` and `meta`; cursor-paged ones take `limit` and `cursor` (opaque, bound to the',
    '  endpoint and its filters).',
    '- **Webhooks**: `webhooks` describes the body of each event the service POSTs to registered endpoints,',
    '  signed in `Service-Signature`.',
    '- **Rate limits**: per workspace, in fixed windows aligned to the clock and all counted at once:',
    `  ${rates(WORKSPACE_BUCKETS)}; \`GET /reports/{id}/pdf\` also ${rates(PDF_BUCKETS)}.`,
    `  Requests without a valid key, per client address: ${rates(ADDRESS_BUCKETS)}. A request over a limit`,
    '  is answered `429 rate_limit_exceeded` with `Retry-After` (seconds to wait) and counts against nothing.',
    '- **Webhook retries**: a delivery not acknowledged with a 2xx in time is retried after',
    `  ${durations(DEFAULT_RETRY_DELAYS_MS)} (${DEFAULT_RETRY_DELAYS_MS.length + 1} attempts in all, unless the operator set`,
    '  other delays), then given up.',
    '- **Examples and code samples**: the examples are records of the demo data set (the seed generator).',
    '  Each operation has a curl command and the same call through the SDK (`@tprm/client`), which read the',
    "  API's address from `TPRM_API_URL` (`https://tprm.example.com/v1`) and a key from `TPRM_API_KEY`.",
  ].join('\n'),
};

/** A duration as people write it: `30 s`, `5 min`, `2 h`. */
function duration(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
  ] as const)
    if (ms % size === 0) return `${ms / size} ${unit}`;
  return `${ms} ms`;
}

/** `1 min, 5 min and 30 min`. */
function durations(list: readonly number[]): string {
  const words = list.map(duration);
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : (words[0] ?? '');
}

/** `60 requests per second, 600 per minute and 5000 per hour`, from the limiter's own buckets. */
function rates(buckets: readonly Bucket[]): string {
  const window = (ms: number) => ({ 1000: 'second', 60000: 'minute', 3600000: 'hour' })[ms] ?? duration(ms);
  const words = buckets.map(
    (bucket, i) => `${bucket.limit}${i === 0 ? ' requests' : ''} per ${window(bucket.windowMs)}`,
  );
  return words.length > 1 ? `${words.slice(0, -1).join(', ')} and ${words.at(-1)}` : (words[0] ?? '');
}

/**
 * A public request body shows the values of a seed record: the resource its schema is a write of, or else the
 * one its operation answers with.
 */
const writeExample = (body: JsonSchema, answered: string | undefined): ExampleOptions => ({
  minimal: true,
  sample: (title) => writeSample(title, title === body.title ? answered : undefined),
});

/** An operation under /v1: the checks of decision 1 (http/route.ts) and the API key's scope. */
const API_KEY_RULES: AuthRules<Operation<ApiKeyAuth>> = {
  responses(operation) {
    const pipeline = pipelineErrors(operation);
    const statuses = [
      ...new Set([...Object.keys(operation.responses), ...Object.keys(pipeline)].map(Number)),
    ];
    const described: Record<number, DescribedResponse> = {};
    for (const status of statuses.sort((a, b) => a - b)) {
      const declared = operation.responses[status];
      const fromPipeline = pipeline[status];
      described[status] = {
        spec: declared ?? { description: fromPipeline?.description ?? '' },
        errors: [...(fromPipeline?.examples ?? []), ...(declared?.errors ?? [])],
        headers: pipelineHeaders(operation, status),
      };
    }
    return described;
  },
  needs: (operation) => `Needs the \`${operation.auth.scope}\` scope.`,
  security: (operation) => [{ [SECURITY_SCHEME]: [operation.auth.scope] }],
  extensions: (operation) => ({ 'x-required-scope': operation.auth.scope }),
  tag: (operation, tag) => tag.scopes.add(operation.auth.scope),
  judgedBodyRequired: true,
  bodyExample: writeExample,
  samples: routeSamples,
};

/** An operation outside /v1 that needs no key: limited per client address, 404 for a parameter it refuses. */
const NO_KEY_RULES: AuthRules<Operation<NoneAuth>> = {
  responses(operation) {
    // The pipeline answers 404 when a parameter fails its schema, 429 when the client address has spent its
    // budget; any operation may fail with a 500.
    const all: Record<number, ResponseSpec> = { ...operation.responses };
    if (operation.params !== undefined || operation.query !== undefined)
      all[404] ??= { description: 'Nothing is served at this URL.', errors: [notFound()] };
    all[429] = {
      description: 'Too many requests from this client address: wait `Retry-After` seconds.',
      errors: [rateLimitExceeded()],
    };
    all[500] = { description: INTERNAL_ERROR_DESCRIPTION, errors: [internalError()] };
    const described: Record<number, DescribedResponse> = {};
    for (const [status, spec] of Object.entries(all))
      described[Number(status)] = {
        spec,
        errors: spec.errors ?? [],
        headers: { required: unmeteredHeaders(Number(status)), optional: [] },
      };
    return described;
  },
  needs: () => 'Needs no API key.',
  security: () => [],
  servers: [{ url: '/', description: 'Outside the versioned API.' }],
  tag: (_operation, tag) => {
    tag.open = true;
  },
  judgedBodyRequired: true,
  bodyExample: writeExample,
  samples: (operation, { ids }) => openRouteSamples(operation, ids),
};

/** The operations of the public listener's document, in its order: /v1's, then those outside it. */
export const PUBLIC_DOCUMENT_OPERATIONS: readonly Operation[] = [
  ...publicOperations,
  ...openOperations,
  ...referenceOperations,
];

let text: string | undefined;

/** The document as committed in openapi.json and served at GET /openapi.json (built once per process). */
export function apiDocumentText(): string {
  text ??= `${JSON.stringify(
    buildOpenApiDocument({ operations: PUBLIC_DOCUMENT_OPERATIONS, events: EventPayloads }),
    null,
    2,
  )}\n`;
  return text;
}

export function buildOpenApiDocument(api: {
  operations: readonly Operation[];
  /** The payload schema of each webhook event type. */
  events: Readonly<Record<string, TSchema>>;
}): Record<string, unknown> {
  return buildDocument({
    operations: api.operations,
    rules: { apiKey: API_KEY_RULES, none: NO_KEY_RULES },
    tagDescription: (_name, { scopes, open }) =>
      [
        scopes.size > 0 ? `Scopes: ${[...scopes].map((scope) => `\`${scope}\``).join(', ')}.` : '',
        open ? `${scopes.size > 0 ? 'Some operations need' : 'Needs'} no API key.` : '',
      ]
        .filter(Boolean)
        .join(' '),
    // The answer to any path or method the document does not have (decision 4): the API's own 404, whose
    // rate-limit headers are then absent since no key was looked at.
    notFound: { description: NOT_FOUND_DESCRIPTION, optionalHeaders: RATE_LIMIT_HEADERS },
    shareResponses: true,
    layout: ({ schemas, headers, paths, tags, responses, content }) => ({
      openapi: '3.1.0',
      info: { ...INFO, ...PUBLISHER },
      servers: [
        { url: PATH_PREFIX.apiKey, description: 'The API, relative to the host serving this document.' },
      ],
      tags,
      paths,
      webhooks: webhooks(api.events, content),
      components: {
        schemas: sorted(schemas.components),
        responses: sorted(responses),
        headers: sorted(headers.components),
        securitySchemes: {
          [SECURITY_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An API key of the workspace (`tprm_…`), created in the web application. Each operation names ' +
              'the scope it needs.',
          },
        },
      },
    }),
  });
}

/** Outbound deliveries (risk-data-api.md "Events"; decisions 21, 24, 25): what a receiver is sent. */
function webhooks(
  events: Readonly<Record<string, TSchema>>,
  content: DocumentParts['content'],
): Record<string, unknown> {
  const described: Record<string, unknown> = {};
  for (const [type, schema] of Object.entries(events)) {
    described[type] = {
      post: {
        operationId: `on${type.replace(/(?:^|[._])(\w)/g, (_, letter: string) => letter.toUpperCase())}`,
        summary: `The ${type} event`,
        description:
          'Sent as a `POST` with `Content-Type: application/json`. Verify `Service-Signature` over the raw ' +
          'body before parsing it, and deduplicate on `event_id`: delivery is at least once.',
        security: [],
        parameters: [
          {
            name: SIGNATURE_HEADER,
            in: 'header',
            required: true,
            description:
              '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the signing secret>`; one ' +
              '`v1` per valid secret while a secret is being rotated. Reject a `t` older than 5 minutes.',
            schema: { type: 'string' },
          },
        ],
        requestBody: {
          required: true,
          content: content(schema, exampleOf(plain(schema), RESPONSE_EXAMPLES)),
        },
        responses: {
          '2XX': { description: 'Acknowledges the delivery.' },
          default: {
            description:
              'Any other answer, or none in time, is a failure and the attempt is retried later. Answer 400 ' +
              'to a signature that does not verify.',
          },
        },
      },
    };
  }
  return described;
}
