// The pipeline of both listeners: one for every operation, its checks chosen by the operation's auth, each
// check written once (request-headers.ts, validation.ts, checkPathIds below) whichever auth runs it, so no
// handler can forget one. An API key's operation (under /v1) gets the checks of decision 1, in order:
//   authentication (401) → rate limit (429) → plan (403) → scope (403) → query, or a GET's body (400)
//   → Idempotency-Key (400) → body (422) → path id (404) → handler (404/409/…).
// An operation that needs no key (decision 4) is limited per client address (P69), and a parameter that fails
// its schema is a 404. An operator's (under /admin, the management listener) gets, in order:
//   token (401; 429 per client address) → path ids (404) → query (400) → no body (400, P114) → body (422)
//   → its own budget per path id (429, given back when the handler refuses or fails) → handler.
// The public contracts are declared in src/resources/ (operations.ts), a slice's handler module binds each to
// its handler with `handle`; the operator's are bound in management/handlers.ts.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError, internalError, notFound } from '../contract/errors.js';
import { type ResponseHeader, STAMPED_HEADERS } from '../contract/headers.js';
import {
  type ApiKeyAuth,
  type BucketSet,
  type InputOf,
  limitExceeded,
  type NoneAuth,
  type Operation,
  PATH_PREFIX,
  pathParameters,
  type ResponseSpec,
  success,
} from '../contract/operation.js';
import { INVALID_FIELD, NO_RECORD } from '../contract/operator.js';
import type { EventRecorder } from '../events/outbox.js';
import type { Scope } from '../schema/fields.js';
import { constantTimeEqual, sha256 } from '../security/secrets.js';
import type { AuditAction } from '../storage/audit.js';
import type { Db, Queryable } from '../storage/db.js';
import { TenantDb } from '../storage/tenant.js';
import { unitOfWork } from '../storage/unit-of-work.js';
import { Authenticator, invalidAdminToken, invalidApiKey, type KeyRecord } from './auth.js';
import { sendError, toApiError } from './errors.js';
import {
  idempotencyKeyInUse,
  idempotencyKeyReused,
  readIdempotencyKey,
  runIdempotent,
} from './idempotency.js';
import type { BoundOperation, OperatorContext } from './operator.js';
import type { CursorCodec } from './pagination.js';
import type { Bucket, RateDecision, RateLimiter } from './rate-limit.js';
import { assertNoBody, assertSingleValuedHeaders } from './request-headers.js';
import { checker, isUuid, NO_PARAMETERS, notAnObject, validateBody, validateQuery } from './validation.js';

export interface PublicServices {
  db: Db;
  auth: Authenticator;
  limiter: RateLimiter;
  cursors: CursorCodec;
  buckets: Record<BucketSet, readonly Bucket[]>;
}

/**
 * What a handler works with. Tenant data only through `tenant`, bound to the key's workspace (and, for writes,
 * to the write transaction); audit entries and events only through `audit` and `events`, which write into that
 * same transaction. The raw pool and transaction are not handed out.
 */
export interface RouteContext<S extends PublicServices = PublicServices> {
  request: FastifyRequest;
  services: Omit<S, 'db'>;
  key: KeyRecord;
  /** The caller's workspace; inside the write transaction for POST, PUT and PATCH. */
  tenant: TenantDb;
  /** Records an event in the write transaction (POST, PUT, PATCH; a GET has none to write into). */
  events: EventRecorder;
  requestId: string;
  hasScope(scope: Scope): boolean;
  /**
   * Runs `work` on one read-only REPEATABLE READ transaction of the caller's workspace: every statement sees
   * the same snapshot (a whole-collection export, http/export.ts). On the embedded store the transaction holds
   * its only session, so every other request waits for it: callers there read without one (P194).
   */
  snapshot<T>(work: (tenant: TenantDb) => Promise<T>): Promise<T>;
  /** Writes the audit entry of an API write, attributed to the human who created the key (decision 26). */
  audit(
    action: AuditAction,
    target: { type: string; id: string },
    metadata?: Record<string, unknown>,
  ): Promise<void>;
}

