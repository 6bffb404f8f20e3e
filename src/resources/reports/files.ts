// GET /files/:token?expires=…&signature=… — the signed PDF download the service issues through
// GET /reports/{id}/pdf (decision 4: the only public path outside /v1 besides the API reference). No API key:
// the URL itself is the credential, valid 5 minutes (risk-data-api.md "Limits").
//
// A refused URL (tampered, expired, or naming an object that no longer exists) answers 404
// `resource_not_found` in the error shape: the closed list of error codes has no 403 code that fits (both
// are about API keys), and a URL the service did not issue is, per decision 4, a path outside the API.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { ApiError, notFound } from '../../contract/errors.js';
import type { OpenRouteDef } from '../../http/open-route.js';
import { SignedUrlParts, verifyObjectUrl } from '../../reports/signed-url.js';

const linkExpired = () =>
  new ApiError('resource_not_found', 'This download link has expired. Request a new one.');

export const fileRoute: OpenRouteDef = {
  method: 'GET',
  url: '/files/:token',
  operationId: 'downloadReportPdf',
  tag: 'Reports',
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
  async handler(request, reply, services) {
    const verdict = verifyObjectUrl({
      token: request.params.token as string,
      expires: request.query.expires as string,
      signature: request.query.signature as string,
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
};
