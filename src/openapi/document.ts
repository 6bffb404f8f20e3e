// The OpenAPI 3.1 document, generated from the operations' contracts (src/resources/operations.ts, never the
// handlers): the same TypeBox schemas that validate requests and serialize responses, the scopes the pipeline
// checks, the errors and headers it produces. Nothing here names an operation: one added to a list is
// described without touching this file. What a listener adds to an operation depends on its auth, so the
// builder takes one set of rules per kind of auth (AuthRules).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { STATUS_CODES } from 'node:http';
import type { TSchema } from 'typebox';
import { SIGNATURE_HEADER } from '../../sdk/src/signing.js';
import { type ApiError, ErrorSchema, errorBody, internalError, notFound } from '../contract/errors.js';
import { EventPayloads } from '../contract/events.js';
import { RESPONSE_HEADERS, type ResponseHeader, STAMPED_HEADERS } from '../contract/headers.js';
import {
  type ApiKeyAuth,
  type Auth,
  type NoneAuth,
  type Operation,
  openApiPath,
  PATH_PREFIX,
  pathParameters,
  type ResponseSpec,
} from '../contract/operation.js';
import { DEFAULT_RETRY_DELAYS_MS } from '../events/retry-schedule.js';
import { IdempotencyKeyHeader } from '../http/idempotency.js';
import { ADDRESS_BUCKETS, type Bucket, PDF_BUCKETS, WORKSPACE_BUCKETS } from '../http/rate-limit.js';
import { IfNoneMatchHeader } from '../http/revalidation.js';
import {
  INTERNAL_ERROR_DESCRIPTION,
  NOT_FOUND_DESCRIPTION,
  openRouteHeaders,
  pipelineErrors,
  pipelineHeaders,
  RATE_LIMIT_HEADERS,
  rateLimitExceeded,
} from '../http/route.js';
import { openOperations, publicOperations } from '../resources/operations.js';
import { Uuid } from '../schema/fields.js';
import { type CodeSample, openRouteSamples, routeSamples } from './code-samples.js';
import {
  createdExample,
  type ExampleOptions,
  exampleOf,
  exampleUuid,
  type Json,
  type JsonSchema,
  mapSubschemas,
  plain,
} from './examples.js';
import { referenceOperations } from './reference-operations.js';
import { pathSampleId, seedSample, writeSample } from './seed-samples.js';

const SCHEMAS = '#/components/schemas/';
const JSON_MEDIA = 'application/json';
const SECURITY_SCHEME = 'bearerAuth';
/** The request id shown in example error bodies. */
const EXAMPLE_REQUEST_ID = exampleUuid('request_id');

