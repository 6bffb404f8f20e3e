// The management listener's OpenAPI 3.1 document, generated from the admin route table like the public one
// from its routes: committed as openapi.admin.json (drift-checked) and served at GET /openapi.json on the
// admin listener.
import { STATUS_CODES } from 'node:http';
import type { TSchema } from 'typebox';
import {
  type ApiError,
  ErrorSchema,
  internalError,
  invalidRequest,
  notFound,
  validationFailed,
} from '../contract/errors.js';
import { RESPONSE_HEADERS, type ResponseHeader, STAMPED_HEADERS } from '../contract/headers.js';
import { openApiPath } from '../contract/operation.js';
import { assertNoBody } from '../http/request-headers.js';
import { rateLimitExceeded, thrownBy } from '../http/route.js';
import { NO_PARAMETERS, validateBody, validateQuery } from '../http/validation.js';
import { adminRoutes } from '../management/admin-routes.js';
import { invalidAdminToken } from '../management/auth.js';
import { ambiguousId } from '../management/locate.js';
import { Liveness, Readiness } from '../management/probes.js';
import { type AdminRouteDef, type AdminRouteTable, routeLimitExceeded } from '../management/route.js';
import { StringEnum, Uuid } from '../schema/fields.js';
import { adminRouteSamples, adminSample } from './code-samples.js';
import {
  errorExamples,
  PUBLISHER,
  parameter,
  RESPONSE_EXAMPLES,
  SchemaRegistry,
  sorted,
} from './document.js';
import { exampleOf, type Json, plain } from './examples.js';
import { PAGE_HEADERS, REFERENCE_FILES } from './reference-operations.js';
import { pathSampleId, seedSample } from './seed-samples.js';

const JSON_MEDIA = 'application/json';
const SECURITY_SCHEME = 'adminToken';

const INFO = {
  title: 'Third-party risk data API: management',
  version: '1.0.0',
  description: [
    'The operator side of the service, on its own listener (`ADMIN_PORT`, loopback by default): workspaces,',
    'their users and API keys, webhook endpoints, imports, and the lifecycle actions of the web application.',
    '',
    '- **Authentication**: `Authorization: Bearer <ADMIN_TOKEN>` on every `/admin` request.',
    "- **Errors**: the public API's one shape (`Error`); clients branch on `error.code`.",
    '- **Headers**: every response carries `X-Request-Id` and `Cache-Control: no-store`.',
    "- **Listings** are whole (`data`), not paged: the operator's lists are short.",
  ].join('\n'),
};

const PROBES = 'Probes';
const REFERENCE = 'Reference';

