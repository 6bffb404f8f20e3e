// GET /files/:token?expires=…&signature=… — the signed PDF download the service issues through
// GET /reports/{id}/pdf (decision 4: the only public path outside /v1 besides the API reference). No API key:
// the URL itself is the credential, valid 5 minutes (risk-data-api.md "Limits").
//
// A refused URL (tampered, expired, or naming an object that no longer exists) answers 404
// `resource_not_found` in the error shape: the closed list of error codes has no 403 code that fits (both
// are about API keys), and a URL the service did not issue is, per decision 4, a path outside the API.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../app.js';
import { ApiError, notFound } from '../../http/errors.js';
import { verifyObjectUrl } from '../../reports/signed-url.js';

/** GET /files/:token — the signed PDF download (outside /v1, no API key). */
export function registerFileRoute(app: FastifyInstance, services: Services): void {
  app.get('/files/:token', async (request, reply) => {
    const { token } = request.params as { token: string };
    const query = request.query as Record<string, unknown>;
    const verdict = verifyObjectUrl({
      token,
      expires: query.expires as string,
      signature: query.signature as string,
      secret: services.urlSecret,
    });
    if (!verdict.ok) {
      throw verdict.reason === 'expired'
        ? new ApiError('resource_not_found', 'This download link has expired. Request a new one.')
        : notFound('file');
    }
    const bytes = await services.objects.get(verdict.objectKey);
    if (!bytes) throw notFound('file');
    return reply
      .header('content-type', 'application/pdf')
      .header('content-disposition', 'attachment; filename="report.pdf"')
      .send(bytes);
  });
}
