// The API reference's operations, which need no key or token (decision 4): the OpenAPI document at GET
// /openapi.json and a page at GET /docs that renders it, with the files it loads (P120). The contracts
// (handlers: reference.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { notFound } from '../contract/errors.js';
import type { ResponseHeader } from '../contract/headers.js';
import { none, operation, type ResponseSpec } from '../contract/operation.js';
import { StringEnum } from '../schema/fields.js';

const TAG = 'API reference';

/** The files the reference pages load (the same on both listeners). */
export const REFERENCE_FILES = [
  'redoc.standalone.js',
  // The bundle's own first line points here.
  'redoc.standalone.js.LICENSE.txt',
  'reference.js',
  'reference.css',
] as const;
export type ReferenceFile = (typeof REFERENCE_FILES)[number];

export const PAGE_HEADERS: readonly ResponseHeader[] = [
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

export const getOpenApiDocument = operation({
  id: 'getOpenApiDocument',
  method: 'GET',
  path: '/openapi.json',
  auth: none(),
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
});

export const getApiReferencePage = operation({
  id: 'getApiReferencePage',
  method: 'GET',
  path: '/docs',
  auth: none(),
  tag: TAG,
  summary: 'The API reference page, rendered from this document',
  description:
    'Every operation with its parameters, schemas, examples and code samples. Works offline: the page ' +
    'loads nothing from outside this service.',
  extraBuckets: 'reference',
  responses: {
    200: { description: 'An HTML page.', mediaTypes: ['text/html'], headers: PAGE_HEADERS },
    304: NOT_MODIFIED,
  },
});

export const getApiReferenceFile = operation({
  id: 'getApiReferenceFile',
  method: 'GET',
  path: '/docs/:file',
  auth: none(),
  tag: TAG,
  summary: 'A file of the API reference page: its script, stylesheet or licenses',
  params: { file: StringEnum(REFERENCE_FILES) },
  extraBuckets: 'reference',
  responses: {
    200: {
      description: 'The file.',
      mediaTypes: ['text/javascript', 'text/css', 'text/plain'],
      headers: PAGE_HEADERS,
    },
    304: NOT_MODIFIED,
    404: { description: 'No such file.', errors: [notFound('file')] },
  },
});

export const referenceOperations = [getOpenApiDocument, getApiReferencePage, getApiReferenceFile];