const INFO = {
  title: 'Third-party risk data API',
  version: '1.0.0',
  description: [
    "Server-to-server access to one workspace's third-party risk data: suppliers, assessments, reports, assets,",
    'business context, risks, action plans, alerts, insights and the audit trail, with a few writes.',
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

/**
 * Who publishes the API, in both documents: where its users get help, and the terms it is used under. The API
 * is proprietary (no open-source license): `LicenseRef-` is SPDX's form for a license of one's own.
 */
export const PUBLISHER = {
  contact: {
    name: 'TPRM API support',
    url: 'https://tprm.example.com/support',
    email: 'support@tprm.example.com',
  },
  license: {
    name: 'Proprietary: use is governed by your subscription agreement',
    identifier: 'LicenseRef-Proprietary',
  },
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

/** Examples show demo records (P88, P121): response bodies in full, request bodies with their required fields. */
export const RESPONSE_EXAMPLES: ExampleOptions = { minimal: false, sample: seedSample };

const successSchema = (operation: Operation) =>
  (operation.responses[200] ?? operation.responses[201])?.schema;

/** Turns TypeBox schemas into plain JSON Schema and hoists every titled schema into components. */
export class SchemaRegistry {
  readonly components: Record<string, JsonSchema> = {};

  /** The schema as the document shows it: titled parts become `$ref`s. */
  ref(schema: unknown): JsonSchema {
    return this.hoist(plain(schema));
  }

  private hoist(schema: JsonSchema): JsonSchema {
    const walked = mapSubschemas(schema, (child) => this.hoist(child));
    if (walked.discriminator) walked.discriminator = this.mapped(walked);
    if (typeof walked.title !== 'string') return walked;
    const name = walked.title;
    const known = this.components[name];
    if (known && JSON.stringify(known) !== JSON.stringify(walked))
      throw new Error(`two different schemas are titled ${name}`);
    this.components[name] = walked;
    return { $ref: `${SCHEMAS}${name}` };
  }

  /** Discriminators name their shapes explicitly: the implicit mapping would look for a schema per value. */
  private mapped(schema: JsonSchema): { propertyName: string; mapping: Record<string, string> } {
    const { propertyName } = schema.discriminator as { propertyName: string };
    const mapping: Record<string, string> = {};
    for (const branch of (schema.oneOf ?? []) as JsonSchema[]) {
      const ref = branch.$ref as string | undefined;
      const shape = ref ? this.components[ref.slice(SCHEMAS.length)] : undefined;
      const values = (shape?.properties as Record<string, JsonSchema> | undefined)?.[propertyName]?.enum;
      if (!ref || !Array.isArray(values) || values.length !== 1)
        throw new Error(`a oneOf discriminated by ${propertyName} needs titled shapes, each with one value`);
      mapping[String(values[0])] = ref;
    }
    return { propertyName, mapping };
  }
}

/** Header components: one per header, and an `.optional` variant where some responses may lack it. */
export class HeaderRegistry {
  readonly components: Record<string, unknown> = {};

  refs(required: readonly ResponseHeader[], optional: readonly ResponseHeader[] = []) {
    const headers: Record<string, { $ref: string }> = {};
    for (const [names, isRequired] of [
      [required, true],
      [optional, false],
    ] as const) {
      for (const name of names) {
        const key = isRequired ? name : `${name}.optional`;
        const { description, schema } = RESPONSE_HEADERS[name];
        this.components[key] ??= { description, required: isRequired, schema: plain(schema) };
        headers[name] = { $ref: `#/components/headers/${key}` };
      }
    }
    return headers;
  }
}

export function errorExamples(errors: readonly ApiError[]): Record<string, unknown> {
  if (errors.length === 1) return { example: errorExample(errors[0] as ApiError) };
  const examples: Record<string, { summary: string; value: Json }> = {};
  for (const error of errors) {
    const reason = error.details?.reason;
    let key = typeof reason === 'string' ? reason : error.code;
    for (let n = 2; key in examples; n++) key = `${error.code}_${n}`;
    examples[key] = { summary: error.message, value: errorExample(error) };
  }
  return { examples };
}

const errorExample = (error: ApiError) => JSON.parse(errorBody(error, EXAMPLE_REQUEST_ID)) as Json;

export function parameter(
  name: string,
  location: 'path' | 'query' | 'header',
  schema: unknown,
  required: boolean,
) {
  const { description, ...rest } = plain(schema);
  return { name, in: location, required, ...(description ? { description } : {}), schema: rest };
}

/** The query a sample sends: the required parameters, and a small page where the operation is paged. */
function queryExampleOf(query: Operation['query']): Record<string, Json> {
  if (!query) return {};
  const required = new Set(query.required ?? []);
  const example: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(query.properties)) {
    if (required.has(name)) example[name] = exampleOf(plain(schema), { minimal: true }, name) ?? null;
  }
  if ('cursor' in query.properties && 'limit' in query.properties) example.limit = 10;
  return example;
}

function queryParameters(query: Operation['query']) {
  if (!query) return [];
  const required = new Set(query.required ?? []);
  return Object.entries(query.properties).map(([name, schema]) =>
    parameter(name, 'query', schema, required.has(name)),
  );
}

/**
 * A response that most operations with its status give (a generic one) becomes a component named after the
 * status (`TooManyRequests`); variants particular to a few operations stay inline.
 */
function shareResponses(
  paths: Record<string, Record<string, unknown>>,
  seeded: Record<string, unknown>,
): Record<string, unknown> {
  const operations = Object.values(paths).flatMap((item) =>
    Object.entries(item)
      .filter(([key]) => key !== 'servers')
      .map(([, operation]) => operation as { responses: Record<string, unknown> }),
  );
  const uses = new Map<string, { status: string; count: number }>();
  const withStatus = new Map<string, number>();
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const key = JSON.stringify(response);
      uses.set(key, { status, count: (uses.get(key)?.count ?? 0) + 1 });
      withStatus.set(status, (withStatus.get(status) ?? 0) + 1);
    }
  }
  const shared = new Map<string, string>();
  const components: Record<string, unknown> = {};
  for (const [name, response] of Object.entries(seeded)) {
    shared.set(JSON.stringify(response), name);
    components[name] = response;
  }
  for (const [key, { status, count }] of uses) {
    const name = (STATUS_CODES[Number(status)] ?? status).replace(/[^A-Za-z]/g, '');
    if (count < 2 || count * 2 <= (withStatus.get(status) ?? 0) || shared.has(key) || name in components)
      continue;
    shared.set(key, name);
    components[name] = JSON.parse(key);
  }
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const name = shared.get(JSON.stringify(response));
      if (name) operation.responses[status] = { $ref: `#/components/responses/${name}` };
    }
  }
  return components;
}

