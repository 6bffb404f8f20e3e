// The management listener: /admin (bearer ADMIN_TOKEN), /healthz, /readyz, /metrics.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { Services } from '../app.js';
import { Authenticator } from '../http/auth.js';
import { ApiError, invalidRequest, notFound } from '../http/errors.js';
import { assertSingleValuedHeaders } from '../http/request-headers.js';
import { rateLimited } from '../http/route.js';
import { isUuid, validateBody } from '../http/validation.js';
import { constantTimeEqual, sha256 } from '../security/secrets.js';
import { StorageFullError } from '../storage/db.js';
import { pendingMigrations } from '../storage/migrate.js';
import { importDocument } from './import.js';
import * as ops from './operations.js';
import { ApiKeyCreate, UserCreate, WorkspaceCreate, WorkspacePatch } from './schemas.js';

export type AdminHandler = (request: FastifyRequest, op: ops.Operator) => Promise<string | undefined>;
export type AdminRoute = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  status: number,
  handler: AdminHandler,
  body?: TSchema,
) => void;
/** Lifecycle actions of the resource areas (assessment status, report render, …), registered by each area. */
export type AdminRegistrar = (route: AdminRoute, services: Services) => void;

export function buildAdminRoutes(
  app: FastifyInstance,
  services: Services,
  registrars: readonly AdminRegistrar[],
): void {
  const operator = (request: FastifyRequest): ops.Operator => ({
    db: services.db,
    allowInsecureWebhookUrls: services.config.webhookAllowInsecureUrls,
    requestId: request.id,
    onAuthChange: () => services.auth.invalidate(),
  });

  // Wrong and missing tokens are counted per client address (decision P68). Once an address is over its
  // limit, every request from it is a 429 before the token is compared, a right one included: otherwise the
  // answer would still tell a right guess from a wrong one. A right token counts nothing.
  const authenticateOperator = async (request: FastifyRequest, reply: FastifyReply) => {
    const token = Authenticator.bearer(request.raw.rawHeaders);
    const valid = token !== null && constantTimeEqual(sha256(token), services.adminTokenHash);
    const failures = `admin-failures:${request.ip}`;
    const { limiter, buckets } = services;
    const decision = valid
      ? await limiter.peek(failures, buckets.adminFailures)
      : await limiter.consume(failures, buckets.adminFailures);
    if (!decision.allowed) throw rateLimited(request, reply, decision);
    if (!valid) throw new ApiError('invalid_api_key', 'The admin token is missing or wrong.');
  };

  const route: AdminRoute = (method, url, status, handler, body) => {
    app.route({
      method,
      url: `/admin${url}`,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        await authenticateOperator(request, reply);
        assertSingleValuedHeaders(request.raw.rawHeaders);
        for (const value of Object.values(request.params as Record<string, string>))
          if (!isUuid(value)) throw notFound();
        if (url.startsWith('/workspaces/:id')) request.workspaceId = id(request);
        if (Object.keys(request.query as object).length > 0)
          throw invalidRequest('This endpoint takes no query parameters.');
        if (body) validateBody(body, request.body);
        const result = await handler(request, operator(request));
        reply.code(status);
        return result === undefined
          ? reply.send()
          : reply.header('content-type', 'application/json; charset=utf-8').send(result);
      },
    });
  };
  const id = (request: FastifyRequest) => (request.params as { id: string }).id;
  // biome-ignore lint/suspicious/noExplicitAny: bodies are validated against their schema before use
  const body = (request: FastifyRequest) => request.body as any;

  route('POST', '/workspaces', 201, (request, op) => ops.createWorkspace(op, body(request)), WorkspaceCreate);
  route('GET', '/workspaces', 200, () => ops.listWorkspaces(services.db));
  route('GET', '/workspaces/:id', 200, (request) => ops.readWorkspace(services.db, id(request)));
  route(
    'PATCH',
    '/workspaces/:id',
    200,
    (request, op) => ops.updateWorkspace(op, id(request), body(request)),
    WorkspacePatch,
  );
  route(
    'POST',
    '/workspaces/:id/users',
    201,
    (request, op) => ops.createUser(op, id(request), body(request)),
    UserCreate,
  );
  route(
    'POST',
    '/workspaces/:id/api-keys',
    201,
    (request, op) => ops.createApiKey(op, id(request), body(request)),
    ApiKeyCreate,
  );
  route('GET', '/workspaces/:id/api-keys', 200, (request) => ops.listApiKeys(services.db, id(request)));
  route('POST', '/api-keys/:id/revoke', 200, (request, op) => ops.revokeApiKey(op, id(request)));
  route('POST', '/workspaces/:id/import', 200, async (request) => {
    const workspaceId = id(request);
    await ops.readWorkspace(services.db, workspaceId);
    const created = await importDocument(services.db, workspaceId, request.body, { requestId: request.id });
    return JSON.stringify({ created });
  });

  for (const register of registrars) register(route, services);

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