export interface RouteReply {
  status: number;
  /** The body as a key with pii:read sees it. */
  body?: string;
  /**
   * The same body without its personal fields, when it has some: the pipeline sends it to a key without
   * pii:read, and an idempotent write stores both, so that a replay shows each key what its own scopes allow
   * (docs/decisions.md P76).
   */
  withoutPii?: string;
  headers?: Record<string, string>;
  /** A body streamed as it is produced, of this media type (a list's export, http/export.ts), instead of `body`. */
  stream?: { body: Readable; contentType: string };
}

/** What the handler of an operation that needs no key works with: the request, and the reply it sends. */
export interface OpenContext<S extends PublicServices = PublicServices> {
  request: FastifyRequest;
  reply: FastifyReply;
  services: S;
}

/** An operation of the public listener: under /v1 with an API key, or outside it with none. */
export type PublicOperation = Operation<ApiKeyAuth | NoneAuth>;

type ContextOf<A, S extends PublicServices> = A extends ApiKeyAuth ? RouteContext<S> : OpenContext<S>;
type ReplyOf<A> = A extends ApiKeyAuth ? RouteReply : FastifyReply;

/** An operation bound to its handler: what the public listener registers. */
export interface Route<
  O extends PublicOperation = PublicOperation,
  S extends PublicServices = PublicServices,
> {
  operation: O;
  handler(ctx: ContextOf<O['auth'], S>, input: InputOf<O>): Promise<ReplyOf<O['auth']>>;
  /** Buckets a request counts against besides the operation's, chosen by the request (a list's export). */
  extraBucketsFor?(request: FastifyRequest): Extract<BucketSet, 'exports'> | undefined;
}

/** Binds an operation to its handler, whose input is typed from the operation's own schemas. */
export function handle<O extends PublicOperation, S extends PublicServices = PublicServices>(
  operation: O,
  handler: (ctx: ContextOf<O['auth'], S>, input: InputOf<O>) => Promise<ReplyOf<O['auth']>>,
): Route<O, S> {
  return { operation, handler };
}

const JSON_TYPE = 'application/json; charset=utf-8';

export const RATE_LIMIT_HEADERS: readonly ResponseHeader[] = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
];

function setRateHeaders(reply: FastifyReply, decision: RateDecision): void {
  const values = [decision.limit, decision.remaining, decision.resetSeconds];
  for (const [i, name] of RATE_LIMIT_HEADERS.entries()) reply.header(name, String(values[i]));
}

export const rateLimitExceeded = () =>
  new ApiError('rate_limit_exceeded', 'Too many requests. Retry after the number of seconds in Retry-After.');

/** The 429 of a spent budget, with its Retry-After; `decision` is kept for the request's log and metrics. */
export function rateLimited(
  request: FastifyRequest,
  reply: FastifyReply,
  decision: RateDecision,
  error = rateLimitExceeded(),
): ApiError {
  request.rateDecision = decision;
  reply.header('retry-after', String(decision.retryAfterSeconds ?? 1));
  return error;
}

/**
 * Counts a request without a valid key against its client address (decision 29): bad keys, and the routes that
 * need none (P69). A 429 once the address has spent its budget; no rate-limit headers, no workspace is known.
 */
export async function limitByAddress(
  services: PublicServices,
  request: FastifyRequest,
  reply: FastifyReply,
  buckets: readonly Bucket[] = services.buckets.address,
): Promise<void> {
  const decision = await services.limiter.consume(`addr:${request.ip}`, buckets);
  if (!decision.allowed) throw rateLimited(request, reply, decision);
}

/** A path id that is not a uuid is a 404, like a missing one (decision 3). */
function checkPathIds(names: readonly string[], params: Record<string, string>): void {
  for (const name of names) if (!isUuid(params[name] ?? '')) throw notFound();
}

const planUpgradeRequired = () =>
  new ApiError(
    'plan_upgrade_required',
    'The API is available on the Enterprise plan. Upgrade the workspace to use it.',
  );

const insufficientScope = (scope: Scope) =>
  new ApiError('insufficient_scope', `This endpoint needs the ${scope} scope.`, { required_scope: scope });

