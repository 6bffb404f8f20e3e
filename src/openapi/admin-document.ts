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
} from '../http/errors.js';
import { RESPONSE_HEADERS, STAMPED_HEADERS } from '../http/headers.js';
import { rateLimitExceeded, thrownBy } from '../http/route.js';
import { NO_PARAMETERS, validateBody, validateQuery } from '../http/validation.js';
import { adminRoutes } from '../management/admin-routes.js';
import { invalidAdminToken } from '../management/auth.js';
import { ambiguousId } from '../management/locate.js';
import { Liveness, Readiness } from '../management/probes.js';
import type { AdminRouteDef, AdminRouteTable } from '../management/route.js';
import { Uuid } from '../schema/fields.js';
import { errorExamples, openApiPath, parameter, plain, SchemaRegistry, sorted } from './document.js';
import { exampleOf, type Json } from './examples.js';

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

/** What each group of operations is for; a tag of the table without one here fails the build of the document. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Workspaces: 'Workspaces (tenants), their users, and bulk imports of their records.',
  'API keys': 'Keys of the public API: issued with scopes, listed by prefix, revoked.',
  Lifecycle: 'What the web application does to records: status transitions, renders, alerts, reviews.',
  'Webhook endpoints': 'Receivers of signed events, their secrets, and redelivery.',
  Probes: 'For machines: liveness, readiness, metrics and this document. No token.',
};

const pathIds = (url: string) => [...url.matchAll(/:(\w+)/g)].map((match) => match[1] as string);

/** The error responses of an admin route: the listener's own checks, then those its handler declares. */
function adminErrors(route: AdminRouteDef): Record<number, { description: string; examples: ApiError[] }> {
  const errors: Record<number, { description: string; examples: ApiError[] }> = {
    400: {
      description: route.query
        ? 'Malformed request: an unknown or invalid query parameter (named in `details.parameter`), a body ' +
          'that is not JSON, or a header sent twice.'
        : 'Malformed request: a query parameter (none is taken), a body that is not JSON, or a header sent twice.',
      examples: [thrownBy(() => validateQuery(route.query ?? NO_PARAMETERS, { unknown: '1' }))],
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
  const headers = Object.fromEntries(
    STAMPED_HEADERS.map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
  const retryAfter = { $ref: '#/components/headers/Retry-After' };
  const content = (schema: TSchema, minimal: boolean) => ({
    [JSON_MEDIA]: { schema: schemas.ref(schema), example: exampleOf(plain(schema), { minimal }) as Json },
  });
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const [operationId, route] of Object.entries(routes)) {
    tags.add(route.tag);
    const responses: Record<string, unknown> = {
      [route.status]: {
        description: STATUS_CODES[route.status] ?? 'Success',
        headers,
        ...(route.response ? { content: content(route.response, false) } : {}),
      },
    };
    for (const [status, { description, examples }] of Object.entries(adminErrors(route)))
      responses[status] = {
        description,
        headers: status === '429' ? { ...headers, 'Retry-After': retryAfter } : headers,
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
        ? { requestBody: { required: route.validateBody !== false, content: content(route.body, true) } }
        : {}),
      responses,
    };
  }
  // The listener's routes for machines and its own description: no token.
  const open = (operationId: string, summary: string, responses: Record<string, unknown>) => ({
    get: { operationId, tags: ['Probes'], summary, security: [], responses },
  });
  const answer = (description: string, media: Record<string, unknown>) => ({
    description,
    headers,
    content: media,
  });
  paths['/healthz'] = open('liveness', 'Liveness of the process', {
    200: answer('Alive.', content(Liveness, false)),
  });
  paths['/readyz'] = open('readiness', 'Readiness to serve', {
    200: answer('Ready.', content(Readiness, false)),
    503: answer(
      'Not ready: migrations pending, database unreachable or disk full.',
      content(Readiness, false),
    ),
  });
  paths['/metrics'] = open('metrics', 'Prometheus metrics', {
    200: answer('The text exposition format.', { 'text/plain': {} }),
  });
  paths['/openapi.json'] = open('adminOpenApi', 'This document', {
    200: answer('This document.', { [JSON_MEDIA]: {} }),
  });
  tags.add('Probes');
  return {
    openapi: '3.1.0',
    info: INFO,
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
        [...STAMPED_HEADERS, 'Retry-After' as const].map((name) => {
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
