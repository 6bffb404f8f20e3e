// The management listener: /admin (bearer ADMIN_TOKEN) from the operations' contracts bound to their handlers
// (handlers.ts), each through the operator's pipeline (http/route.ts) in one loop; its OpenAPI
// document and reference page, and the probes (/healthz, /readyz, /metrics).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BoundOperation, OperatorContext } from '../http/operator.js';
import { registerOperatorRoute } from '../http/route.js';
import { adminDocumentText } from '../openapi/admin-document.js';
import { sendReferenceFile, sendReferencePage } from '../openapi/reference.js';
import type { Services } from '../services.js';
import { operatorStore } from '../storage/operator.js';
import { registerProbes } from './probes.js';

export function buildAdminRoutes(
  app: FastifyInstance,
  services: Services,
  operations: readonly BoundOperation[],
): void {
  // An operation without a body refuses one after the token is checked, like a query parameter (P114). In this
  // scope the listener's JSON parser does not judge the body of a POST or DELETE before the token (nor refuse
  // an empty one sent with a JSON Content-Type): a JSON body is kept as its bytes, any other left unread.
  app.register(async (noBody) => {
    noBody.removeAllContentTypeParsers();
    noBody.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    );
    noBody.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    // The handler's context for a request: no pool, the operator store's units of work (http/operator.ts).
    const context = (request: FastifyRequest): OperatorContext => ({
      ...operatorStore(services.db, request.id),
      objects: services.objects,
      cursors: services.cursors,
      allowInsecureWebhookUrls: services.config.webhookAllowInsecureUrls,
      authChanged: () => services.auth.invalidate(),
    });
    const operator = { ...services, context };
    for (const bound of operations)
      registerOperatorRoute(bound.operation.body ? app : noBody, operator, bound);
  });

  // The listener's own description and the page rendering it, like /healthz without the token: they hold no
  // secret, and the page's files are the public listener's (P120).
  app.get('/openapi.json', async (_request, reply) =>
    reply.header('content-type', 'application/json; charset=utf-8').send(adminDocumentText()),
  );
  app.get('/docs', async (request, reply) => sendReferencePage(request, reply, 'admin'));
  app.get<{ Params: { file: string } }>('/docs/:file', async (request, reply) =>
    sendReferenceFile(request, reply, request.params.file),
  );
  registerProbes(app, services);
}