async function authenticate(
  services: PublicServices,
  buckets: readonly Bucket[],
  scope: Scope,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const token = Authenticator.bearer(request.raw.rawHeaders);
  // The cache may answer: a cached key is confirmed before any answer depends on it. Reads run their SQL
  // against live_workspace() (storage/tenant.ts), writes check it in their transaction's first round trip,
  // and a client error re-reads the key first (errorHandler below).
  let found = await services.auth.lookup(token, false);
  if (!found) {
    // Bad credentials never touch a workspace's budget; they are limited per client address.
    await limitByAddress(services, request, reply);
    throw invalidApiKey();
  }
  request.workspaceId = found.record.workspaceId;
  request.apiKeyId = found.record.keyId;
  const rateKey = `ws:${found.record.workspaceId}`;
  const decision = await services.limiter.consume(rateKey, buckets);
  request.rateDecision = decision;
  setRateHeaders(reply, decision);
  if (!decision.allowed) throw rateLimited(request, reply, decision);
  // A cached key found invalid after its request was counted: the count is given back, and the answer is the
  // one of any unknown key (decision 39: no rate-limit headers, the workspace is unknown).
  const refuse = async () => {
    await services.limiter.refund(rateKey, buckets);
    request.workspaceId = null;
    request.apiKeyId = null;
    for (const name of RATE_LIMIT_HEADERS) reply.removeHeader(name);
    return invalidApiKey();
  };
  // A cached "not Enterprise" may be stale after an upgrade: confirm before refusing.
  if (found.cached && found.record.plan !== 'enterprise') {
    found = await services.auth.lookup(token, true);
    if (!found) throw await refuse();
  }
  if (found.record.plan !== 'enterprise') throw planUpgradeRequired();
  const guard = found.cached
    ? {
        keyId: found.record.keyId,
        confirm: async (via?: Queryable) => {
          const again = await services.auth.lookup(token, true, via);
          if (!again) throw await refuse();
          if (again.record.plan !== 'enterprise') throw planUpgradeRequired();
        },
      }
    : null;
  const tenant = TenantDb.forKey(services.db, found.record.workspaceId, guard);
  if (!found.record.scopes.has(scope)) {
    await tenant.confirm();
    throw insufficientScope(scope);
  }
  return { key: found.record, tenant };
}

/**
 * Registers the public listener's routes, each through the pipeline of its operation's auth. `operations` are
 * those the listener serves (its document's): each must be bound exactly once.
 */
