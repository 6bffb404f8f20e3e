// The API reference on the public listener, outside /v1 and without a key (decision 4): the OpenAPI document
// at GET /openapi.json and a Swagger UI page at GET /docs that works offline. The page loads only files
// served from here (the swagger-ui-dist bundle and a small initializer), uses the system fonts, and its
// Content-Security-Policy forbids anything else. Swagger UI's one outbound request, the online validator
// badge, is not part of this layout and is switched off besides (validatorUrl null).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Type } from 'typebox';
import { notFound } from '../http/errors.js';
import type { ResponseHeader } from '../http/headers.js';
import type { OpenRouteDef } from '../http/open-route.js';
import { sendRevalidatable } from '../http/revalidation.js';
import type { ResponseSpec } from '../http/route.js';
import { openRoutes, publicRoutes } from '../resources/index.js';
import { WebhookEventPayloads } from '../resources/webhooks/schema.js';
import { StringEnum } from '../schema/fields.js';
import { buildOpenApiDocument } from './document.js';

const TAG = 'API reference';

let text: string | undefined;

/** The document as committed in openapi.json and served at GET /openapi.json (built once per process). */
export function apiDocumentText(): string {
  text ??= `${JSON.stringify(
    buildOpenApiDocument({
      routes: publicRoutes,
      openRoutes: servedOpenRoutes,
      events: WebhookEventPayloads,
    }),
    null,
    2,
  )}\n`;
  return text;
}

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // Swagger UI's stylesheet draws its icons from data: URIs.
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS: readonly ResponseHeader[] = [
  'Content-Security-Policy',
  'X-Content-Type-Options',
  'Referrer-Policy',
  'ETag',
];

/** The answer to a conditional GET naming the current copy (decision P69). */
const NOT_MODIFIED: ResponseSpec = {
  description: 'The copy named in `If-None-Match` is current: no body.',
  headers: ['ETag'],
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Third-party risk data API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/reference.js"></script>
</body>
</html>
`;

// validatorUrl null: a layout with the badge would otherwise send the document's URL to validator.swagger.io.
const INITIALIZER = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  displayOperationId: true,
  defaultModelsExpandDepth: 0,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const swaggerUi = (file: string) => () =>
  readFileSync(createRequire(import.meta.url).resolve(`swagger-ui-dist/${file}`));

/** The files the page loads, read once on first use. */
const ASSETS: Record<string, { type: string; read: () => Buffer | string }> = {
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', read: swaggerUi('swagger-ui-bundle.js') },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', read: swaggerUi('swagger-ui.css') },
  'reference.js': { type: 'text/javascript; charset=utf-8', read: () => INITIALIZER },
};
const loaded = new Map<string, Buffer | string>();

export const apiReferenceRoutes: OpenRouteDef[] = [
  {
    method: 'GET',
    url: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: TAG,
    summary: 'This OpenAPI 3.1 document',
    extraBuckets: 'reference',
    responses: {
      200: {
        description: 'The OpenAPI document of the API.',
        schema: Type.Object(
          { openapi: Type.String({ examples: ['3.1.0'] }) },
          { additionalProperties: true, description: 'An OpenAPI 3.1 document.' },
        ),
        headers: ['ETag'],
      },
      304: NOT_MODIFIED,
    },
    async handler(request, reply) {
      return sendRevalidatable(
        request,
        reply,
        { name: 'openapi.json', body: apiDocumentText() },
        { 'content-type': 'application/json; charset=utf-8' },
      );
    },
  },
  {
    method: 'GET',
    url: '/docs',
    operationId: 'getApiReferencePage',
    tag: TAG,
    summary: 'The API reference page, rendered from this document',
    description: 'Works offline: the page loads nothing from outside this service.',
    extraBuckets: 'reference',
    responses: {
      200: { description: 'An HTML page.', mediaTypes: ['text/html'], headers: PAGE_HEADERS },
      304: NOT_MODIFIED,
    },
    async handler(request, reply) {
      return sendRevalidatable(
        request,
        reply,
        { name: 'docs', body: PAGE },
        pageHeaders('text/html; charset=utf-8'),
      );
    },
  },
  {
    method: 'GET',
    url: '/docs/:file',
    operationId: 'getApiReferenceFile',
    tag: TAG,
    summary: 'A script or stylesheet of the API reference page',
    params: { file: StringEnum(Object.keys(ASSETS)) },
    extraBuckets: 'reference',
    responses: {
      200: { description: 'The file.', mediaTypes: ['text/javascript', 'text/css'], headers: PAGE_HEADERS },
      304: NOT_MODIFIED,
      404: { description: 'No such file.', errors: [notFound('file')] },
    },
    async handler(request, reply) {
      const name = request.params.file as string;
      const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
      if (!asset) throw notFound('file');
      const body = loaded.get(name) ?? asset.read();
      loaded.set(name, body);
      return sendRevalidatable(request, reply, { name: `docs/${name}`, body }, pageHeaders(asset.type));
    },
  },
];

/** Every public route outside /v1: the resources' and the reference's. */
export const servedOpenRoutes: OpenRouteDef[] = [...openRoutes, ...apiReferenceRoutes];

function pageHeaders(type: string): Record<string, string> {
  return {
    'content-type': type,
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}
