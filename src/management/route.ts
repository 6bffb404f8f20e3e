// An admin route declares its contract like a public one: path, success status, body and response schemas.
// The table of them is the single source of the /admin listener (management/app.ts), of its OpenAPI document
// and of the typed admin client that the CLI and the tests call (management/client.ts). The key of a route in
// its table is its operationId and the client's method name.
import type { Static, TObject, TSchema } from 'typebox';
import { ApiError } from '../contract/errors.js';
import type { BucketSet, PathParams } from '../contract/operation.js';
import type { Services } from '../services.js';
import type { Operator } from './operations.js';

export type AdminMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface AdminContext {
  op: Operator;
  services: Services;
}

/** The body a handler receives: its schema's static type, or nothing when the route declares none. */
export type AdminBody<B> = B extends TSchema ? Static<B> : undefined;

/** The query a handler receives, validated: its schema's static type, or nothing when the route takes none. */
export type AdminQuery<Q> = Q extends TObject ? Static<Q> : Record<never, never>;

export interface AdminRouteDef<
  U extends string = string,
  B extends TSchema | undefined = TSchema | undefined,
  V extends false | undefined = false | undefined,
  R extends TSchema | undefined = TSchema | undefined,
  Q extends TObject | undefined = TObject | undefined,
> {
  method: AdminMethod;
  /** Fastify path under /admin, e.g. `/workspaces/:id/users`. Path parameters are uuids. */
  url: U;
  tag: string;
  summary: string;
  description?: string;
  /** Query parameters; a route without them refuses any (400). */
  query?: Q;
  /** The status of success. */
  status: 200 | 201 | 204;
  /** The JSON body; a route without one refuses a body (P114). */
  body?: B;
  /** The handler judges the body itself (an import document, an optional `{workspace_id}`); `body` documents it. */
  validateBody?: V;
  /** The JSON of a success; none for 204. */
  response?: R;
  /**
   * A budget of the route's own per path `id`, in the limiter every process shares: past it, `429
   * rate_limit_exceeded` with `message` and `Retry-After`. Counted once the body is valid; a request the
   * handler refuses or fails gives its count back, so only the actions carried out are counted.
   */
  limit?: RouteLimit;
  /** Statuses the handler itself may answer (404 of a path id, 409, 422 …), for the document. */
  errors?: readonly (400 | 404 | 409 | 422)[];
  handler(
    ctx: AdminContext,
    input: { params: PathParams<U>; query: AdminQuery<Q>; body: V extends false ? unknown : AdminBody<B> },
  ): Promise<string | undefined>;
}

/** Declares one admin route, inferring its path parameters, query and body types. */
export function adminRoute<
  const U extends string,
  B extends TSchema | undefined = undefined,
  V extends false | undefined = undefined,
  R extends TSchema | undefined = undefined,
  Q extends TObject | undefined = undefined,
>(route: AdminRouteDef<U, B, V, R, Q>): AdminRouteDef<U, B, V, R, Q> {
  return route;
}

/** Routes by operationId. */
export type AdminRouteTable = Record<string, AdminRouteDef>;

/** A route's own budget: the buckets it counts in, and what its 429 says (`message`) and documents. */
export interface RouteLimit {
  buckets: BucketSet;
  message: string;
  description: string;
}

/** The 429 of a spent route budget: what the listener sends and the document shows. */
export const routeLimitExceeded = (limit: RouteLimit) => new ApiError('rate_limit_exceeded', limit.message);
