// The API reference of each listener, needing no key or token (decision 4): the OpenAPI document at GET
// /openapi.json and a page at GET /docs that renders it, code samples (`x-codeSamples`) included, with Redoc's
// standalone bundle served from here (P120). The page works offline: it loads only files this service serves,
// uses the system fonts, and its Content-Security-Policy forbids anything else.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../contract/errors.js';
import { sendRevalidatable } from '../http/revalidation.js';
import { handle, type Route } from '../http/route.js';
import { apiDocumentText } from './document.js';
import {
  getApiReferenceFile,
  getApiReferencePage,
  getOpenApiDocument,
  type ReferenceFile,
} from './reference-operations.js';

const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // No inline style but two the bundle inserts: the empty stylesheets styled-components then fills through
  // the CSSOM (which the policy does not govern), and perfect-scrollbar's sheet, which is the same text in
  // every copy of Redoc 2.5.4. Another bundle with another sheet is refused, and test/system/docs-page.test.ts says so.
  "style-src 'self' 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=' 'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='",
  "img-src 'self' data:",
  // The page fetches the document; its search runs in a worker that the bundle makes from a Blob.
  "connect-src 'self'",
  'worker-src blob:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page of a listener: its title, and the document it renders (GET /openapi.json of the same origin). */
function page(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/reference.css">
</head>
<body>
<div id="reference"></div>
<script src="/docs/redoc.standalone.js"></script>
<script src="/docs/reference.js"></script>
</body>
</html>
`;
}

/** The two pages, by listener. */
const REFERENCE_PAGES = {
  public: { name: 'docs', body: page('Third-party risk data API reference') },
  admin: { name: 'admin/docs', body: page('Third-party risk data API: management reference') },
} as const;

// Both listeners serve their document at /openapi.json, so one initializer does for both pages. Redoc's own
// fonts (Roboto, Montserrat) are not bundled: the system's are named instead of falling back silently.
const INITIALIZER = `const fonts = 'system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif';
Redoc.init(
  '/openapi.json',
  {
    expandResponses: '200,201',
    requiredPropsFirst: true,
    jsonSampleExpandLevel: 3,
    theme: { typography: { fontFamily: fonts, headings: { fontFamily: fonts } } },
  },
  document.getElementById('reference'),
);
`;

const STYLESHEET = 'body { margin: 0; padding: 0; }\n';

/** The one URL outside this service in the bundle: the Redocly logo beside "API docs by Redocly" in the
 * sidebar, which the bundle shows unconditionally. Served as an empty image, the bundle hides it. */
const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

const redoc = (file: string) =>
  readFileSync(createRequire(import.meta.url).resolve(`redoc/bundles/${file}`), 'utf8');

/** The files the pages load, read once on first use. */
const ASSETS: Record<ReferenceFile, { type: string; read: () => string }> = {
  'redoc.standalone.js': {
    type: 'text/javascript; charset=utf-8',
    read: () => redoc('redoc.standalone.js').replaceAll(REDOCLY_LOGO, 'data:,'),
  },
  'redoc.standalone.js.LICENSE.txt': {
    type: 'text/plain; charset=utf-8',
    read: () => redoc('redoc.standalone.js.LICENSE.txt'),
  },
  'reference.js': { type: 'text/javascript; charset=utf-8', read: () => INITIALIZER },
  'reference.css': { type: 'text/css; charset=utf-8', read: () => STYLESHEET },
};
const loaded = new Map<string, string>();

/** GET /docs of a listener. */
export function sendReferencePage(
  request: FastifyRequest,
  reply: FastifyReply,
  listener: keyof typeof REFERENCE_PAGES,
): FastifyReply {
  return sendRevalidatable(
    request,
    reply,
    REFERENCE_PAGES[listener],
    pageHeaders('text/html; charset=utf-8'),
  );
}

/** GET /docs/{file}: a file of the page (the same on both listeners), or a 404. */
export function sendReferenceFile(request: FastifyRequest, reply: FastifyReply, name: string): FastifyReply {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name as ReferenceFile] : undefined;
  if (!asset) throw notFound('file');
  const body = loaded.get(name) ?? asset.read();
  loaded.set(name, body);
  return sendRevalidatable(request, reply, { name: `docs/${name}`, body }, pageHeaders(asset.type));
}

export const apiReferenceRoutes: Route[] = [
  handle(getOpenApiDocument, async ({ request, reply }) =>
    sendRevalidatable(
      request,
      reply,
      { name: 'openapi.json', body: apiDocumentText() },
      { 'content-type': 'application/json; charset=utf-8' },
    ),
  ),
  handle(getApiReferencePage, async ({ request, reply }) => sendReferencePage(request, reply, 'public')),
  handle(getApiReferenceFile, async ({ request, reply }, { params }) =>
    sendReferenceFile(request, reply, params.file),
  ),
];
function pageHeaders(type: string): Record<string, string> {
  return {
    'content-type': type,
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
}
