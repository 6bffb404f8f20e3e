// The handlers of the reports' operations (operations.ts), the signed download included: GET /files/:token
// answers the URL that GET /reports/{id}/pdf issues, valid 5 minutes (risk-data-api.md "Limits").
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { notFound } from '../../contract/errors.js';
import { handleGet, handleList, readOne } from '../../http/list.js';
import { handle, type OpenContext, type Route, type RouteContext } from '../../http/route.js';
import { SIGNED_URL_TTL_SECONDS, signObjectUrl, verifyObjectUrl } from '../../reports/signed-url.js';
import type { Services } from '../../services.js';
import type { TenantDb } from '../../storage/tenant.js';
import {
  downloadReportPdf,
  getReport,
  getReportPdf,
  linkExpired,
  listReports,
  pdfNotReady,
} from './operations.js';
import { Report } from './schema.js';

/** One report as JSON (also used by the admin render action). */
export const readReport = (q: TenantDb, id: string) => readOne(q, Report, id);

const redirectToPdf = handle(getReportPdf, async (ctx: RouteContext<Services>, { params }) => {
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
});

const download = handle(
  downloadReportPdf,
  async ({ reply, services }: OpenContext<Services>, { params, query }) => {
    const verdict = verifyObjectUrl({
      token: params.token,
      expires: query.expires,
      signature: query.signature,
      secret: services.urlSecret,
    });
    if (!verdict.ok) throw verdict.reason === 'expired' ? linkExpired() : notFound('file');
    const pdf = await services.objects.open(verdict.objectKey);
    if (!pdf) throw notFound('file');
    // Streamed from the database slice by slice (P80); a PDF replaced mid-download cuts the response short.
    return reply
      .header('content-type', pdf.contentType)
      .header('content-length', pdf.size)
      .header('content-disposition', 'attachment; filename="report.pdf"')
      .send(pdf.body);
  },
);

export const reportsRoutes: Route[] = [
  handleList(listReports, { order: { column: 'generated_at', direction: 'desc' } }),
  handleGet(getReport),
  redirectToPdf,
  download,
];