/** A response as the document shows it: its spec, the error bodies it gives, the headers the listener sets. */
export interface DescribedResponse {
  spec: ResponseSpec;
  errors: readonly ApiError[];
  headers: { required: readonly ResponseHeader[]; optional: readonly ResponseHeader[] };
}

/** What a listener adds to the operations of one kind of auth, as the document describes it. */
export interface AuthRules<O extends Operation> {
  /** The operation's responses by status: the declared ones, with those its pipeline gives. */
  responses(operation: O): Record<number, DescribedResponse>;
  /** Who may call, as the description's last paragraph says it. */
  needs(operation: O): string;
  security(operation: O): unknown[];
  /** Fields of the operation besides the common ones (placed before `security`). */
  extensions(operation: O): Record<string, unknown>;
  /** The `servers` of its path item, when not the document's. */
  servers?: unknown[];
  /** Notes the operation on the description of its tag. */
  tag(operation: O, tag: TagNotes): void;
  samples(
    operation: O,
    examples: { ids: (param: string) => string; query: Record<string, Json>; body: Json | undefined },
  ): CodeSample[];
}

/** What the description of a tag says: the scopes its operations need, and whether some need no key. */
export interface TagNotes {
  scopes: Set<string>;
  open: boolean;
}

type RulesByAuth = { [K in Auth['kind']]?: AuthRules<Operation<Extract<Auth, { kind: K }>>> };

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
        headers: { required: openRouteHeaders(Number(status)), optional: [] },
      };
    return described;
  },
  needs: () => 'Needs no API key.',
  security: () => [],
  extensions: () => ({}),
  servers: [{ url: '/', description: 'Outside the versioned API.' }],
  tag: (_operation, tag) => {
    tag.open = true;
  },
  samples: (operation, { ids }) => openRouteSamples(operation, ids),
};

/**
 * The paths of a document: each operation with its parameters, request body, responses (with the listener's
 * own, by its auth's rules) and code samples, and the tags they carry.
 */
