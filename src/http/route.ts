// The pipeline of both listeners: one for every operation, its steps listed by the operation's auth (PIPELINES
// below, where each auth's order is written), each step written once whichever auth lists it, so no handler can
// forget one. The public contracts are declared in src/resources/ (operations.ts), a slice's handler module binds
// each to its handler with `handle`; the operator's are bound in management/handlers.ts.
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
import { asksForStream } from './negotiation.js';
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
  /** The body as a key with pii:read sees it (bytes: a collection page, already UTF-8; http/pagination.ts). */
  body?: string | Buffer;
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
  // and a client error re-reads the key first (the pipeline's onClientError).
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

// ---------------------------------------------------------------------------------------------------------
// The pipeline. A request passes the steps its operation's auth lists (PIPELINES), in their order, in three
// stages: `admission` before the body is read (a request refused there is refused whatever its body),
// `request` on its parts, `work` right before the handler (within the write's transaction when there is one).
// A step is prepared once per operation (null when it has nothing to check on it); on each request it throws
// the error it answers or lets the request through.

/** A request on its way: its parts, and what the steps so far have established. */
interface Passage {
  request: FastifyRequest;
  reply: FastifyReply;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** What to give back when the request fails after this point (a budget counted for it). */
  undo: (() => Promise<void>)[];
}

/** An API key's request: the key and the tenant it is bound to, once authenticated. */
interface KeyPassage extends Passage {
  auth?: Awaited<ReturnType<typeof authenticate>>;
  idempotencyKey?: string;
}

type Check<P> = (passage: P) => void | Promise<void>;

/** A step, prepared for one operation of the listener's services. */
type Step<Sv, P> = (operation: Operation, services: Sv) => Check<P> | null;

/** What an operator operation's handler context is made from: the management listener's services. */
export interface OperatorServices {
  adminTokenHash: Buffer;
  limiter: RateLimiter;
  buckets: Record<BucketSet, readonly Bucket[]>;
  /** The handler's context for a request (http/operator.ts). */
  context(request: FastifyRequest): OperatorContext;
}

interface Pipeline<Sv, P extends Passage, B> {
  admission: readonly Step<Sv, P>[];
  request: readonly Step<Sv, P>[];
  work: readonly Step<Sv, P>[];
  /** Runs the handler (the work steps first, through `work`) and sends its answer. */
  execute(services: Sv, bound: B): (passage: P, work: () => Promise<void>) => Promise<unknown>;
  /** Judges a client error before it is sent (an API key's: the cached key is confirmed first). */
  onClientError?: (passage: P, error: ApiError) => Promise<ApiError>;
}

// The steps, each written once whichever pipeline lists it.

const singleValuedHeaders: Step<unknown, Passage> = () => (passage) =>
  assertSingleValuedHeaders(passage.request.raw.rawHeaders);

/** A query parameter the operation does not declare, or one failing its schema, is a 400. */
const queryParameters: Step<unknown, Passage> = (operation) => {
  const schema = operation.query ?? NO_PARAMETERS;
  return (passage) => validateQuery(schema, passage.query);
};

/** A path id that is not a uuid is a 404, like a missing one (decision 3). */
const pathIds: Step<unknown, Passage> = (operation) => {
  const names = pathParameters(operation.path);
  return names.length === 0 ? null : (passage) => checkPathIds(names, passage.params);
};

function checkPathIds(names: readonly string[], params: Record<string, string>): void {
  for (const name of names) if (!isUuid(params[name] ?? '')) throw notFound();
}

/** The fields of the body, against the operation's schema (unless its handler judges them). */
const bodyFields: Step<unknown, Passage> = (operation) => {
  const schema = operation.validateBody === false ? undefined : operation.body;
  return schema ? (passage) => validateBody(schema, passage.request.body) : null;
};

