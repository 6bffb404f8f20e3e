// A public route declares its contract (path, scope, schemas, responses) and its policy; the pipeline below
// applies the checks of decision 1 in order, so no route can forget one:
//   authentication (401) → rate limit (429) → plan (403) → scope (403) → query, or a GET's body (400)
//   → Idempotency-Key (400) → body (422) → path id (404) → handler (404/409/…).
// The route table is also the source of the OpenAPI document.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TObject, TSchema } from 'typebox';
import { ApiError, internalError, notFound } from '../contract/errors.js';
import { type ResponseHeader, STAMPED_HEADERS } from '../contract/headers.js';
import type { BucketSet, OperationInput, ResponseSpec } from '../contract/operation.js';
import { pathParameters } from '../contract/operation.js';
import type { EventRecorder } from '../events/outbox.js';
import type { Scope } from '../schema/fields.js';
import type { AuditAction } from '../storage/audit.js';
import type { Db, Queryable } from '../storage/db.js';
import { TenantDb } from '../storage/tenant.js';
import { unitOfWork } from '../storage/unit-of-work.js';
import { Authenticator, invalidApiKey, type KeyRecord } from './auth.js';
import { sendError, toApiError } from './errors.js';
import {
  idempotencyKeyInUse,
  idempotencyKeyReused,
  readIdempotencyKey,
  runIdempotent,
} from './idempotency.js';
import type { CursorCodec } from './pagination.js';
import type { Bucket, RateDecision, RateLimiter } from './rate-limit.js';
import { assertNoBody, assertSingleValuedHeaders } from './request-headers.js';
import { isUuid, NO_PARAMETERS, notAnObject, validateBody, validateQuery } from './validation.js';

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
}

export interface RouteDef<
  S extends PublicServices = PublicServices,
  U extends string = string,
  Q extends TObject | undefined = TObject | undefined,
  B extends TSchema | undefined = TSchema | undefined,
  V extends false | undefined = false | undefined,
> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** Fastify path under /v1, e.g. `/suppliers/:id`. Path parameters are uuids. */
  url: U;
  operationId: string;
  scope: Scope;
  tag: string;
  summary: string;
  description?: string;
  query?: Q;
  body?: B;
  /** The handler validates the body itself (PUT /assets judges each item on its own); `body` documents it. */
  validateBody?: V;
  /** POST: requires Idempotency-Key and stores the response (decisions 7-10). */
  idempotent?: boolean;
  /** Extra rate-limit buckets counted with the workspace's (GET /reports/{id}/pdf). */
  extraBuckets?: keyof Pick<PublicServices['buckets'], 'pdf'>;
  responses: Record<number, ResponseSpec>;
  handler(ctx: RouteContext<S>, input: OperationInput<U, Q, B, V>): Promise<RouteReply>;
}

/** Declares a public route, inferring its path parameters, query and body types from its own schemas. */
export function route<
  const U extends string,
  Q extends TObject | undefined = undefined,
  B extends TSchema | undefined = undefined,
  V extends false | undefined = undefined,
  S extends PublicServices = PublicServices,
