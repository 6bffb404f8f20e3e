// GET /reports, GET /reports/{id}, GET /reports/{id}/pdf, and the signed download they lead to: the contracts
// (handlers: routes.ts; risk-data-api.md "Endpoints › Reports"; decisions 4, 33).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { ApiError, conflict, notFound } from '../../contract/errors.js';
import { getOperation, listOperation } from '../../contract/list.js';
import { apiKey, none, operation } from '../../contract/operation.js';
import { SignedUrlParts } from '../../schema/signed-url.js';
import { Report } from './schema.js';

const TAG = 'Reports';

export const listReports = listOperation({
  id: 'listReports',
  path: '/reports',
  scope: 'reports:read',
  tag: TAG,
  summary: 'List reports, newest generated first',
  resource: Report,
  fieldFilters: ['supplier_id', 'assessment_id'],
});

export const getReport = getOperation({
  id: 'getReport',
  path: '/reports/:id',
  scope: 'reports:read',
  tag: TAG,
  summary: 'Get one report',
  resource: Report,
  noun: 'report',
});

export const pdfNotReady = () =>
  conflict('The PDF of this report has not been generated yet.', { reason: 'pdf_not_ready' });

export const getReportPdf = operation({
  id: 'getReportPdf',
  method: 'GET',
  path: '/reports/:id/pdf',
  auth: apiKey('reports:read'),
  tag: TAG,
  summary: 'Redirect to a signed download URL of the report PDF',
  description:
    'Answers 302 with `Location`: a URL valid for 5 minutes that needs no API key. The stored object path ' +
    'is never returned. 409 (`details.reason` `pdf_not_ready`) until a PDF has been generated. Counts ' +
    'against an additional limit of 60 requests per hour.',
  extraBuckets: 'pdf',
  responses: {
    302: { description: 'Redirect to the signed URL of the PDF (header `Location`).', headers: ['Location'] },
    409: {
      description: 'No PDF has been generated yet (`details.reason` `pdf_not_ready`).',
      errors: [pdfNotReady()],
    },
  },
});

export const linkExpired = () =>
  new ApiError('resource_not_found', 'This download link has expired. Request a new one.');

// The only public path outside /v1 besides the API reference (decision 4). The URL is its own credential.
// A refused URL (tampered, expired, or naming an object that no longer exists) answers 404
// `resource_not_found`: the closed list of error codes has no 403 code that fits (both are about API keys),
// and a URL the service did not issue is, per decision 4, a path outside the API.
export const downloadReportPdf = operation({
  id: 'downloadReportPdf',
  method: 'GET',
  path: '/files/:token',
  auth: none(),
  tag: TAG,
  summary: 'Download a report PDF through a signed URL',
  description:
    'The URL comes from the `Location` of `GET /v1/reports/{id}/pdf` and is its own credential: no API ' +
    'key, valid 5 minutes. A tampered, expired or unknown URL is a 404.',
  params: { token: SignedUrlParts.token },
  query: Type.Object(
    { expires: SignedUrlParts.expires, signature: SignedUrlParts.signature },
    { additionalProperties: false },
  ),
  responses: {
    200: { description: 'The PDF.', mediaTypes: ['application/pdf'], headers: ['Content-Disposition'] },
    404: {
      description: 'The URL was not issued by the service, has expired, or its PDF no longer exists.',
      errors: [notFound('file'), linkExpired()],
    },
  },
});

/** In the specification's order (the download, outside /v1, apart). */
export const reportsOperations = [listReports, getReport, getReportPdf];
