// The management listener: /admin (bearer ADMIN_TOKEN), /healthz, /readyz, /metrics.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Authenticator } from '../http/auth.js';
import { ApiError, invalidRequest, notFound } from '../http/errors.js';
import { assertSingleValuedHeaders } from '../http/request-headers.js';
import { isUuid, validateBody } from '../http/validation.js';
import { constantTimeEqual, sha256 } from '../security/secrets.js';
import type { Services } from '../services.js';
import { StorageFullError } from '../storage/db.js';
import { pendingMigrations } from '../storage/migrate.js';
import type { Operator } from './operations.js';
import type { AdminRouteTable } from './route.js';

export function buildAdminRoutes(app: FastifyInstance, services: Services, routes: AdminRouteTable): void {
  for (const route of Object.values(routes)) {
    const hasIdPath = route.url.startsWith('/workspaces/:id');
    app.route({
      method: route.method,
      url: `/admin${route.url}`,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        const token = Authenticator.bearer(request.raw.rawHeaders);
        if (!token || !constantTimeEqual(sha256(token), services.adminTokenHash)) {
          throw new ApiError('invalid_api_key', 'The admin token is missing or wrong.');
        }
        assertSingleValuedHeaders(request.raw.rawHeaders);
        const params = request.params as Record<string, string>;
        for (const value of Object.values(params)) if (!isUuid(value)) throw notFound();
        if (hasIdPath) request.workspaceId = params.id ?? null;
        if (Object.keys(request.query as object).length > 0)
          throw invalidRequest('This endpoint takes no query parameters.');
        if (route.body && route.validateBody !== false) validateBody(route.body, request.body);
        const op: Operator = {
          db: services.db,
          allowInsecureWebhookUrls: services.config.webhookAllowInsecureUrls,
          requestId: request.id,
          onAuthChange: () => services.auth.invalidate(),
        };
        // Validated against the route's body schema above (or judged by the handler: validateBody false).
        const input = { params, body: route.body ? request.body : undefined } as Parameters<
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

  app.get('/healthz', async (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      const pending = await pendingMigrations(services.db);
      if (pending > 0) return reply.code(503).send({ status: 'migrations_pending', pending });
      return reply.send({ status: 'ready' });
    } catch (error) {
      // The embedded store refuses statements while its disk is nearly full (storage/db.ts).
      const status = error instanceof StorageFullError ? 'storage_full' : 'database_unreachable';
      return reply.code(503).send({ status });
    }
  });
  app.get('/metrics', async (_request, reply) => {
    return reply
      .header('content-type', services.metrics.registry.contentType)
      .send(await services.metrics.registry.metrics());
  });
}
