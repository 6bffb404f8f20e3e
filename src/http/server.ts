// The Fastify instance shared by both listeners: request ids, no-store, no CORS, one error shape, strict JSON.
import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { installErrorHandling, invalidRequest, sendError, toApiError } from './errors.js';
import type { Metrics } from './metrics.js';

const BODY_LIMIT = 4 * 1024 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });
// Deeper JSON is refused before parsing: every walk over a body (validation, NUL checks, idempotency
// canonicalisation) recurses, and 100,000 levels would overflow the stack (a 500) instead of a 400.
const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests objects/arrays deeper than `limit` (brackets inside strings do not count). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character, which may be a quote.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** The headers of every response (decisions 5, 31): a fresh request id, and nothing may be cached. */
function stamp(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('cache-control', 'no-store');
}

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
    // Path ids longer than a uuid still reach the route, which answers 404 after authentication like any
    // other non-uuid id (decisions 1, 3); only absurd lengths are refused by the router (frameworkErrors).
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: false, maxParamLength: 2048 },
    // Undecodable paths (`/v1/suppliers/%zz`) and over-long path parameters are answered by the router
    // before any hook runs (onSend included); without this they got Fastify's own body and headers.
    frameworkErrors: (error, request, reply) => {
      stamp(request, reply);
      return sendError(reply, toApiError(error, request));
    },
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
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(invalidRequest(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`), undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      done(invalidRequest('The request body is not valid JSON.'), undefined);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    stamp(request, reply);
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
