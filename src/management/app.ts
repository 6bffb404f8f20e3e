// The management listener: /admin (bearer ADMIN_TOKEN) from the admin route table, its OpenAPI document, and
// the probes (/healthz, /readyz, /metrics).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidRequest, notFound } from '../http/errors.js';
import { assertSingleValuedHeaders } from '../http/request-headers.js';
import { isUuid, validateBody, validateQuery } from '../http/validation.js';
import { adminDocumentText } from '../openapi/admin-document.js';
import type { Services } from '../services.js';
import { authenticateOperator } from './auth.js';
import type { Operator } from './operations.js';
import { registerProbes } from './probes.js';
import type { AdminRouteTable } from './route.js';

export function buildAdminRoutes(app: FastifyInstance, services: Services, routes: AdminRouteTable): void {
  for (const route of Object.values(routes)) {
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
        if (route.body && route.validateBody !== false) validateBody(route.body, request.body);
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
        const result = await route.handler({ op, services }, input);
        reply.code(route.status);
        return result === undefined
          ? reply.send()
          : reply.header('content-type', 'application/json; charset=utf-8').send(result);
      },
    });
  }

  // The listener's own description, like /healthz without the token: it holds no secret.
  app.get('/openapi.json', async (_request, reply) =>
    reply.header('content-type', 'application/json; charset=utf-8').send(adminDocumentText()),
  );
  registerProbes(app, services);
}