>(definition: RouteDef<S, U, Q, B, V>): RouteDef<S, U, Q, B, V> {
  return definition;
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

const planUpgradeRequired = () =>
  new ApiError(
    'plan_upgrade_required',
    'The API is available on the Enterprise plan. Upgrade the workspace to use it.',
  );

const insufficientScope = (scope: Scope) =>
  new ApiError('insufficient_scope', `This endpoint needs the ${scope} scope.`, { required_scope: scope });

async function authenticate(
  services: PublicServices,
  route: RouteDef,
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
  const buckets = route.extraBuckets
    ? [...services.buckets.workspace, ...services.buckets[route.extraBuckets]]
    : services.buckets.workspace;
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
  if (!found.record.scopes.has(route.scope)) {
    await tenant.confirm();
    throw insufficientScope(route.scope);
  }
  return { key: found.record, tenant };
}

/** The version prefix of every API path (risk-data-api.md "Versioning"). */
export const API_PREFIX = '/v1';

export function registerRoutes<S extends PublicServices>(
  app: FastifyInstance,
  services: S,
  routes: readonly RouteDef<S>[],
): void {
  // Authentication runs before the body is read, so a request without a valid key is a 401 whatever its body.
  const authenticated = new WeakMap<FastifyRequest, Awaited<ReturnType<typeof authenticate>>>();
  for (const route of routes) {
    const pathParams = pathParameters(route.url);
    app.route({
      method: route.method,
      url: `${API_PREFIX}${route.url}`,
      onRequest: async (request, reply) => {
        authenticated.set(
          request,
          await authenticate(services, route as unknown as RouteDef, request, reply),
        );
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
        // A path id that is not a uuid is a 404, like a missing one (decision 3): existence, checked after
        // request validation (decision 1).
        const checkPathIds = () => {
          for (const name of pathParams) if (!isUuid(params[name] ?? '')) throw notFound();
        };
        const query = { ...(request.query as Record<string, unknown>) };
        validateQuery(route.query ?? NO_PARAMETERS, query);
        // A GET takes no body: one sent is refused rather than ignored (P114).
        if (route.method === 'GET') assertNoBody(request.headers);
        const actor = { type: 'user', id: key.createdBy, apiKeyId: key.keyId } as const;
        const context = (tenantDb: TenantDb, tx: Queryable | null): RouteContext<S> => {
          const work = tx ? unitOfWork(tx, key.workspaceId, actor, request.id, tenantDb) : null;
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
            audit: async (action, target, metadata) => {
              if (!work)
                throw new Error('audit entries are written by write routes, inside their transaction');
              await work.audit(action, target, metadata);
            },
          };
        };

        let result: RouteReply;
        if (route.method === 'GET') {
          checkPathIds();
          result = await route.handler(context(tenant, null), { params, query, body: undefined });
        } else {
          const body = request.body;
          if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notAnObject();
          const run = async (tx: Queryable) => {
            if (route.body && route.validateBody !== false) validateBody(route.body, body);
            checkPathIds();
            const reply = await route.handler(context(tenant.within(tx), tx), { params, query, body });
            return { status: reply.status, body: reply.body ?? '', withoutPii: reply.withoutPii };
          };
          // A key from the cache is confirmed in the transaction, in the round trip of its first statements:
          // when it is no longer valid, nothing is written (or stored as an idempotent response).
          const confirm = (tx: Queryable) => tenant.confirmWithin(tx);
          if (route.idempotent) {
            const idempotencyKey = readIdempotencyKey(request.headers['idempotency-key']);
            const stored = await runIdempotent(
              services.db,
              {
                workspaceId: key.workspaceId,
                endpoint: route.operationId,
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
        const sent =
          result.withoutPii !== undefined && !key.scopes.has('pii:read') ? result.withoutPii : result.body;
        if (sent === undefined || sent === '') return reply.code(result.status).send();
        return reply.code(result.status).header('content-type', JSON_TYPE).send(sent);
      },
    });
  }
}

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
export function pipelineErrors(route: RouteDef): Record<number, PipelineError> {
  const writes = route.method !== 'GET';
  const badRequests = [thrownBy(() => validateQuery(route.query ?? NO_PARAMETERS, { unknown: '1' }))];
  badRequests.push(writes ? notAnObject() : thrownBy(() => assertNoBody({ 'content-length': '2' })));
  if (route.idempotent) badRequests.push(thrownBy(() => readIdempotencyKey(undefined)));
  const errors: Record<number, PipelineError> = {
    400: {
      description:
        'Malformed request: an unknown or invalid query parameter (named in `details.parameter`)' +
        (writes
          ? ', a body that is not a JSON object (or not JSON, or over 4 MiB)'
          : ', or a request body (none is taken)') +
        (route.idempotent ? ', a missing or invalid Idempotency-Key' : '') +
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
      description: `The workspace is not on the Enterprise plan, or the key lacks the ${route.scope} scope.`,
      examples: [planUpgradeRequired(), insufficientScope(route.scope)],
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
  if (pathParameters(route.url).length > 0) {
    errors[404] = {
      description: NOT_FOUND_DESCRIPTION,
      examples: [notFound()],
      rateHeaders: 'optional',
    };
  }
  if (route.idempotent) {
    errors[409] = {
      description: 'The Idempotency-Key is in use by a request still running, or was used with another body.',
      examples: [idempotencyKeyInUse(), idempotencyKeyReused()],
      rateHeaders: 'required',
    };
  }
  if (route.body) {
    const body = route.body;
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

/** Statuses the pipeline answers before an idempotent request runs, so never a stored (replayed) response. */
const NEVER_STORED = new Set([400, 401, 403, 429, 500]);

/** The headers the pipeline sets on a response of this route with this status. */
export function pipelineHeaders(
  route: RouteDef,
  status: number,
): { required: ResponseHeader[]; optional: ResponseHeader[] } {
  const rate = status < 400 ? 'required' : (pipelineErrors(route)[status]?.rateHeaders ?? 'required');
  const required = [...STAMPED_HEADERS, ...(rate === 'required' ? RATE_LIMIT_HEADERS : [])];
  const optional = rate === 'optional' ? [...RATE_LIMIT_HEADERS] : [];
  if (status === 429) required.push('Retry-After');
  if (route.idempotent && !NEVER_STORED.has(status)) optional.push('Idempotent-Replayed');
  return { required, optional };
}
