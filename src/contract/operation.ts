// One operation of either listener, declared once: what a client sends and gets back, who may call it, and the
// budget it spends. No Fastify and no implementation here: the listeners (http/, management/) bind each
// operation to its handler, and the OpenAPI documents, the admin client, the CLI, the MCP catalogue and the
// SDK read these declarations alone. A module declaring operations imports only src/schema/ and src/contract/.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { Static, TObject, TSchema } from 'typebox';
import type { Scope } from '../schema/fields.js';
import { ApiError } from './errors.js';
import type { ResponseHeader } from './headers.js';

/** Who may call an operation, which also places it: `/v1` (API key), `/admin` (operator), outside both (none). */
export type Auth =
  | { readonly kind: 'apiKey'; readonly scope: Scope }
  | { readonly kind: 'operator' }
  | { readonly kind: 'none' };

export type ApiKeyAuth = Extract<Auth, { kind: 'apiKey' }>;
export type NoneAuth = Extract<Auth, { kind: 'none' }>;
export type OperatorAuth = Extract<Auth, { kind: 'operator' }>;

/** A public operation under /v1: a workspace's API key holding `scope` (decision 1's checks). */
export const apiKey = <S extends Scope>(scope: S) => ({ kind: 'apiKey', scope }) as const;
/** A management operation under /admin: the ADMIN_TOKEN. */
export const operator = () => ({ kind: 'operator' }) as const;
/** A public path outside /v1 that needs no key (decision 4), limited per client address (P69). */
export const none = () => ({ kind: 'none' }) as const;

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** The named sets of rate-limit buckets (http/rate-limit.ts has the production values). */
export type BucketSet =
  | 'workspace'
  | 'address'
  | 'pdf'
  | 'reference'
  | 'adminFailures'
  | 'webhookTests'
  | 'exports';

/** A response an operation declares: the OpenAPI document is generated from these (src/openapi/). */
export interface ResponseSpec {
  description: string;
  /** The JSON body. */
  schema?: TSchema;
  /**
   * Other forms of a collection's items, by the `format` that asks for them (P186): the document names each
   * item's schema under the response's `x-item-formats`, so that the answer's own schema (and the SDK's types
   * from it) stays the default form.
   */
  itemFormats?: Readonly<Record<string, TSchema>>;
  /** Media types of a body that is not JSON (a file, a page). */
  mediaTypes?: readonly string[];
  /**
   * The same answer as a stream of JSON lines, chosen by Accept (a list's export, http/export.ts): its media
   * type and the schema of one line.
   */
  lines?: { mediaType: string; schema: TSchema };
  /** Headers the handler itself sets on this response (the pipeline's own are known to the generator). */
  headers?: readonly ResponseHeader[];
  /** Error bodies of this status, made by the functions the handler throws (examples in the document). */
  errors?: readonly ApiError[];
  /**
   * A create's response: the values the record gets whatever the request says. The document's example is
   * then the answer to its request example (examples.ts `createdExample`), which a test compares to a real one.
   */
  created?: Readonly<Record<string, unknown>>;
}

/** An operation's own budget: the buckets it counts in per path `id`, and what its 429 says and documents. */
export interface OperationLimit {
  buckets: BucketSet;
  message: string;
  description: string;
}

/** The 429 of a spent operation budget: what the listener sends and the document shows. */
export const limitExceeded = (limit: OperationLimit) => new ApiError('rate_limit_exceeded', limit.message);

export interface Operation<
  A extends Auth = Auth,
  U extends string = string,
  Q extends TObject | undefined = TObject | undefined,
  B extends TSchema | undefined = TSchema | undefined,
  V extends false | undefined = false | undefined,
  R extends Record<number, ResponseSpec> = Record<number, ResponseSpec>,