export function registerRoutes<S extends PublicServices>(
  app: FastifyInstance,
  services: S,
  routes: readonly Route[],
  operations: readonly Operation[],
): void {
  const bound: readonly Operation[] = routes.map((route) => route.operation);
  const unbound = operations.filter((operation) => !bound.includes(operation)).map((o) => o.id);
  const extra = bound.filter(
    (operation, i) => !operations.includes(operation) || bound.indexOf(operation) !== i,
  );
  if (unbound.length > 0 || extra.length > 0)
    throw new Error(
      `operations not bound: [${unbound}]; bound twice or not served: [${extra.map((o) => o.id)}]`,
    );
  // Authentication runs before the body is read, so a request without a valid key is a 401 whatever its body.
  const authenticated = new WeakMap<FastifyRequest, Awaited<ReturnType<typeof authenticate>>>();

  /** An operation under /v1: decision 1's checks. */
  const keyRoute = (route: Route<Operation<ApiKeyAuth>, S>) => {
    const { operation } = route;
    // Everything a request needs from its operation, resolved once here rather than on each request.
    const pathParams = pathParameters(operation.path);
    const scope = operation.auth.scope;
    const querySchema = operation.query ?? NO_PARAMETERS;
    const bodySchema = operation.validateBody === false ? undefined : operation.body;
    const buckets = operation.extraBuckets
      ? [...services.buckets.workspace, ...services.buckets[operation.extraBuckets]]
      : services.buckets.workspace;
    const exportBuckets = [...buckets, ...services.buckets.exports];
    app.route({
      method: operation.method,
      url: `${PATH_PREFIX.apiKey}${operation.path}`,
      onRequest: async (request, reply) => {
        const counted = route.extraBucketsFor?.(request) === 'exports' ? exportBuckets : buckets;
        authenticated.set(request, await authenticate(services, counted, scope, request, reply));
        assertSingleValuedHeaders(request.raw.rawHeaders);
      },
      // A client error (a malformed body, a bad query, a missing id…) for a cached key is answered only once
      // the key is confirmed: a revoked key gets its 401 whatever else is wrong (decision 1). Not a 429, which
      // must stay free to answer.
      errorHandler: async (error, request, reply) => {
        const answer = toApiError(error, request);
        const auth = authenticated.get(request);
        if (auth && answer.status < 500 && answer.code !== 'rate_limit_exceeded') {
          try {
            await auth.tenant.confirm();
          } catch (authError) {
            return sendError(reply, toApiError(authError, request));
          }
        }
        return sendError(reply, answer);
      },
      handler: async (request, reply) => {
        const auth = authenticated.get(request);
        if (!auth) throw new Error('a request reached its handler without authentication');
        const { key, tenant } = auth;
        const params = request.params as Record<string, string>;
        const query = { ...(request.query as Record<string, unknown>) };
        validateQuery(querySchema, query);
        // A GET takes no body: one sent is refused rather than ignored (P114).
        if (operation.method === 'GET') assertNoBody(request.headers);
        const context = (tenantDb: TenantDb, tx: Queryable | null): RouteContext<S> => {
          // A write is attributed to the human who created the key (decision 26); a read writes nothing.
          const work = tx
            ? unitOfWork(
                tx,
                key.workspaceId,
                { type: 'user', id: key.createdBy, apiKeyId: key.keyId },
                request.id,
                tenantDb,
              )
            : null;
          return {
            request,
            services,
            key,
            tenant: tenantDb,
            events: async (type, data) => {
              if (!work) throw new Error('events are recorded by write routes, inside their transaction');
              return work.events(type, data);
            },
            requestId: request.id,
            hasScope: (scope) => key.scopes.has(scope),
            snapshot: (work) =>
              services.db.transaction(async (snapshotTx) => {
                await snapshotTx.query('set transaction isolation level repeatable read, read only');
                return work(tenantDb.within(snapshotTx));
              }),
            audit: async (action, target, metadata) => {
              if (!work)
                throw new Error('audit entries are written by write routes, inside their transaction');
              await work.audit(action, target, metadata);
            },
          };
        };

        let result: RouteReply;
        // Path ids (existence) are checked after request validation (decision 1).
        if (operation.method === 'GET') {
          checkPathIds(pathParams, params);
          result = await route.handler(context(tenant, null), { params, query, body: undefined });
        } else {
          const body = request.body;
          if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notAnObject();
          const run = async (tx: Queryable) => {
            if (bodySchema) validateBody(bodySchema, body);
            checkPathIds(pathParams, params);
            const reply = await route.handler(context(tenant.within(tx), tx), { params, query, body });
            return { status: reply.status, body: reply.body ?? '', withoutPii: reply.withoutPii };
          };
          // A key from the cache is confirmed in the transaction, in the round trip of its first statements:
          // when it is no longer valid, nothing is written (or stored as an idempotent response).
          const confirm = (tx: Queryable) => tenant.confirmWithin(tx);
          if (operation.idempotent) {
            const idempotencyKey = readIdempotencyKey(request.headers['idempotency-key']);
            const stored = await runIdempotent(
              services.db,
              {
                workspaceId: key.workspaceId,
                endpoint: operation.id,
                key: idempotencyKey,
                body,
                requestId: request.id,
              },
              run,
              confirm,
            );
            if (stored.replayed) reply.header('idempotent-replayed', 'true');
            result = stored;
          } else {
            result = await services.db.transaction(async (tx) => {
              const confirming = confirm(tx);
              confirming.catch(() => undefined);
              // The key's verdict comes first, whatever the work answered.
              const outcome = await run(tx).then(
                (reply) => ({ reply }),
                (error: unknown) => ({ error }),
              );
              await confirming;
              if ('error' in outcome) throw outcome.error;
              return outcome.reply;
            });
          }
        }
        if (result.headers)
          for (const [name, value] of Object.entries(result.headers)) reply.header(name, value);
        if (result.stream)
          return reply
            .code(result.status)
            .header('content-type', result.stream.contentType)
            .send(result.stream.body);
        const sent =
          result.withoutPii !== undefined && !key.scopes.has('pii:read') ? result.withoutPii : result.body;
        if (sent === undefined || sent === '') return reply.code(result.status).send();
        return reply.code(result.status).header('content-type', JSON_TYPE).send(sent);
      },
    });
  };

  /** An operation that needs no key: limited per client address; a parameter failing its schema is a 404. */
  const openRoute = (route: Route<Operation<NoneAuth>, S>) => {
    const { operation } = route;
    const checkParams = checker(Type.Object(operation.params ?? {}));
    const declared = Object.keys(operation.query?.properties ?? {});
    const checkQuery = operation.query ? checker(operation.query) : () => null;
    const buckets = operation.extraBuckets
      ? [...services.buckets.address, ...services.buckets[operation.extraBuckets]]
      : services.buckets.address;
    app.route<{ Params: Record<string, string>; Querystring: Record<string, string> }>({
      method: operation.method,
      url: `${PATH_PREFIX.none}${operation.path}`,
      onRequest: (request, reply) => limitByAddress(services, request, reply, buckets),
      handler: async (request, reply) => {
        // The parameters the operation reads; others are ignored.
        const query = Object.fromEntries(
          Object.entries(request.query).filter(([name]) => declared.includes(name)),
        );
        // These URLs are fixed or issued by the service: one that fails its schema names nothing (decision 4).
        if (checkParams(request.params) || checkQuery(query)) throw notFound();
        return route.handler(
          { request, reply, services },
          { params: request.params, query, body: undefined },
        );
      },
    });
  };

  for (const route of routes) {
    if (isKeyRoute(route)) keyRoute(route);
    else openRoute(route as Route<Operation<NoneAuth>, S>);
  }
}

