// GET /reports, GET /reports/{id}, GET /reports/{id}/pdf (risk-data-api.md "Endpoints › Reports"; decision 33).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.

import { conflict, notFound } from '../../contract/errors.js';
import { fieldFilters, getRoute, listRoute, readOne } from '../../http/list.js';
import { type RouteContext, type RouteDef, route } from '../../http/route.js';
import { SIGNED_URL_TTL_SECONDS, signObjectUrl } from '../../reports/signed-url.js';
import type { Services } from '../../services.js';
import type { TenantDb } from '../../storage/tenant.js';
import { Report } from './schema.js';

const TAG = 'Reports';

const listReports = listRoute({
  url: '/reports',
  operationId: 'listReports',
  scope: 'reports:read',
  tag: TAG,
  summary: 'List reports, newest generated first',
  list: {
    resource: Report,
    order: { column: 'generated_at', direction: 'desc' },
    filters: {
      ...fieldFilters(Report, ['supplier_id', 'assessment_id']),
    },
  },
});

/** One report as JSON (also used by the admin render action). */
export const readReport = (q: TenantDb, id: string) => readOne(q, Report, id);

const getReport = getRoute({
  url: '/reports/:id',
  operationId: 'getReport',
  scope: 'reports:read',
  tag: TAG,
  summary: 'Get one report',
  resource: Report,
  noun: 'report',
});

const pdfNotReady = () =>
  conflict('The PDF of this report has not been generated yet.', { reason: 'pdf_not_ready' });

const getReportPdf = route({
  method: 'GET',
  url: '/reports/:id/pdf',
  operationId: 'getReportPdf',
  scope: 'reports:read',
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
  async handler(ctx: RouteContext<Services>, { params }) {
    const [row] = await ctx.tenant.query<{ key: string | null }>(
      'select pdf_object_key as key from reports where workspace_id = $ws and id = $1',
      [params.id],
    );
    if (!row) throw notFound('report');
    if (!row.key) throw pdfNotReady();
    // The key is encrypted inside the signed token (reports/signed-url.ts), so it never appears in the URL.
    const location = signObjectUrl({
      baseUrl: ctx.services.config.publicBaseUrl,
      objectKey: row.key,
      expiresAt: Math.floor(Date.now() / 1000) + SIGNED_URL_TTL_SECONDS,
      secret: ctx.services.urlSecret,
    });
    return { status: 302, headers: { location } };
  },
});

export const reportsRoutes: RouteDef[] = [listReports, getReport, getReportPdf];
