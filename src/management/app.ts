// The management listener: /admin (bearer ADMIN_TOKEN) from the admin route table, its OpenAPI document and
// reference page, and the probes (/healthz, /readyz, /metrics).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidRequest, notFound } from '../contract/errors.js';
import { assertNoBody, assertSingleValuedHeaders } from '../http/request-headers.js';
import { rateLimited } from '../http/route.js';
import { isUuid, validateBody, validateQuery } from '../http/validation.js';
import { adminDocumentText } from '../openapi/admin-document.js';
import { sendReferenceFile, sendReferencePage } from '../openapi/reference.js';
import type { Services } from '../services.js';
import { authenticateOperator } from './auth.js';
import type { Operator } from './operations.js';
import { registerProbes } from './probes.js';
import { type AdminRouteDef, type AdminRouteTable, routeLimitExceeded } from './route.js';

export function buildAdminRoutes(app: FastifyInstance, services: Services, routes: AdminRouteTable): void {
  const all = Object.entries(routes);
  for (const [operationId, route] of all) if (route.body) register(app, services, operationId, route);
  // A route without a body refuses one after the token is checked, like a query parameter (P114). In this
  // scope the listener's JSON parser does not judge the body of a POST or DELETE before the token (nor refuse
  // an empty one sent with a JSON Content-Type): a JSON body is kept as its bytes, any other left unread.
  app.register(async (noBody) => {
    noBody.removeAllContentTypeParsers();
    noBody.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
      done(null, body),
    );
    noBody.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    for (const [operationId, route] of all) if (!route.body) register(noBody, services, operationId, route);
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

function register(app: FastifyInstance, services: Services, operationId: string, route: AdminRouteDef): void {
  const hasIdPath = route.url.startsWith('/workspaces/:id');
  app.route({
    method: route.method,
    url: `/admin${route.url}`,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      await authenticateOperator(services, request, reply);
      assertSingleValuedHeaders(request.raw.rawHeaders);
      const params = request.params as Record<string, string>;
      for (const value of Object.values(params)) if (!isUuid(value)) throw notFound();
      if (hasIdPath) request.workspaceId = params.id ?? null;
      const query = { ...(request.query as Record<string, unknown>) };
      if (route.query) validateQuery(route.query, query);
      else if (Object.keys(query).length > 0)
        throw invalidRequest('This endpoint takes no query parameters.');
      if (!route.body) assertNoBody(request.headers, request.body as Buffer | undefined);
      else if (route.validateBody !== false) validateBody(route.body, request.body);
      const op: Operator = {
        db: services.db,
        allowInsecureWebhookUrls: services.config.webhookAllowInsecureUrls,
        requestId: request.id,
        onAuthChange: () => services.auth.invalidate(),
      };
      // Validated against the route's query and body schemas above (or judged by the handler: validateBody false).
      const input = { params, query, body: route.body ? request.body : undefined } as Parameters<
        typeof route.handler
      >[1];
      const { limit } = route;
      const budget = limit && {
        key: `${operationId}:${params.id}`,
        buckets: services.buckets[limit.buckets],
      };
      if (limit && budget) {
        const decision = await services.limiter.consume(budget.key, budget.buckets);
        if (!decision.allowed) throw rateLimited(request, reply, decision, routeLimitExceeded(limit));
      }
      let result: string | undefined;
      try {
        result = await route.handler({ op, services }, input);
      } catch (error) {
        // Refused or failed: nothing was done, so nothing is counted.
        if (budget) await services.limiter.refund(budget.key, budget.buckets);
        throw error;
      }
      reply.code(route.status);
      return result === undefined
        ? reply.send()
        : reply.header('content-type', 'application/json; charset=utf-8').send(result);
    },
  });
}