const keyAuthentication: Step<PublicServices, KeyPassage> = (operation, services) => {
  const { scope } = operation.auth as ApiKeyAuth;
  const buckets = operation.extraBuckets
    ? [...services.buckets.workspace, ...services.buckets[operation.extraBuckets]]
    : services.buckets.workspace;
  // A list asked for as a stream counts against the export budget too (P197).
  const exportBuckets = 'list' in operation ? [...buckets, ...services.buckets.exports] : null;
  return async (passage) => {
    const counted = exportBuckets && asksForStream(passage.request.headers.accept) ? exportBuckets : buckets;
    passage.auth = await authenticate(services, counted, scope, passage.request, passage.reply);
  };
};

/** A GET takes no body: one sent is refused rather than ignored (P114). */
const noBodyOnRead: Step<unknown, Passage> = (operation) =>
  operation.method === 'GET' ? (passage) => assertNoBody(passage.request.headers) : null;

/** A write's body is a JSON object. */
const objectBody: Step<unknown, Passage> = (operation) =>
  operation.method === 'GET'
    ? null
    : ({ request: { body } }) => {
        if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notAnObject();
      };

const idempotencyKey: Step<unknown, KeyPassage> = (operation) =>
  operation.idempotent
    ? (passage) => {
        passage.idempotencyKey = readIdempotencyKey(passage.request.headers['idempotency-key']);
      }
    : null;

/** An operation that needs no key is limited per client address (P69). */
const addressLimit: Step<PublicServices, Passage> = (operation, services) => {
  const buckets = operation.extraBuckets
    ? [...services.buckets.address, ...services.buckets[operation.extraBuckets]]
    : services.buckets.address;
  return (passage) => limitByAddress(services, passage.request, passage.reply, buckets);
};

/**
 * The parameters an operation that needs no key reads (others are ignored). Its URLs are fixed or issued by the
 * service: one that fails its schema names nothing, a 404 (decision 4).
 */
const openParameters: Step<unknown, Passage> = (operation) => {
  const checkParams = checker(Type.Object(operation.params ?? {}));
  const declared = Object.keys(operation.query?.properties ?? {});
  const checkQuery = operation.query ? checker(operation.query) : () => null;
  return (passage) => {
    passage.query = Object.fromEntries(
      Object.entries(passage.query).filter(([name]) => declared.includes(name)),
    );
    if (checkParams(passage.params) || checkQuery(passage.query)) throw notFound();
  };
};

const operatorToken: Step<OperatorServices, Passage> = (_operation, services) => (passage) =>
  authenticateOperator(services, passage.request, passage.reply);

/** The workspace an operator operation names in its path, for the request's log line. */
const pathWorkspace: Step<unknown, Passage> = (operation) =>
  operation.path.startsWith('/workspaces/:id')
    ? (passage) => {
        passage.request.workspaceId = passage.params.id ?? null;
      }
    : null;

/** An operator operation without a body refuses one (P114). */
const noBody: Step<unknown, Passage> = (operation) =>
  operation.body
    ? null
    : (passage) => assertNoBody(passage.request.headers, passage.request.body as Buffer | undefined);

/** An operator operation's own budget per path id (429), given back when the request fails. */
const operatorBudget: Step<OperatorServices, Passage> = (operation, services) => {
  const { limit } = operation;
  const buckets = limit && services.buckets[limit.buckets];
  if (!limit || !buckets) return null;
  return async (passage) => {
    const key = `${operation.id}:${passage.params.id}`;
    const decision = await services.limiter.consume(key, buckets);
    if (!decision.allowed) throw rateLimited(passage.request, passage.reply, decision, limitExceeded(limit));
    passage.undo.push(() => services.limiter.refund(key, buckets));
  };
};

