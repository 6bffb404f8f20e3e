// Every non-2xx response, whatever raised it, is rendered here in the one shape (contract/errors.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorBody, internalError, invalidRequest, notFound } from '../contract/errors.js';

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(error.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(errorBody(error, reply.request.id));
}

// Framework errors caused by the client (unparseable JSON, wrong content type, body too large, bad URL)
// are malformed requests. Anything else is ours: logged with its stack, answered without it.
const CLIENT_ERROR_CODES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Content-Type must be application/json.',
  FST_ERR_CTP_BODY_TOO_LARGE: 'The request body is too large.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty.',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
  FST_ERR_ASYNC_CONSTRAINT: 'The request is malformed.',
};

// A path the router cannot decode (`%zz`) or whose parameter is absurdly long names nothing in the
// specification: 404 like any unknown path (decisions 3, 4), not the router's own 400/414.
const UNROUTABLE_CODES = new Set(['FST_ERR_BAD_URL', 'FST_ERR_MAX_PARAM_LENGTH']);

export function toApiError(error: unknown, request: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError?.code && UNROUTABLE_CODES.has(fastifyError.code)) return notFound();
  const known = fastifyError?.code ? CLIENT_ERROR_CODES[fastifyError.code] : undefined;
  if (known) return invalidRequest(known);
  if (error instanceof SyntaxError || fastifyError?.statusCode === 400) {
    return invalidRequest('The request body is not valid JSON.');
  }
  if (fastifyError?.statusCode === 413)
    return invalidRequest(CLIENT_ERROR_CODES.FST_ERR_CTP_BODY_TOO_LARGE as string);
  if (fastifyError?.statusCode === 415)
    return invalidRequest(CLIENT_ERROR_CODES.FST_ERR_CTP_INVALID_MEDIA_TYPE as string);
  request.log.error({ err: error }, 'unhandled error');
  return internalError();
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(reply, toApiError(error, request)));
  // Unknown paths and methods (OPTIONS included) are answered as soon as the request arrives, before its
  // body is read or parsed: a malformed or oversized body on them is still a 404 (decisions 1, 4).
  app.addHook('onRequest', async (request, reply) => {
    if (request.is404) return sendError(reply, notFound());
  });
  app.setNotFoundHandler((_request, reply) => sendError(reply, notFound()));
}