/** What each group of operations is for; a tag of the table without one here fails the build of the document. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Workspaces: 'Workspaces (tenants), their users, and bulk imports of their records.',
  'API keys': 'Keys of the public API: issued with scopes, listed by prefix, revoked.',
  Lifecycle: 'What the web application does to records: status transitions, renders, alerts, reviews.',
  'Webhook endpoints': 'Receivers of signed events, their secrets, and redelivery.',
  [PROBES]: 'For machines: liveness, readiness and metrics. No token.',
  [REFERENCE]: 'This document and the page that renders it. No token.',
};

const pathIds = (url: string) => [...url.matchAll(/:(\w+)/g)].map((match) => match[1] as string);

/** The error responses of an admin route: the listener's own checks, then those its handler declares. */
function adminErrors(route: AdminRouteDef): Record<number, { description: string; examples: ApiError[] }> {
  const errors: Record<number, { description: string; examples: ApiError[] }> = {
    400: {
      description: `Malformed request: ${
        route.query
          ? 'an unknown or invalid query parameter (named in `details.parameter`)'
          : route.body
            ? 'a query parameter (none is taken)'
            : 'a query parameter or a request body (this operation takes neither)'
      }${route.body ? ', a body that is not JSON' : ''}, or a header sent twice.`,
      examples: [
        thrownBy(() => validateQuery(route.query ?? NO_PARAMETERS, { unknown: '1' })),
        ...(route.body ? [] : [thrownBy(() => assertNoBody({ 'content-length': '2' }))]),
      ],
    },
    401: { description: 'The admin token is missing or wrong.', examples: [invalidAdminToken()] },
    429: {
      description:
        'Too many wrong or missing tokens from this address: every request from it waits `Retry-After` ' +
        'seconds, one with the right token included.',
      examples: [rateLimitExceeded()],
    },
    500: { description: 'Failure on the service side: retry later.', examples: [internalError()] },
  };
  if (route.limit)
    errors[429] = {
      description: `${route.limit.description} ${errors[429]?.description}`,
      examples: [routeLimitExceeded(route.limit), ...(errors[429]?.examples ?? [])],
    };
  const declared = new Set(route.errors ?? []);
  if (declared.has(400) && route.validateBody === false)
    errors[400]?.examples.push(invalidRequest('The request body must be a JSON object.'));
  if (declared.has(404) || pathIds(route.url).length > 0)
    errors[404] = {
      description: 'No such record (or a path id that is not a uuid).',
      examples: [notFound()],
    };
  if (declared.has(409))
    errors[409] = {
      description: 'The record is in a state that refuses this action, or its id is ambiguous.',
      examples: [ambiguousId('record')],
    };
  const { body } = route;
  if (body && (route.validateBody !== false || declared.has(422)))
    errors[422] = {
      description: 'A field of the body is invalid: `details.fields` maps each bad field to a message.',
      examples: [
        route.validateBody === false
          ? validationFailed({ 'collection[index].field': 'what is wrong with it' })
          : // An empty body names the required fields; a body whose fields are all optional, an unknown one.
            thrownBy(() => {
              validateBody(body, {});
              validateBody(body, { unknown_field: true });
            }),
      ],
    };
  return errors;
}