/** Runs an API key's handler: a read on the key's tenant, a write in one transaction (idempotent or not). */
function executeWithKey<S extends PublicServices>(services: S, route: Route<Operation<ApiKeyAuth>, S>) {
  const { operation } = route;
  return async (passage: KeyPassage, work: () => Promise<void>) => {
    const { request, reply, params, query } = passage;
    if (!passage.auth) throw new Error('a request reached its handler without authentication');
    const { key, tenant } = passage.auth;
    const context = (tenantDb: TenantDb, tx: Queryable | null): RouteContext<S> => {
      // A write is attributed to the human who created the key (decision 26); a read writes nothing.
      const unit = tx
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
          if (!unit) throw new Error('events are recorded by write routes, inside their transaction');
          return unit.events(type, data);
        },
        requestId: request.id,
        hasScope: (scope) => key.scopes.has(scope),
        snapshot: (work) => services.db.snapshot((snapshotTx) => work(tenantDb.within(snapshotTx))),
        audit: async (action, target, metadata) => {
          if (!unit) throw new Error('audit entries are written by write routes, inside their transaction');
          await unit.audit(action, target, metadata);
        },
      };
    };

    let result: RouteReply;
    if (operation.method === 'GET') {
      await work();
      result = await route.handler(context(tenant, null), { params, query, body: undefined });
    } else {
      const body = request.body;
      const run = async (tx: Queryable) => {
        await work();
        const answer = await route.handler(context(tenant.within(tx), tx), { params, query, body });
        // Stored as text by an idempotent write (a page's bytes are its UTF-8).
        return { status: answer.status, body: String(answer.body ?? ''), withoutPii: answer.withoutPii };
      };
      // A key from the cache is confirmed in the transaction, in the round trip of its first statements:
      // when it is no longer valid, nothing is written (or stored as an idempotent response).
      const confirm = (tx: Queryable) => tenant.confirmWithin(tx);
      if (passage.idempotencyKey !== undefined) {
        const stored = await runIdempotent(
          services.db,
          {
            workspaceId: key.workspaceId,
            endpoint: operation.id,
            key: passage.idempotencyKey,
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
            (answer) => ({ answer }),
            (error: unknown) => ({ error }),
          );
          await confirming;
          if ('error' in outcome) throw outcome.error;
          return outcome.answer;
        });
      }
    }
    if (result.headers) for (const [name, value] of Object.entries(result.headers)) reply.header(name, value);
    if (result.stream)
      return reply
        .code(result.status)
        .header('content-type', result.stream.contentType)
        .send(result.stream.body);
    const sent =
      result.withoutPii !== undefined && !key.scopes.has('pii:read') ? result.withoutPii : result.body;
    if (sent === undefined || sent === '') return reply.code(result.status).send();
    return reply.code(result.status).header('content-type', JSON_TYPE).send(sent);
  };
}

/** The pipelines, by auth: the steps in the order they run (decision 1 for an API key). */
const PIPELINES = {
  /**
   * Under /v1: authentication (401) → rate limit (429) → plan (403) → scope (403) → single-valued headers
   * (400) → query, or a GET's body (400) → a write's body not an object (400) → Idempotency-Key (400) → body
   * fields (422) → path id (404) → handler (404/409/…). A write's work steps run in its transaction.
   */
  apiKey: {
    admission: [keyAuthentication, singleValuedHeaders],
    request: [queryParameters, noBodyOnRead, objectBody, idempotencyKey],
    work: [bodyFields, pathIds],
    execute: executeWithKey,
    // A client error (a malformed body, a bad query, a missing id…) for a cached key is answered only once the
    // key is confirmed: a revoked key gets its 401 whatever else is wrong (decision 1). Not a 429, which must
    // stay free to answer.
    onClientError: async (passage, error) => {
      if (!passage.auth || error.code === 'rate_limit_exceeded') return error;
      try {
        await passage.auth.tenant.confirm();
        return error;
      } catch (authError) {
        return toApiError(authError, passage.request);
      }
    },
  } satisfies Pipeline<PublicServices, KeyPassage, Route<Operation<ApiKeyAuth>>>,
  /** Outside /v1, no key: limited per client address (P69); a parameter failing its schema is a 404. */
  none: {
    admission: [addressLimit],
    request: [openParameters],
    work: [],
    execute: (services: PublicServices, route: Route<Operation<NoneAuth>>) => async (passage: Passage) =>
      route.handler(
        { request: passage.request, reply: passage.reply, services },
        { params: passage.params, query: passage.query, body: undefined },
      ),
  } satisfies Pipeline<PublicServices, Passage, Route<Operation<NoneAuth>>>,
  /**
   * Under /admin (the management listener): token (401; 429 per client address) → single-valued headers (400)
   * → path ids (404) → query (400) → no body (400, P114) → body (422) → its own budget per path id (429, given
   * back when the handler refuses or fails) → handler.
   */
  operator: {
    admission: [],
    request: [
      operatorToken,
      singleValuedHeaders,
      pathIds,
      pathWorkspace,
      queryParameters,
      noBody,
      bodyFields,
    ],
    work: [operatorBudget],
    execute: (services: OperatorServices, { operation, handler }: BoundOperation) => {
      const [status] = success(operation, true);
      return async (passage: Passage, work: () => Promise<void>) => {
        await work();
        // Validated against the operation's query and body schemas (or judged by the handler: validateBody
        // false).
        const input = {
          params: passage.params,
          query: passage.query,
          body: operation.body ? passage.request.body : undefined,
        } as Parameters<typeof handler>[1];
        const result = await handler(services.context(passage.request), input);
        passage.reply.code(status);
        return result === undefined
          ? passage.reply.send()
          : passage.reply.header('content-type', JSON_TYPE).send(result);
      };
    },
  } satisfies Pipeline<OperatorServices, Passage, BoundOperation>,
};