export function describeOperations(
  operations: readonly Operation[],
  rules: RulesByAuth,
  schemas: SchemaRegistry,
  headers: HeaderRegistry,
): { paths: Record<string, Record<string, unknown>>; tags: Map<string, TagNotes> } {
  const errorRef = schemas.ref(ErrorSchema);
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Map<string, TagNotes>();

  const content = (schema: unknown, example: Json | undefined) => ({
    [JSON_MEDIA]: { schema: schemas.ref(schema), ...(example === undefined ? {} : { example }) },
  });

  for (const operation of operations) {
    const rule = rules[operation.auth.kind] as AuthRules<Operation> | undefined;
    if (!rule) throw new Error(`${operation.id}: no rules for the ${operation.auth.kind} auth here`);
    const tag = tags.get(operation.tag) ?? { scopes: new Set<string>(), open: false };
    tags.set(operation.tag, tag);
    rule.tag(operation, tag);
    // A request body shows the values of a seed record: the resource its schema is a write of, or else the
    // one its operation answers with.
    const answered = successSchema(operation);
    const answeredTitle = answered ? plain(answered).title : undefined;
    const body = operation.body;
    const requestExample = body
      ? exampleOf(plain(body), {
          minimal: true,
          sample: (title) =>
            writeSample(
              title,
              title === plain(body).title && typeof answeredTitle === 'string' ? answeredTitle : undefined,
            ),
        })
      : undefined;
    const responses: Record<string, unknown> = {};
    for (const [status, { spec, errors, headers: set }] of Object.entries(rule.responses(operation))) {
      const example =
        spec.created && spec.schema
          ? createdExample(plain(spec.schema), requestExample, spec.created, RESPONSE_EXAMPLES)
          : undefined;
      const responseBody = spec.schema
        ? content(spec.schema, example ?? exampleOf(plain(spec.schema), RESPONSE_EXAMPLES))
        : spec.mediaTypes
          ? Object.fromEntries(spec.mediaTypes.map((type) => [type, {}]))
          : errors.length > 0
            ? { [JSON_MEDIA]: { schema: errorRef, ...errorExamples(errors) } }
            : undefined;
      responses[status] = {
        description: spec.description,
        headers: headers.refs([...set.required, ...(spec.headers ?? [])], set.optional),
        ...(responseBody ? { content: responseBody } : {}),
      };
    }
    const path = openApiPath(operation.path);
    const item = paths[path] ?? (rule.servers ? { servers: rule.servers } : {});
    paths[path] = item;
    const method = operation.method.toLowerCase();
    if (item[method]) throw new Error(`${operation.method} ${path} is declared twice`);
    // Path ids are uuids unless the operation gives their schema.
    const pathSchema = (name: string) => operation.params?.[name] ?? Uuid;
    item[method] = {
      operationId: operation.id,
      tags: [operation.tag],
      summary: operation.summary,
      description: [operation.description, rule.needs(operation)].filter(Boolean).join('\n\n'),
      ...rule.extensions(operation),
      security: rule.security(operation),
      parameters: [
        ...pathParameters(operation.path).map((name) => parameter(name, 'path', pathSchema(name), true)),
        ...queryParameters(operation.query),
        ...(operation.idempotent ? [parameter('Idempotency-Key', 'header', IdempotencyKeyHeader, true)] : []),
        // An operation that can answer 304 reads the entity tags of the copies the client holds.
        ...('304' in responses ? [parameter('If-None-Match', 'header', IfNoneMatchHeader, false)] : []),
      ],
      ...(body ? { requestBody: { required: true, content: content(body, requestExample) } } : {}),
      responses,
      'x-codeSamples': rule.samples(operation, {
        ids: operation.params
          ? (param) => String(exampleOf(plain(pathSchema(param)), { minimal: true }, param))
          : pathSampleId(operation.path),
        query: queryExampleOf(operation.query),
        body: requestExample,
      }),
    };
  }
  return { paths, tags };
}

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
  const schemas = new SchemaRegistry();
  const headers = new HeaderRegistry();
  const { paths, tags } = describeOperations(
    api.operations,
    { apiKey: API_KEY_RULES, none: NO_KEY_RULES },
    schemas,
    headers,
  );

  const content = (schema: unknown, example: Json | undefined) => ({
    [JSON_MEDIA]: { schema: schemas.ref(schema), ...(example === undefined ? {} : { example }) },
  });

  // The answer to any path or method the document does not have (decision 4): the API's own 404, whose
  // rate-limit headers are then absent since no key was looked at.
  const notFoundResponse = {
    description: NOT_FOUND_DESCRIPTION,
    headers: headers.refs(STAMPED_HEADERS, RATE_LIMIT_HEADERS),
    content: { [JSON_MEDIA]: { schema: schemas.ref(ErrorSchema), ...errorExamples([notFound()]) } },
  };
  const responses = shareResponses(paths, { NotFound: notFoundResponse });

  // Outbound deliveries (risk-data-api.md "Events"; decisions 21, 24, 25): what a receiver is sent.
  const webhooks: Record<string, unknown> = {};
  for (const [type, schema] of Object.entries(api.events)) {
    webhooks[type] = {
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
  return {
    openapi: '3.1.0',
    info: { ...INFO, ...PUBLISHER },
    servers: [
      { url: PATH_PREFIX.apiKey, description: 'The API, relative to the host serving this document.' },
    ],
    tags: [...tags].map(([name, { scopes, open }]) => ({
      name,
      description: [
        scopes.size > 0 ? `Scopes: ${[...scopes].map((scope) => `\`${scope}\``).join(', ')}.` : '',
        open ? `${scopes.size > 0 ? 'Some operations need' : 'Needs'} no API key.` : '',
      ]
        .filter(Boolean)
        .join(' '),
    })),
    paths,
    webhooks,
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
  };
}

export const sorted = <T>(record: Record<string, T>) =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
