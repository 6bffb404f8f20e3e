// The Fastify instance shared by both listeners: request ids, no-store, no CORS, one error shape, strict JSON.
import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import { errorBody, installErrorHandling, invalidRequest, sendError, toApiError } from './errors.js';
import type { ResponseHeader } from './headers.js';
import type { Metrics } from './metrics.js';
import type { RateDecision } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's workspace once known (public API: from the key; admin API: from the path). */
    workspaceId: string | null;
    /** The rate-limit decision taken for this request, if any. */
    rateDecision: RateDecision | null;
  }
}

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

/**
 * Errors are logged by type, code, message and stack only: drivers attach the offending values to errors
 * (PostgreSQL's `detail` reads `Key (email)=(…) already exists`), and logs never hold personal data or secrets.
 */
function errorSerializer(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: String(err) };
  const { code } = err as { code?: unknown };
  return { type: err.constructor.name, code, message: err.message, stack: err.stack };
}

/** The headers of every response (decisions 5, 31): a fresh request id, and nothing may be cached. */
export const STAMPED_HEADERS: readonly ResponseHeader[] = ['X-Request-Id', 'Cache-Control'];

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
    loggerInstance: logger.child({}, { serializers: { err: errorSerializer } }),
    // One log line per request, written in onResponse below. Every line logged through request.log carries
    // the id that the response's X-Request-Id shows.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
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
    // Requests Node's HTTP parser refuses (a control character in a header, headers over 16 KB, a bad
    // Content-Length, both Content-Length and Transfer-Encoding, …) never reach Fastify; without this they got
    // Fastify's own body, without X-Request-Id. The closed list of error codes makes them 400 invalid_request.
    // Node answers an HTTP/1.1 request without Host with its own bare 400; the hook below gives it ours.
    http: { requireHostHeader: false },
    clientErrorHandler: (error, socket) => {
      const { code } = error as { code?: string };
      if (code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) {
        const requestId = randomUUID();
        const message =
          code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? 'The request was not received in time.'
            : code === 'HPE_HEADER_OVERFLOW'
              ? 'The request headers are too large.'
              : 'The request is not valid HTTP.';
        const body = errorBody(invalidRequest(message), requestId);
        socket.write(
          `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n` +
            `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
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

  app.decorateRequest('workspaceId', null);
  app.decorateRequest('rateDecision', null);
  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined)
      throw invalidRequest('The request is not valid HTTP: HTTP/1.1 requires a Host header.');
  });
  app.addHook('onSend', async (request, reply, payload) => {
    stamp(request, reply);
    // Shutting down (the listener is closed): a keep-alive connection would hold close() open until its
    // idle timeout, so the response to a request still in flight closes it.
    if (!app.server.listening) reply.header('connection', 'close');
    return payload;
  });
  // One log line and one observation per request. The route is the pattern (`/v1/suppliers/:id`), never the
  // URL: query strings carry filter values and signed-URL tokens.
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const { method } = request;
    const status = reply.statusCode;
    metrics.requests.inc({ listener, method, route, status });
    metrics.latency.observe({ listener, method, route }, reply.elapsedTime / 1000);
    if (status === 429 && request.rateDecision)
      metrics.rateLimited.inc({ bucket: request.rateDecision.bucket });
    request.log.info(
      {
        workspace_id: request.workspaceId,
        method,
        route,
        status,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request',
    );
  });
  installErrorHandling(app);
  return app;
}
