// The Fastify instance shared by both listeners: request ids, no-store, no CORS, one error shape, strict JSON.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { installErrorHandling, invalidRequest } from './errors.js';
import type { Metrics } from './metrics.js';

const BODY_LIMIT = 4 * 1024 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export function createServer(
  logger: Logger,
  metrics: Metrics,
  listener: 'public' | 'admin',
): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    // One log line per request, written in onResponse below.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: false, maxParamLength: 200 },
  }) as unknown as FastifyInstance;

  // Bodies must be UTF-8 JSON: invalid bytes are a 400, not silently replaced characters.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(invalidRequest('The request body is not valid UTF-8.'), undefined);
      return;
    }
    if (text.trim() === '') {
      done(invalidRequest('The request body is empty.'), undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      done(invalidRequest('The request body is not valid JSON.'), undefined);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('x-request-id', request.id);
    reply.header('cache-control', 'no-store');
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.requests.inc({ listener, method: request.method, route, status: reply.statusCode });
    metrics.latency.observe({ listener, route }, reply.elapsedTime / 1000);
    request.log.info(
      {
        request_id: request.id,
        workspace_id: (request as { workspaceId?: string }).workspaceId,
        method: request.method,
        route,
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    );
  });
  installErrorHandling(app);
  return app;
}
