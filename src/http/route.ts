// A public route declares its contract (path, scope, schemas, responses) and its policy; the pipeline below
// applies the checks of decision 1 in order, so no route can forget one:
//   authentication (401) → rate limit (429) → plan (403) → scope (403) → path id (404) → query (400)
//   → Idempotency-Key (400) → body (422) → handler (404/409/…).
// The route table is also the source of the OpenAPI document.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TObject, TSchema } from 'typebox';
import type { Scope } from '../resources/fields.js';
import { recordAudit } from '../storage/audit.js';
import type { Db, Queryable } from '../storage/db.js';
import { TenantDb } from '../storage/tenant.js';
import { Authenticator, invalidApiKey, type KeyRecord } from './auth.js';
import { ApiError, invalidRequest, notFound } from './errors.js';
import { readIdempotencyKey, runIdempotent } from './idempotency.js';
import type { CursorCodec } from './pagination.js';
import type { Bucket, RateDecision, RateLimiter } from './rate-limit.js';
import { isUuid, validateBody, validateQuery } from './validation.js';

export interface PublicServices {
  db: Db;
  auth: Authenticator;
  limiter: RateLimiter;
  cursors: CursorCodec;
  buckets: { workspace: readonly Bucket[]; address: readonly Bucket[]; pdf: readonly Bucket[] };
}

export interface RouteContext<S extends PublicServices = PublicServices> {
  request: FastifyRequest;
  services: S;
  key: KeyRecord;
  /** The caller's workspace; inside the write transaction for POST, PUT and PATCH. */
  tenant: TenantDb;
  /** The write transaction (POST, PUT, PATCH), for audit entries and events. */
  tx: Queryable | null;
  requestId: string;
  hasScope(scope: Scope): boolean;
  /** Writes the audit entry of an API write, attributed to the human who created the key (decision 26). */
  audit(
    action: string,
    target: { type: string; id: string },
    metadata?: Record<string, unknown>,
  ): Promise<void>;
}

export interface RouteReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface RouteInput<Q = Record<string, unknown>, B = unknown> {
  params: Record<string, string>;
  query: Q;
  body: B;
}

export interface RouteDef<S extends PublicServices = PublicServices> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** Fastify path under /v1, e.g. `/suppliers/:id`. Path parameters are uuids. */
  url: string;
  operationId: string;
  scope: Scope;
  tag: string;
  summary: string;
  description?: string;
  query?: TObject;
  body?: TSchema;
  /** The handler validates the body itself (PUT /assets judges each item on its own); `body` documents it. */
  validateBody?: false;
  /** POST: requires Idempotency-Key and stores the response (decisions 7-10). */
  idempotent?: boolean;
  /** Extra rate-limit buckets counted with the workspace's (GET /reports/{id}/pdf). */
  extraBuckets?: keyof Pick<PublicServices['buckets'], 'pdf'>;
  responses: Record<number, { description: string; schema?: TSchema }>;
  // biome-ignore lint/suspicious/noExplicitAny: each route narrows its own input through its schemas
  handler(ctx: RouteContext<S>, input: RouteInput<any, any>): Promise<RouteReply>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function setRateHeaders(reply: FastifyReply, decision: RateDecision): void {
  reply.header('x-ratelimit-limit', String(decision.limit));
  reply.header('x-ratelimit-remaining', String(decision.remaining));
  reply.header('x-ratelimit-reset', String(decision.resetSeconds));
}

function rateLimited(reply: FastifyReply, decision: RateDecision): ApiError {
  reply.header('retry-after', String(decision.retryAfterSeconds ?? 1));
  return new ApiError(
    'rate_limit_exceeded',
    'Too many requests. Retry after the number of seconds in Retry-After.',
  );
}

const planUpgradeRequired = () =>
  new ApiError(
    'plan_upgrade_required',
    'The API is available on the Enterprise plan. Upgrade the workspace to use it.',
  );

