// The management listener: /admin (bearer ADMIN_TOKEN) from the operations' contracts bound to their handlers
// (handlers.ts), its OpenAPI document and reference page, and the probes (/healthz, /readyz, /metrics).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalidRequest, notFound } from '../contract/errors.js';
import { limitExceeded, PATH_PREFIX, pathParameters } from '../contract/operation.js';
import type { OperatorContext } from '../http/operator.js';
import { assertNoBody, assertSingleValuedHeaders } from '../http/request-headers.js';
import { rateLimited } from '../http/route.js';
import { isUuid, validateBody, validateQuery } from '../http/validation.js';
import { adminDocumentText } from '../openapi/admin-document.js';
import { sendReferenceFile, sendReferencePage } from '../openapi/reference.js';
import type { Services } from '../services.js';
import { operatorStore } from '../storage/operator.js';
import { authenticateOperator } from './auth.js';
import type { BoundOperation } from './handlers.js';
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
    for (const bound of operations) register(bound.operation.body ? app : noBody, services, bound);
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

/** The success status of an operation: its one 2xx response. */
const successStatus = (responses: Record<number, unknown>) =>
  Number(Object.keys(responses).find((status) => Number(status) < 300));

function register(app: FastifyInstance, services: Services, { operation, handler }: BoundOperation): void {
  const hasIdPath = operation.path.startsWith('/workspaces/:id');
  const status = successStatus(operation.responses);
  const pathIds = pathParameters(operation.path);
  app.route({
    method: operation.method,
    url: `${PATH_PREFIX.operator}${operation.path}`,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      await authenticateOperator(services, request, reply);
      assertSingleValuedHeaders(request.raw.rawHeaders);
      const params = request.params as Record<string, string>;
      for (const name of pathIds) if (!isUuid(params[name] ?? '')) throw notFound();
      if (hasIdPath) request.workspaceId = params.id ?? null;
      const query = { ...(request.query as Record<string, unknown>) };
      if (operation.query) validateQuery(operation.query, query);
      else if (Object.keys(query).length > 0)
        throw invalidRequest('This endpoint takes no query parameters.');
      if (!operation.body) assertNoBody(request.headers, request.body as Buffer | undefined);
      else if (operation.validateBody !== false) validateBody(operation.body, request.body);
      const context: OperatorContext = {
        ...operatorStore(services.db, request.id),
        objects: services.objects,
        cursors: services.cursors,
        allowInsecureWebhookUrls: services.config.webhookAllowInsecureUrls,
        authChanged: () => services.auth.invalidate(),
      };
      // Validated against the operation's query and body schemas above (or judged by the handler:
      // validateBody false).
      const input = { params, query, body: operation.body ? request.body : undefined } as Parameters<
        typeof handler
      >[1];
      const { limit } = operation;
      const budget = limit && {
        key: `${operation.id}:${params.id}`,
        buckets: services.buckets[limit.buckets],
      };
      if (limit && budget) {
        const decision = await services.limiter.consume(budget.key, budget.buckets);
        if (!decision.allowed) throw rateLimited(request, reply, decision, limitExceeded(limit));
      }
      let result: string | undefined;
      try {
        result = await handler(context, input);
      } catch (error) {
        // Refused or failed: nothing was done, so nothing is counted.
        if (budget) await services.limiter.refund(budget.key, budget.buckets);
        throw error;
      }
      reply.code(status);
      return result === undefined
        ? reply.send()
        : reply.header('content-type', 'application/json; charset=utf-8').send(result);
    },
  });
}