/** What the operator's branch of the pipeline needs: the token's hash, and the limiter for its budgets. */
export interface OperatorServices {
  adminTokenHash: Buffer;
  limiter: RateLimiter;
  buckets: Record<BucketSet, readonly Bucket[]>;
}

/**
 * The operator's authentication: a bearer token compared, as a SHA-256 digest, in constant time with the one
 * the process holds (only its hash is kept). Wrong and missing tokens are counted per client address (P68).
 * Once an address is over its limit, every request from it is a 429 before the token is compared, a right one
 * included: otherwise the answer would still tell a right guess from a wrong one. A right token counts nothing.
 */
async function authenticateOperator(
  services: OperatorServices,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const token = Authenticator.bearer(request.raw.rawHeaders);
  const valid = token !== null && constantTimeEqual(sha256(token), services.adminTokenHash);
  const failures = `admin-failures:${request.ip}`;
  const { limiter, buckets } = services;
  const decision = valid
    ? await limiter.peek(failures, buckets.adminFailures)
    : await limiter.consume(failures, buckets.adminFailures);
  if (!decision.allowed) throw rateLimited(request, reply, decision);
  if (!valid) throw invalidAdminToken();
}

/**
 * Registers an operator operation (under /admin) through the operator's checks (this file's header). `context` makes its
 * handler's context for a request (the management listener's services).
 */
export function registerOperatorRoute(
  app: FastifyInstance,
  services: OperatorServices,
  { operation, handler }: BoundOperation,
  context: (request: FastifyRequest) => OperatorContext,
): void {
  // Everything a request needs from its operation, resolved once here rather than on each request.
  const hasIdPath = operation.path.startsWith('/workspaces/:id');
  const [status] = success(operation, true);
  const pathIds = pathParameters(operation.path);
  const bodySchema = operation.validateBody === false ? undefined : operation.body;
  const { limit } = operation;
  const budgetBuckets = limit && services.buckets[limit.buckets];
  app.route({
    method: operation.method,
    url: `${PATH_PREFIX.operator}${operation.path}`,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      await authenticateOperator(services, request, reply);
      assertSingleValuedHeaders(request.raw.rawHeaders);
      const params = request.params as Record<string, string>;
      checkPathIds(pathIds, params);
      if (hasIdPath) request.workspaceId = params.id ?? null;
      const query = { ...(request.query as Record<string, unknown>) };
      // An operation without query parameters refuses any, in the words of the public API (P158).
      validateQuery(operation.query ?? NO_PARAMETERS, query);
      if (!operation.body) assertNoBody(request.headers, request.body as Buffer | undefined);
      else if (bodySchema) validateBody(bodySchema, request.body);
      // Validated against the operation's query and body schemas above (or judged by the handler:
      // validateBody false).
      const input = { params, query, body: operation.body ? request.body : undefined } as Parameters<
        typeof handler
      >[1];
      const budget = limit &&
        budgetBuckets && { key: `${operation.id}:${params.id}`, buckets: budgetBuckets };
      if (limit && budget) {
        const decision = await services.limiter.consume(budget.key, budget.buckets);
        if (!decision.allowed) throw rateLimited(request, reply, decision, limitExceeded(limit));
      }
      let result: string | undefined;
      try {
        result = await handler(context(request), input);
      } catch (error) {
        // Refused or failed: nothing was done, so nothing is counted.
        if (budget) await services.limiter.refund(budget.key, budget.buckets);
        throw error;
      }
      reply.code(status);
      return result === undefined ? reply.send() : reply.header('content-type', JSON_TYPE).send(result);
    },
  });
}