async function authenticate(
  services: PublicServices,
  route: RouteDef,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const token = Authenticator.bearer(request.headers.authorization);
  // Writes re-read the key; reads may use the cache, whose answer SQL re-checks (storage/tenant.ts).
  let found = await services.auth.lookup(token, route.method !== 'GET');
  if (!found) {
    // Bad credentials never touch a workspace's budget; they are limited per client address.
    const decision = await services.limiter.consume(`addr:${request.ip}`, services.buckets.address);
    if (!decision.allowed) throw rateLimited(reply, decision);
    throw invalidApiKey();
  }
  const buckets = route.extraBuckets
    ? [...services.buckets.workspace, ...services.buckets[route.extraBuckets]]
    : services.buckets.workspace;
  const rateKey = `ws:${found.record.workspaceId}`;
  const decision = await services.limiter.consume(rateKey, buckets);
  setRateHeaders(reply, decision);
  if (!decision.allowed) throw rateLimited(reply, decision);
  // A cached "not Enterprise" may be stale after an upgrade: confirm before refusing.
  if (found.cached && found.record.plan !== 'enterprise') {
    found = await services.auth.lookup(token, true);
    if (!found) {
      await services.limiter.refund(rateKey, buckets);
      throw invalidApiKey();
    }
  }
  if (found.record.plan !== 'enterprise') throw planUpgradeRequired();
  if (!found.record.scopes.has(route.scope)) {
    throw new ApiError('insufficient_scope', `This endpoint needs the ${route.scope} scope.`, {
      required_scope: route.scope,
    });
  }
  const guard = found.cached
    ? {
        keyId: found.record.keyId,
        confirm: async () => {
          const again = await services.auth.lookup(token, true);
          if (!again) {
            await services.limiter.refund(rateKey, buckets);
            throw invalidApiKey();
          }
          if (again.record.plan !== 'enterprise') throw planUpgradeRequired();
        },
      }
    : null;
  return { key: found.record, tenant: new TenantDb(services.db, found.record.workspaceId, guard) };
}

export function registerRoutes<S extends PublicServices>(
  app: FastifyInstance,
  services: S,
  routes: readonly RouteDef<S>[],
  prefix = '/v1',
): void {
  // Authentication runs before the body is read, so a request without a valid key is a 401 whatever its body.
  const authenticated = new WeakMap<FastifyRequest, Awaited<ReturnType<typeof authenticate>>>();
  for (const route of routes) {
    const pathParams = [...route.url.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
    app.route({
      method: route.method,
      url: `${prefix}${route.url}`,
      onRequest: async (request, reply) => {
        authenticated.set(
          request,
          await authenticate(services, route as unknown as RouteDef, request, reply),
        );
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
        if (route.query) validateQuery(route.query, query);
        else if (Object.keys(query).length > 0) {
          const [parameter] = Object.keys(query);
          throw invalidRequest(`Unknown query parameter: ${parameter}.`, { parameter });
        }
        const context = (tenantDb: TenantDb, tx: Queryable | null): RouteContext<S> => ({
          request,
          services,
          key,
          tenant: tenantDb,
          tx,
          requestId: request.id,
          hasScope: (scope) => key.scopes.has(scope),
          audit: async (action, target, metadata) => {
            if (!tx) throw new Error('audit entries are written by write routes, inside their transaction');
            await recordAudit(tx, {
              workspaceId: key.workspaceId,
              action,
              actorType: 'user',
              actorId: key.createdBy,
              targetType: target.type,
              targetId: target.id,
              requestId: request.id,
              metadata: { ...metadata, api_key_id: key.keyId },
            });
          },
        });

        let result: RouteReply;
        if (route.method === 'GET') {
          checkPathIds();
          result = await route.handler(context(tenant, null), { params, query, body: undefined });
        } else {
          const body = request.body;
          if (body === null || typeof body !== 'object' || Array.isArray(body)) {
            throw invalidRequest('The request body must be a JSON object.');
          }
          const run = async (tx: Queryable) => {
            if (route.body && route.validateBody !== false) validateBody(route.body, body);
            checkPathIds();
            const reply = await route.handler(context(tenant.within(tx), tx), { params, query, body });
            return { status: reply.status, body: reply.body ?? '' };
          };
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
            );
            if (stored.replayed) reply.header('idempotent-replayed', 'true');
            result = stored;
          } else {
            result = await services.db.transaction(run);
          }
        }
        if (result.headers)
          for (const [name, value] of Object.entries(result.headers)) reply.header(name, value);
        if (result.body === undefined || result.body === '') return reply.code(result.status).send();
        return reply.code(result.status).header('content-type', JSON_TYPE).send(result.body);
      },
    });
  }
}
