// Public routes outside /v1 that need no API key (decision 4): the signed PDF download and the API reference.
// They declare their contract like API routes do, so the OpenAPI document describes them from the same
// schemas that check their requests here. Without a key, nothing but the client address limits them (P69).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type TObject, type TSchema, Type } from 'typebox';
import { notFound } from '../contract/errors.js';
import { type ResponseHeader, STAMPED_HEADERS } from '../contract/headers.js';
import type { BucketSet, ResponseSpec } from '../contract/operation.js';
import type { Services } from '../services.js';
import { limitByAddress } from './route.js';
import { checker } from './validation.js';

export interface OpenRouteDef {
  method: 'GET';
  /** Fastify path, outside /v1, e.g. `/files/:token`. */
  url: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** Schema of each path parameter. */
  params?: Record<string, TSchema>;
  /** The query parameters the route reads; others are ignored. */
  query?: TObject;
  /** Rate-limit buckets counted with the client address's own (the API reference's files). */
  extraBuckets?: Extract<BucketSet, 'reference'>;
  responses: Record<number, ResponseSpec>;
  handler(
    request: FastifyRequest<{ Params: Record<string, string>; Querystring: Record<string, string> }>,
    reply: FastifyReply,
    services: Services,
  ): Promise<FastifyReply>;
}

export function registerOpenRoutes(
  app: FastifyInstance,
  services: Services,
  routes: readonly OpenRouteDef[],
) {
  for (const route of routes) {
    const checkParams = checker(Type.Object(route.params ?? {}));
    const declared = Object.keys(route.query?.properties ?? {});
    const checkQuery = route.query ? checker(route.query) : () => null;
    const buckets = route.extraBuckets
      ? [...services.buckets.address, ...services.buckets[route.extraBuckets]]
      : services.buckets.address;
    app.route<{ Params: Record<string, string>; Querystring: Record<string, string> }>({
      method: route.method,
      url: route.url,
      onRequest: (request, reply) => limitByAddress(services, request, reply, buckets),
      handler: async (request, reply) => {
        const query = Object.fromEntries(
          Object.entries(request.query).filter(([name]) => declared.includes(name)),
        );
        // These URLs are fixed or issued by the service: one that fails its schema names nothing (decision 4).
        if (checkParams(request.params) || checkQuery(query)) throw notFound();
        return route.handler(request, reply, services);
      },
    });
  }
}

/** The headers registerOpenRoutes sets on a response of this status: a 429 says when to retry. */
export function openRouteHeaders(status: number): ResponseHeader[] {
  return status === 429 ? [...STAMPED_HEADERS, 'Retry-After'] : [...STAMPED_HEADERS];
}