const isKeyRoute = <S extends PublicServices>(route: Route): route is Route<Operation<ApiKeyAuth>, S> =>
  route.operation.auth.kind === 'apiKey';

/** The 404 of an id, and of any path or method outside the API (errors.ts, decision 4). */
export const NOT_FOUND_DESCRIPTION =
  "No such resource in this workspace (a missing id, another workspace's id, an id that is not a uuid), " +
  'or no such path or method (then answered before authentication, without rate-limit headers).';
export const INTERNAL_ERROR_DESCRIPTION = 'Failure on the service side: retry later.';

/** Whether the rate-limit headers are set on a response: once the workspace is known (decisions 5, 39). */
export type RateHeaders = 'required' | 'optional' | 'absent';

export interface PipelineError {
  description: string;
  /** Bodies made by the very functions the pipeline throws. */
  examples: ApiError[];
  rateHeaders: RateHeaders;
}

/** The ApiError a check throws, for the document's examples (made by the very code that answers). */
export function thrownBy(check: () => unknown): ApiError {
  try {
    check();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the check to throw an ApiError');
}

/**
 * The error responses registerRoutes can give for a route, in the order of its checks, whatever the handler
 * does. Kept next to the pipeline so that a new check is documented where it is written.
 */
export function pipelineErrors(operation: Operation<ApiKeyAuth>): Record<number, PipelineError> {
  const writes = operation.method !== 'GET';
  const badRequests = [thrownBy(() => validateQuery(operation.query ?? NO_PARAMETERS, { unknown: '1' }))];
  badRequests.push(writes ? notAnObject() : thrownBy(() => assertNoBody({ 'content-length': '2' })));
  if (operation.idempotent) badRequests.push(thrownBy(() => readIdempotencyKey(undefined)));
  const errors: Record<number, PipelineError> = {
    400: {
      description:
        'Malformed request: an unknown or invalid query parameter (named in `details.parameter`)' +
        (writes
          ? ', a body that is not a JSON object (or not JSON, or over 4 MiB)'
          : ', or a request body (none is taken)') +
        (operation.idempotent ? ', a missing or invalid Idempotency-Key' : '') +
        '.',
      examples: badRequests,
      rateHeaders: 'required',
    },
    401: {
      description:
        'Missing, unknown, revoked or expired API key: always this same body, no rate-limit headers.',
      examples: [invalidApiKey()],
      rateHeaders: 'absent',
    },
    403: {
      description: `The workspace is not on the Enterprise plan, or the key lacks the ${operation.auth.scope} scope.`,
      examples: [planUpgradeRequired(), insufficientScope(operation.auth.scope)],
      rateHeaders: 'required',
    },
    429: {
      description:
        'Too many requests: wait `Retry-After` seconds. Requests without a valid key are limited per ' +
        'client address and carry no rate-limit headers.',
      examples: [rateLimitExceeded()],
      rateHeaders: 'optional',
    },
    500: {
      description: INTERNAL_ERROR_DESCRIPTION,
      examples: [internalError()],
      rateHeaders: 'optional',
    },
  };
  if (pathParameters(operation.path).length > 0) {
    errors[404] = {
      description: NOT_FOUND_DESCRIPTION,
      examples: [notFound()],
      rateHeaders: 'optional',
    };
  }
  if (operation.idempotent) {
    errors[409] = {
      description: 'The Idempotency-Key is in use by a request still running, or was used with another body.',
      examples: [idempotencyKeyInUse(), idempotencyKeyReused()],
      rateHeaders: 'required',
    };
  }
  if (operation.body) {
    const body = operation.body;
    errors[422] = {
      description:
        'A field of the body is invalid: `details.fields` maps each bad field, by its name in the body, to a ' +
        'message (which says which items of an array field are bad).',
      examples: [thrownBy(() => validateBody(body, {}))],
      rateHeaders: 'required',
    };
  }
  return errors;
}

/**
 * The error responses of an operator operation: those of the operator's checks (registerOperatorRoute), then
 * those its handler declares. Kept next to the pipeline so that a new check is documented where it is written.
 */
export function operatorErrors(
  operation: Operation,
): Record<number, { description: string; examples: ApiError[] }> {
  const declared = operation.responses;
  const errors: Record<number, { description: string; examples: ApiError[] }> = {
    400: {
      description: `Malformed request: ${
        operation.query
          ? 'an unknown or invalid query parameter (named in `details.parameter`)'
          : operation.body
            ? 'a query parameter (none is taken)'
            : 'a query parameter or a request body (this operation takes neither)'
      }${operation.body ? ', a body that is not JSON' : ''}, or a header sent twice.`,
      examples: [
        thrownBy(() => validateQuery(operation.query ?? NO_PARAMETERS, { unknown: '1' })),
        ...(operation.body ? [] : [thrownBy(() => assertNoBody({ 'content-length': '2' }))]),
        // The handler's own 400s are malformed requests too: the description above covers them.
        ...(declared[400]?.errors ?? []),
      ],
    },
    401: { description: 'The admin token is missing or wrong.', examples: [invalidAdminToken()] },
    429: {
      description:
        'Too many wrong or missing tokens from this address: every request from it waits `Retry-After` ' +
        'seconds, one with the right token included.',
      examples: [rateLimitExceeded()],
    },
    500: { description: INTERNAL_ERROR_DESCRIPTION, examples: [internalError()] },
  };
  if (operation.limit)
    errors[429] = {
      description: `${operation.limit.description} ${errors[429]?.description}`,
      examples: [limitExceeded(operation.limit), ...(errors[429]?.examples ?? [])],
    };
  const answer = ({ description, errors: examples = [] }: ResponseSpec) => ({
    description,
    examples: [...examples],
  });
  // A path id that is not a uuid is a 404 of the listener's, whatever the handler declares.
  const notFoundSpec = declared[404] ?? (pathParameters(operation.path).length > 0 ? NO_RECORD : undefined);
  if (notFoundSpec) errors[404] = answer(notFoundSpec);
  if (declared[409]) errors[409] = answer(declared[409]);
  const { body } = operation;
  const invalid = declared[422] ?? (body && operation.validateBody !== false ? INVALID_FIELD : undefined);
  if (body && invalid)
    errors[422] = {
      description: invalid.description,
      examples: invalid.errors
        ? [...invalid.errors]
        : // An empty body names the required fields; a body whose fields are all optional, an unknown one.
          [
            thrownBy(() => {
              validateBody(body, {});
              validateBody(body, { unknown_field: true });
            }),
          ],
    };
  return errors;
}

/** Statuses the pipeline answers before an idempotent request runs, so never a stored (replayed) response. */
const NEVER_STORED = new Set([400, 401, 403, 429, 500]);

/** The headers the pipeline sets on a response of this operation under /v1 with this status. */
export function pipelineHeaders(
  operation: Operation<ApiKeyAuth>,
  status: number,
): { required: ResponseHeader[]; optional: ResponseHeader[] } {
  const rate = status < 400 ? 'required' : (pipelineErrors(operation)[status]?.rateHeaders ?? 'required');
  const required = [...STAMPED_HEADERS, ...(rate === 'required' ? RATE_LIMIT_HEADERS : [])];
  const optional = rate === 'optional' ? [...RATE_LIMIT_HEADERS] : [];
  if (status === 429) required.push('Retry-After');
  if (operation.idempotent && !NEVER_STORED.has(status)) optional.push('Idempotent-Replayed');
  return { required, optional };
}

/**
 * The headers the pipeline sets on a response outside /v1 (an operation that needs no key, or the operator's):
 * no workspace's rate-limit headers; a 429 says when to retry.
 */
export function unmeteredHeaders(status: number): ResponseHeader[] {
  return status === 429 ? [...STAMPED_HEADERS, 'Retry-After'] : [...STAMPED_HEADERS];
}