/** The order of an auth's checks, by step name: what docs and tests read of PIPELINES. */
export function pipelineSteps(kind: keyof typeof PIPELINES): string[] {
  const { admission, request, work } = PIPELINES[kind] as Pipeline<never, Passage, unknown>;
  return [...admission, ...request, ...work].map((step) => step.name);
}

/** Registers one operation through its auth's pipeline. */
function register<Sv, P extends Passage, B extends { operation: Operation }>(
  app: FastifyInstance,
  services: Sv,
  bound: B,
  pipeline: Pipeline<Sv, P, B>,
  prefix: string,
): void {
  const { operation } = bound;
  const prepare = (steps: readonly Step<Sv, P>[]) =>
    steps.map((step) => step(operation, services)).filter((check): check is Check<P> => check !== null);
  const admission = prepare(pipeline.admission);
  const request = prepare(pipeline.request);
  const work = prepare(pipeline.work);
  const execute = pipeline.execute(services, bound);
  const passages = new WeakMap<FastifyRequest, P>();
  const passageOf = (req: FastifyRequest, reply: FastifyReply): P => {
    let passage = passages.get(req);
    if (!passage) {
      passage = {
        request: req,
        reply,
        params: req.params as Record<string, string>,
        query: { ...(req.query as Record<string, unknown>) },
        undo: [],
      } as Passage as P;
      passages.set(req, passage);
    }
    return passage;
  };
  const runAll = async (checks: readonly Check<P>[], passage: P) => {
    for (const check of checks) await check(passage);
  };
  const { onClientError } = pipeline;
  app.route({
    method: operation.method,
    url: `${prefix}${operation.path}`,
    onRequest:
      admission.length > 0
        ? async (req, reply) => {
            await runAll(admission, passageOf(req, reply));
          }
        : undefined,
    errorHandler: onClientError
      ? async (error, req, reply) => {
          const answer = toApiError(error, req);
          const passage = passages.get(req);
          return sendError(
            reply,
            passage && answer.status < 500 ? await onClientError(passage, answer) : answer,
          );
        }
      : undefined,
    handler: async (req, reply) => {
      const passage = passageOf(req, reply);
      await runAll(request, passage);
      try {
        return await execute(passage, () => runAll(work, passage));
      } catch (error) {
        // Refused or failed: nothing was done, so what was counted for it is given back.
        for (const undo of passage.undo) await undo();
        throw error;
      }
    },
  });
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
  for (const route of routes) {
    if (isKeyRoute(route)) register(app, services, route, PIPELINES.apiKey, PATH_PREFIX.apiKey);
    else register(app, services, route as Route<Operation<NoneAuth>>, PIPELINES.none, PATH_PREFIX.none);
  }
}

/** Registers an operation of the management listener (under /admin) through the operator's pipeline. */
export function registerOperatorRoute(
  app: FastifyInstance,
  services: OperatorServices,
  bound: BoundOperation,
): void {
  register(app, services, bound, PIPELINES.operator, PATH_PREFIX.operator);
}

const isKeyRoute = (route: Route): route is Route<Operation<ApiKeyAuth>> =>
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