export function buildAdminOpenApiDocument(routes: AdminRouteTable): Record<string, unknown> {
  const schemas = new SchemaRegistry();
  const errorRef = schemas.ref(ErrorSchema);
  const refs = (names: readonly ResponseHeader[]) =>
    Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  const headers = refs(STAMPED_HEADERS);
  const content = (schema: TSchema, example: Json | undefined) => ({
    [JSON_MEDIA]: { schema: schemas.ref(schema), ...(example === undefined ? {} : { example }) },
  });
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const [operationId, route] of Object.entries(routes)) {
    tags.add(route.tag);
    // The answer shows the demo record of its resource; a request body, the fields of the record it writes
    // (the one the operation answers with).
    const answered = route.response ? plain(route.response) : undefined;
    const record = typeof answered?.title === 'string' ? seedSample(answered.title) : undefined;
    const bodyExample = route.body
      ? exampleOf(plain(route.body), { minimal: true, sample: seedSample, record })
      : undefined;
    const responses: Record<string, unknown> = {
      [route.status]: {
        description: STATUS_CODES[route.status] ?? 'Success',
        headers,
        ...(route.response
          ? { content: content(route.response, exampleOf(plain(route.response), RESPONSE_EXAMPLES)) }
          : {}),
      },
    };
    for (const [status, { description, examples }] of Object.entries(adminErrors(route)))
      responses[status] = {
        description,
        headers: status === '429' ? refs([...STAMPED_HEADERS, 'Retry-After']) : headers,
        content: { [JSON_MEDIA]: { schema: errorRef, ...errorExamples(examples) } },
      };
    const path = `/admin${openApiPath(route.url)}`;
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      operationId,
      tags: [route.tag],
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      parameters: [
        ...pathIds(route.url).map((name) => parameter(name, 'path', Uuid, true)),
        ...Object.entries(route.query?.properties ?? {}).map(([name, schema]) =>
          parameter(name, 'query', schema, route.query?.required?.includes(name) ?? false),
        ),
      ],
      ...(route.body
        ? {
            requestBody: {
              required: route.validateBody !== false,
              content: content(route.body, bodyExample),
            },
          }
        : {}),
      responses,
      'x-codeSamples': adminRouteSamples(route, pathSampleId(route.url), bodyExample),
    };
  }
  // The listener's routes for machines, its own description and the page rendering it: no token.
  const open = (
    path: string,
    tag: string,
    operationId: string,
    summary: string,
    responses: Record<string, unknown>,
  ) => {
    const parameters = pathIds(path.replace(/\{(\w+)\}/g, ':$1')).map((name) =>
      parameter(name, 'path', StringEnum(REFERENCE_FILES), true),
    );
    const url = path.replace('{file}', REFERENCE_FILES[0] as string);
    paths[path] = {
      get: {
        operationId,
        tags: [tag],
        summary,
        security: [],
        ...(parameters.length > 0 ? { parameters } : {}),
        responses,
        'x-codeSamples': [adminSample('GET', url, undefined, { token: false })],
      },
    };
  };
  const answer = (
    description: string,
    media?: Record<string, unknown>,
    extra: readonly ResponseHeader[] = [],
  ) => ({
    description,
    headers: refs([...STAMPED_HEADERS, ...extra]),
    ...(media ? { content: media } : {}),
  });
  const probe = (schema: TSchema, example = exampleOf(plain(schema), RESPONSE_EXAMPLES)) =>
    content(schema, example);
  open('/healthz', PROBES, 'liveness', 'Liveness of the process', {
    200: answer('Alive.', probe(Liveness)),
  });
  open('/readyz', PROBES, 'readiness', 'Readiness to serve', {
    200: answer('Ready.', probe(Readiness, { status: 'ready' })),
    503: answer(
      'Not ready: migrations pending, database unreachable or disk full.',
      probe(Readiness, { status: 'migrations_pending', pending: 1 }),
    ),
  });
  open('/metrics', PROBES, 'metrics', 'Prometheus metrics', {
    200: answer('The text exposition format.', { 'text/plain': {} }),
  });
  open('/openapi.json', REFERENCE, 'adminOpenApi', 'This document', {
    200: answer('This document.', { [JSON_MEDIA]: {} }),
  });
  const notModified = answer('The copy named in `If-None-Match` is current: no body.', undefined, ['ETag']);
  open('/docs', REFERENCE, 'adminReferencePage', 'The reference page, rendered from this document', {
    200: answer(
      'An HTML page: works offline, loading nothing from outside this service.',
      { 'text/html': {} },
      PAGE_HEADERS,
    ),
    304: notModified,
  });
  open('/docs/{file}', REFERENCE, 'adminReferenceFile', 'A file of the reference page', {
    200: answer(
      'The file.',
      Object.fromEntries(['text/javascript', 'text/css', 'text/plain'].map((type) => [type, {}])),
      PAGE_HEADERS,
    ),
    304: notModified,
    404: {
      description: 'No such file.',
      headers,
      content: { [JSON_MEDIA]: { schema: errorRef, ...errorExamples([notFound('file')]) } },
    },
  });
  tags.add(PROBES);
  tags.add(REFERENCE);
  return {
    openapi: '3.1.0',
    info: { ...INFO, ...PUBLISHER },
    servers: [{ url: '/', description: 'The management listener.' }],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: [...tags].map((name) => {
      const description = TAG_DESCRIPTIONS[name];
      if (!description) throw new Error(`admin tag ${name} has no description`);
      return { name, description };
    }),
    paths,
    components: {
      schemas: sorted(schemas.components),
      headers: Object.fromEntries(
        [...STAMPED_HEADERS, 'Retry-After' as const, ...PAGE_HEADERS].map((name) => {
          const { description, schema } = RESPONSE_HEADERS[name];
          return [name, { description, required: true, schema: plain(schema) }];
        }),
      ),
      responses: {
        NotFound: {
          description: 'No such path or method.',
          headers,
          content: { [JSON_MEDIA]: { schema: errorRef, ...errorExamples([notFound()]) } },
        },
      },
      securitySchemes: {
        [SECURITY_SCHEME]: {
          type: 'http',
          scheme: 'bearer',
          description: 'The operator token (`ADMIN_TOKEN`, or the one printed at the first start).',
        },
      },
    },
  };
}

let text: string | undefined;

/** The document as committed in openapi.admin.json and served by the admin listener (built once). */
export function adminDocumentText(): string {
  text ??= `${JSON.stringify(buildAdminOpenApiDocument(adminRoutes), null, 2)}\n`;
  return text;
}
