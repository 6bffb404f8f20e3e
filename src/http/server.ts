// The Fastify instance shared by both listeners: request ids, no-store, no CORS, one error shape, strict JSON.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { errorBody } from '../contract/errors.js';
import { Edge, edgeServerOptions, MAX_BODY_BYTES, parseJsonBody } from './edge.js';
import { installErrorHandling, sendError, toApiError } from './errors.js';
import type { Metrics } from './metrics.js';
import type { RateDecision } from './rate-limit.js';

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
  const edge = new Edge(
    (error, requestId) => ({
      headers: {
        'Content-Type': 'application/json; charset=utf-8',
        'X-Request-Id': requestId,
        'Cache-Control': 'no-store',
      },
      body: errorBody(error, requestId),
    }),
    // These never reach the hooks that log every request: one line each, so that slow clients show.
    ({ requestId, status, errorCode }) =>
      app.log.info(
        { request_id: requestId, status, error_code: errorCode },
        'request refused before routing',
      ),
  );
  const app = Fastify({
    loggerInstance: logger.child({}, { serializers: { err: errorSerializer } }),
    // One log line per request, written in onResponse below. Every line logged through request.log carries
    // the id that the response's X-Request-Id shows.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: MAX_BODY_BYTES,
    return503OnClosing: true,
    // Fastify sets these on Node's server itself (its defaults: no request timeout, 72 s keep-alive).
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // Path ids longer than a uuid still reach the route, which answers 404 after authentication like any
    // other non-uuid id (decisions 1, 3); only absurd lengths are refused by the router (frameworkErrors).
    routerOptions: { caseSensitive: true, ignoreTrailingSlash: false, maxParamLength: 2048 },
    // Undecodable paths (`/v1/suppliers/%zz`) and over-long path parameters are answered by the router
    // before any hook runs (onSend included); without this they got Fastify's own body and headers. A request
    // the edge refuses is refused here too.
    frameworkErrors: (error, request, reply) => {
      stamp(request, reply);
      return sendError(reply, edge.refusal(request.raw) ?? toApiError(error, request));
    },
    http: edgeServerOptions(timeouts),
    // Without this, requests Node's parser refuses got Fastify's own body, without X-Request-Id.
    clientErrorHandler: edge.clientError,
  }) as unknown as FastifyInstance;
  edge.watch(app.server, (request, response) => app.routing(request, response));

  // Bodies must be UTF-8 JSON: invalid bytes are a 400, not silently replaced characters.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.decorateRequest('workspaceId', null);
  app.decorateRequest('apiKeyId', null);
  app.decorateRequest('rateDecision', null);
  // Before any route's own checks, and before the 404 of an unknown path: the request is not one to answer.
  app.addHook('onRequest', async (request) => {
    const refusal = edge.refusal(request.raw);
    if (refusal) throw refusal;
  });
  app.addHook('onSend', async (request, reply, payload) => {
    stamp(request, reply);
    edge.answering(request.raw);
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
