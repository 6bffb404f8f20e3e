// The management listener's OpenAPI 3.1 document (openapi.admin.json, drift-checked, served at GET
// /openapi.json on the admin listener): its profile for the one builder (builder.ts). The listener's own
// answers to an operator operation (400, 401, 429, 500, a path id's 404, a body's 422) are derived here from
// what its pipeline checks (http/route.ts); the others are those each contract declares.
import type { TSchema } from 'typebox';
import { notFound } from '../contract/errors.js';
import { type ResponseHeader, STAMPED_HEADERS } from '../contract/headers.js';
import {
  type Operation,
  type OperatorAuth,
  PATH_PREFIX,
  pathParameters,
  success,
} from '../contract/operation.js';
import { operatorErrors, unmeteredHeaders } from '../http/route.js';
import { adminOperations } from '../management/admin-operations.js';
import { Liveness, Readiness } from '../management/probes.js';
import { StringEnum } from '../schema/fields.js';
import {
  type AuthRules,
  buildDocument,
  type DescribedResponse,
  type DocumentProfile,
  PUBLISHER,
  parameter,
  RESPONSE_EXAMPLES,
  sorted,
} from './builder.js';
import { adminRouteSamples, adminSample } from './code-samples.js';
import { exampleOf, plain } from './examples.js';
import { PAGE_HEADERS, REFERENCE_FILES } from './reference-operations.js';
import { seedSample } from './seed-samples.js';

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
  Sinks:
    'Collectors (HTTP, Splunk HEC, syslog) that receive the audit trail and the events, at least once, in batches.',
  [PROBES]: 'For machines: liveness, readiness and metrics. No token.',
  [REFERENCE]: 'This document and the page that renders it. No token.',
};

/** An operation under /admin: the operator token, the listener's own checks (http/route.ts). */
const OPERATOR_RULES: AuthRules<Operation<OperatorAuth>> = {
  responses(operation) {
    const [status, spec] = success(operation, true);
    const described: Record<number, DescribedResponse> = {
      [status]: { spec, errors: [], headers: { required: unmeteredHeaders(status), optional: [] } },
    };
    for (const [status, { description, examples }] of Object.entries(operatorErrors(operation)))
      described[Number(status)] = {
        spec: { description },
        errors: examples,
        headers: { required: unmeteredHeaders(Number(status)), optional: [] },
      };
    return described;
  },
  pathPrefix: PATH_PREFIX.operator,
  judgedBodyRequired: false,
  // A request body shows the fields of the demo record it writes (the one the operation answers with).
  bodyExample: (_body, answered) => ({
    minimal: true,
    sample: seedSample,
    record: answered === undefined ? undefined : seedSample(answered),
  }),
  samples: (operation, { ids, body }) => adminRouteSamples(operation, ids, body),
};

export function buildAdminOpenApiDocument(operations: Record<string, Operation>): Record<string, unknown> {
  return buildDocument({
    operations: Object.values(operations),
    rules: { operator: OPERATOR_RULES },
    tagDescription: (name) => TAG_DESCRIPTIONS[name],
    extraPaths: probesAndReference,
    notFound: { description: 'No such path or method.', optionalHeaders: [] },
    shareResponses: false,
    layout: ({ schemas, headers, paths, tags, responses }) => ({
      openapi: '3.1.0',
      info: { ...INFO, ...PUBLISHER },
      servers: [{ url: '/', description: 'The management listener.' }],
      security: [{ [SECURITY_SCHEME]: [] }],
      tags,
      paths,
      components: {
        schemas: sorted(schemas.components),
        // In the order of their first use.
        headers: headers.components,
        responses,
        securitySchemes: {
          [SECURITY_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            description: 'The operator token (`ADMIN_TOKEN`, or the one printed at the first start).',
          },
        },
      },
    }),
  });
}

/** The listener's routes for machines, its own description and the page rendering it: no token. */
function probesAndReference({
  headers,
  content,
  errorContent,
}: Parameters<NonNullable<DocumentProfile['extraPaths']>>[0]): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  const refs = (names: readonly ResponseHeader[]) => headers.refs(names);
  const open = (
    path: string,
    tag: string,
    operationId: string,
    summary: string,
    responses: Record<string, unknown>,
  ) => {
    const parameters = pathParameters(path.replace(/\{(\w+)\}/g, ':$1')).map((name) =>
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
  // Made where used: header components come in the order of their first use.
  const notModified = () =>
    answer('The copy named in `If-None-Match` is current: no body.', undefined, ['ETag']);
  open('/docs', REFERENCE, 'adminReferencePage', 'The reference page, rendered from this document', {
    200: answer(
      'An HTML page: works offline, loading nothing from outside this service.',
      { 'text/html': {} },
      PAGE_HEADERS,
    ),
    304: notModified(),
  });
  open('/docs/{file}', REFERENCE, 'adminReferenceFile', 'A file of the reference page', {
    200: answer(
      'The file.',
      Object.fromEntries(['text/javascript', 'text/css', 'text/plain'].map((type) => [type, {}])),
      PAGE_HEADERS,
    ),
    304: notModified(),
    404: {
      description: 'No such file.',
      headers: refs(STAMPED_HEADERS),
      content: errorContent([notFound('file')]),
    },
  });
  return paths;
}

let text: string | undefined;

/** The document as committed in openapi.admin.json and served by the admin listener (built once). */
export function adminDocumentText(): string {
  text ??= `${JSON.stringify(buildAdminOpenApiDocument(adminOperations), null, 2)}\n`;
  return text;
}
