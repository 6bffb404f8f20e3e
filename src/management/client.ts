// The typed admin client: one method per route of the admin route table, named by its operationId, taking
// the route's path parameters and body and resolving to its response, typed from the same schemas the
// listener validates with. The CLI and the tests call the management API through it; how a request travels
// (fetch, or Fastify's inject in tests) is the transport's business.
import type { Static, TObject, TSchema } from 'typebox';
import type { PathParams } from '../contract/operation.js';
import type { AdminMethod, AdminRouteDef, AdminRouteTable } from './route.js';

/** What one call sends: path parameters by name, the query and the JSON body. */
export interface AdminRequest {
  method: AdminMethod;
  /** The path with its parameters filled in and percent-encoded, and its query, e.g. `/admin/workspaces/…/users`. */
  path: string;
  body?: unknown;
}

/** Sends a request and resolves to the parsed JSON of a success (undefined for an empty body), or throws. */
export type AdminTransport = (request: AdminRequest) => Promise<unknown>;

type ParamsInput<U extends string> = keyof PathParams<U> extends never ? unknown : { params: PathParams<U> };
type BodyInput<B> = B extends TSchema ? { body: Static<B> } : unknown;
type QueryInput<Q> = Q extends TObject ? { query?: Static<Q> } : unknown;
type Output<R> = R extends TSchema ? Static<R> : undefined;

/** The input and the result of one route, read off its declaration. */
export type AdminCall<D> =
  D extends AdminRouteDef<infer U, infer B, infer _V, infer R, infer Q>
    ? keyof PathParams<U> extends never
      ? B extends TSchema
        ? (input: BodyInput<B> & QueryInput<Q>) => Promise<Output<R>>
        : (input?: QueryInput<Q>) => Promise<Output<R>>
      : (input: ParamsInput<U> & BodyInput<B> & QueryInput<Q>) => Promise<Output<R>>
    : never;

export type AdminClient<T extends AdminRouteTable> = { [K in keyof T]: AdminCall<T[K]> };

/** `/workspaces/:id/users` with `{ id }` → `/admin/workspaces/<id>/users`, each value percent-encoded. */
export function adminPath(url: string, params: Record<string, string> = {}): string {
  return `/admin${url.replace(/:(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${url}`);
    return encodeURIComponent(value);
  })}`;
}

/** `?name=value&…` of the parameters given (none: the empty string), each percent-encoded. */
function queryString(query: Record<string, string | number | boolean | undefined> = {}): string {
  const given = Object.entries(query).filter(
    (entry): entry is [string, string | number | boolean] => entry[1] !== undefined,
  );
  const pairs = given.map(([name, value]): [string, string] => [name, String(value)]);
  return pairs.length === 0 ? '' : `?${new URLSearchParams(pairs)}`;
}

export function createAdminClient<T extends AdminRouteTable>(
  routes: T,
  transport: AdminTransport,
): AdminClient<T> {
  type Input = {
    params?: Record<string, string>;
    query?: Record<string, string | number | boolean | undefined>;
    body?: unknown;
  };
  const client: Record<string, (input?: Input) => unknown> = {};
  for (const [operationId, route] of Object.entries(routes)) {
    client[operationId] = (input = {}) =>
      transport({
        method: route.method,
        path: `${adminPath(route.url, input.params)}${queryString(input.query)}`,
        body: input.body,
      });
  }
  // Each method was made from its own route's declaration above: the mapped type says the same per key.
  return client as AdminClient<T>;
}
