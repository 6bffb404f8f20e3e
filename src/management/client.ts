// The typed admin client: one method per operation of the management listener, named by its operationId,
// taking the operation's path parameters, query and body and resolving to its success response, typed from
// the same contracts the listener validates with (contracts only: no handler is loaded). The CLI and the
// tests call the management API through it; how a request travels (fetch, or Fastify's inject in tests) is
// the transport's business.
import type { Static, TObject, TSchema } from 'typebox';
import {
  type Auth,
  type Method,
  type Operation,
  PATH_PREFIX,
  type PathParams,
} from '../contract/operation.js';

/** What one call sends: path parameters by name, the query and the JSON body. */
export interface AdminRequest {
  method: Method;
  /** The path with its parameters filled in and percent-encoded, and its query, e.g. `/admin/workspaces/…/users`. */
  path: string;
  body?: unknown;
}

/** Sends a request and resolves to the parsed JSON of a success (undefined for an empty body), or throws. */
export type AdminTransport = (request: AdminRequest) => Promise<unknown>;

type ParamsInput<U extends string> = keyof PathParams<U> extends never ? unknown : { params: PathParams<U> };
type BodyInput<B> = B extends TSchema ? { body: Static<B> } : unknown;
type QueryInput<Q> = Q extends TObject ? { query?: Static<Q> } : unknown;
/** The body of a success: the schema of the operation's 2xx response (none for a 204). */
type Output<D> = D extends { responses: infer R }
  ? {
      [S in keyof R]: S extends 200 | 201
        ? R[S] extends { schema: infer T extends TSchema }
          ? Static<T>
          : undefined
        : S extends 204
          ? undefined
          : never;
    }[keyof R]
  : never;

/** The input and the result of one operation, read off its contract. */
export type AdminCall<D> =
  D extends Operation<Auth, infer U, infer Q, infer B, infer _V>
    ? keyof PathParams<U> extends never
      ? B extends TSchema
        ? (input: BodyInput<B> & QueryInput<Q>) => Promise<Output<D>>
        : (input?: QueryInput<Q>) => Promise<Output<D>>
      : (input: ParamsInput<U> & BodyInput<B> & QueryInput<Q>) => Promise<Output<D>>
    : never;

export type AdminClient<T extends Record<string, Operation>> = { [K in keyof T]: AdminCall<T[K]> };

/** `/workspaces/:id/users` with `{ id }` → `/admin/workspaces/<id>/users`, each value percent-encoded. */
export function adminPath(url: string, params: Record<string, string> = {}): string {
  return `${PATH_PREFIX.operator}${url.replace(/:(\w+)/g, (_, name: string) => {
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

export function createAdminClient<T extends Record<string, Operation>>(
  operations: T,
  transport: AdminTransport,
): AdminClient<T> {
  type Input = {
    params?: Record<string, string>;
    query?: Record<string, string | number | boolean | undefined>;
    body?: unknown;
  };
  const client: Record<string, (input?: Input) => unknown> = {};
  for (const [operationId, operation] of Object.entries(operations)) {
    client[operationId] = (input = {}) =>
      transport({
        method: operation.method,
        path: `${adminPath(operation.path, input.params)}${queryString(input.query)}`,
        body: input.body,
      });
  }
  // Each method was made from its own operation's contract above: the mapped type says the same per key.
  return client as AdminClient<T>;
}