> {
  /** The operationId: the document's, the admin client's method name, the MCP tool's name in snake case. */
  id: string;
  method: Method;
  /** Fastify-style path under the listener's prefix for `auth` (`/suppliers/:id`). Path ids are uuids. */
  path: U;
  auth: A;
  tag: string;
  summary: string;
  description?: string;
  /** Schemas of the path parameters when they are not uuids (the signed file token). */
  params?: Record<string, TSchema>;
  query?: Q;
  body?: B;
  /** The handler judges the body itself (PUT /assets item by item, an import document); `body` documents it. */
  validateBody?: V;
  /** Requires Idempotency-Key and stores the response (decisions 7-10). */
  idempotent?: boolean;
  /** Buckets counted together with the caller's own (the PDF render, the reference page's files). */
  extraBuckets?: Extract<BucketSet, 'pdf' | 'reference'>;
  /** A budget of the operation's own per path id, counted once the request is valid (P107). */
  limit?: OperationLimit;
  /** By status: successes, and the errors the handler itself answers (the pipeline's own are derived). */
  responses: R;
}

/**
 * Declares an operation, keeping its literal path, auth and responses so handlers and clients are typed from
 * it (the admin client's results are the schemas of the success responses).
 */
export function operation<
  const A extends Auth,
  const U extends string,
  Q extends TObject | undefined = undefined,
  B extends TSchema | undefined = undefined,
  V extends false | undefined = undefined,
  R extends Record<number, ResponseSpec> = Record<number, ResponseSpec>,
>(declaration: Operation<A, U, Q, B, V, R>): Operation<A, U, Q, B, V, R> {
  return declaration;
}

/**
 * An operation's success: its one 2xx status and response (none for an operation that only redirects), or
 * with `required`, an error naming the operation.
 */
export function success(operation: Pick<Operation, 'id' | 'responses'>): [number, ResponseSpec] | undefined;
export function success(
  operation: Pick<Operation, 'id' | 'responses'>,
  required: true,
): [number, ResponseSpec];
export function success(
  operation: Pick<Operation, 'id' | 'responses'>,
  required?: true,
): [number, ResponseSpec] | undefined {
  const found = Object.entries(operation.responses).find(([status]) => Number(status) < 300);
  if (!found && required) throw new Error(`${operation.id} declares no success response`);
  return found && [Number(found[0]), found[1]];
}

/** The path parameters of a Fastify path, typed: `/risks/:id/treatments` → `{ id: string }`. */
export type PathParams<U extends string> = U extends `${string}:${infer P}/${infer Rest}`
  ? { [K in P]: string } & PathParams<`/${Rest}`>
  : U extends `${string}:${infer P}`
    ? { [K in P]: string }
    : Record<never, never>;

/** Names of the path parameters of a Fastify path (`/risks/:id/treatments` → `id`). */
export function pathParameters(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
}

/** The document's form of a path: `/suppliers/:id` → `/suppliers/{id}`. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** The prefix of each listener's paths for an operation's auth. */
export const PATH_PREFIX = { apiKey: '/v1', operator: '/admin', none: '' } as const satisfies Record<
  Auth['kind'],
  string
>;

/** A query as the handler gets it: validated, with `limit`'s default applied (so it is always there). */
export type ValidatedQuery<Q> = Q extends TObject
  ? 'limit' extends keyof Static<Q>
    ? Omit<Static<Q>, 'limit'> & { limit: number }
    : Static<Q>
  : Record<never, never>;

/** What a handler receives: path parameters, query and body, typed from the operation's own schemas. */
export interface OperationInput<
  U extends string = string,
  Q = TObject | undefined,
  B = TSchema | undefined,
  V = false | undefined,
> {
  params: PathParams<U>;
  query: ValidatedQuery<Q>;
  /**
   * The validated body; when the handler judges it itself (`validateBody: false`), only known to be a JSON
   * object (the pipeline refuses anything else with a 400).
   */
  body: V extends false ? Record<string, unknown> : B extends TSchema ? Static<B> : undefined;
}

/** The input type of an operation, read off its declaration. */
export type InputOf<O> =
  O extends Operation<Auth, infer U, infer Q, infer B, infer V> ? OperationInput<U, Q, B, V> : never;
