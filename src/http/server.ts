// The Fastify instance shared by both listeners: request ids, no-store, no CORS, one error shape, strict JSON.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import {
  type ApiError,
  errorBody,
  installErrorHandling,
  invalidRequest,
  sendError,
  toApiError,
} from './errors.js';
import type { Metrics } from './metrics.js';
import type { RateDecision } from './rate-limit.js';
import { assertHost } from './request-headers.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's workspace once known (public API: from the key; admin API: from the path). */
    workspaceId: string | null;
    /** The id of the API key that authenticated the request (public API), for the request log line. */
    apiKeyId: string | null;
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

/** Sets the STAMPED_HEADERS (http/headers.ts) of every response. */
function stamp(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  reply.header('cache-control', 'no-store');
}

/** A response written straight to the socket, for requests that never reached Fastify. */
function rawErrorResponse(status: number, error: ApiError, requestId: string): string {
  const body = errorBody(error, requestId);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n` +
    `Cache-Control: no-store\r\nConnection: close\r\n\r\n${body}`
  );
}

export function createServer(
  listener: 'public' | 'admin',
  services: {
    logger: Logger;
    metrics: Metrics;
    config: Pick<Config, 'requestTimeoutMs' | 'keepAliveTimeoutMs'>;
  },
): FastifyInstance {
  const { metrics, config: timeouts } = services;
  const logger = services.logger.child({ listener });
  // Connections whose request was answered before its body had arrived (a 401 is sent before the body is
  // read): when that body is too slow, the connection is closed without a second response.
  const answeredEarly = new WeakSet<Socket>();
  const app = Fastify({
    loggerInstance: logger.child({}, { serializers: { err: errorSerializer } }),
    // One log line per request, written in onResponse below. Every line logged through request.log carries
    // the id that the response's X-Request-Id shows.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    return503OnClosing: true,
    // Headers and body must arrive within REQUEST_TIMEOUT of the request's first byte, however they trickle;
    // an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT (decision P66).
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // Path ids longer than a uuid still reach the route, which answers 404 after authentication like any
    // other non-uuid id (decisions 1, 3); only absurd lengths are refused by the router (frameworkErrors).
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: false, maxParamLength: 2048 },
    // Undecodable paths (`/v1/suppliers/%zz`) and over-long path parameters are answered by the router
    // before any hook runs (onSend included); without this they got Fastify's own body and headers.
    frameworkErrors: (error, request, reply) => {
      stamp(request, reply);
      return sendError(reply, toApiError(error, request));
    },
    // Node answers an HTTP/1.1 request without Host with its own bare 400; the hook below gives it ours.
    http: {
      requireHostHeader: false,
      headersTimeout: timeouts.requestTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      // Node looks for late requests this often: a quarter of the timeout, at most 1 s (Node's default is 30 s).
      connectionsCheckingInterval: Math.min(1000, Math.ceil(timeouts.requestTimeoutMs / 4)),
    },
    // Requests Node's HTTP parser refuses (a control character in a header, headers over 16 KB, a bad
    // Content-Length, both Content-Length and Transfer-Encoding, …) never reach Fastify; without this they got
    // Fastify's own body, without X-Request-Id. The closed list of error codes makes them 400 invalid_request;
    // a request not received in time is a 408 with that code (decision P66).
    clientErrorHandler: (error, socket) => {
      const { code } = error as { code?: string };
      if (code === 'ECONNRESET' || socket.destroyed) return;
      const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      const answered = answeredEarly.has(socket as Socket) || inFlight?.headersSent === true;
      if (socket.writable && !answered) {
        const status = code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
        const requestId = randomUUID();
        const message =
          status === 408
            ? 'The request was not received in time.'
            : code === 'HPE_HEADER_OVERFLOW'
              ? 'The request headers are too large.'
              : 'The request is not valid HTTP.';
        socket.write(rawErrorResponse(status, invalidRequest(message), requestId));
        // These never reach the hooks that log every request: one line each, so that slow clients show.
        app.log.info({ request_id: requestId, status, error_code: code }, 'request refused before routing');
      }
      socket.destroy(error);
    },
  }) as unknown as FastifyInstance;

  // Node answers an `Expect` other than 100-continue with its own bare 417 unless someone listens: the request
  // goes to Fastify instead, whose hook below refuses it in the error shape (decision P67).
  const unmetExpectations = new WeakSet<IncomingMessage>();
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    unmetExpectations.add(request);
    app.routing(request, response);
  });

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
  app.decorateRequest('apiKeyId', null);
  app.decorateRequest('rateDecision', null);
  // Before any route's own checks, and before the 404 of an unknown path: the request is not one to answer.
  app.addHook('onRequest', async (request) => {
    assertHost(request.raw.httpVersion, request.raw.rawHeaders);
    if (unmetExpectations.has(request.raw))
      throw invalidRequest('The Expect header can only be 100-continue.', { header: 'Expect' });
  });
  app.addHook('onSend', async (request, reply, payload) => {
    stamp(request, reply);
    const { raw } = request;
    if (raw.complete === false) {
      const { socket } = raw;
      answeredEarly.add(socket);
      raw.once('end', () => answeredEarly.delete(socket));
    }
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
        // Who called, for an operator following one client: the key's id (never its secret), the TCP peer
        // (forwarding headers are not trusted) and its user agent, bounded (P137).
        api_key_id: request.apiKeyId,
        client_address: request.ip,
        user_agent: request.headers['user-agent']?.slice(0, 256) ?? null,
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
