// Drives the real applications in-process against a real database: an in-memory PGlite by default, or a
// fresh PostgreSQL database cloned from the migrated template when TEST_DATABASE_URL is set
// (scripts/run-tests.mjs makes the template). Every test creates its own workspaces through the
// management API: there are no seeded ids.
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildAdminApp, buildPublicApp, createDispatcher, createSinkWorker } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { BucketSet } from '../../src/contract/operation.js';
import type { Dispatcher } from '../../src/events/dispatcher.js';
import { createMetrics } from '../../src/http/metrics.js';
import { type Bucket, createMemoryRateLimiter, type RateLimiter } from '../../src/http/rate-limit.js';
import { type AdminOperations, adminOperations } from '../../src/management/admin-operations.js';
import { type AdminClient, createAdminClient } from '../../src/management/client.js';
import { type Plan, SCOPES, type Scope } from '../../src/schema/fields.js';
import { generateAdminToken, sha256 } from '../../src/security/secrets.js';
import { createServices, type Services } from '../../src/services.js';
import { type Db, openEmbedded, openPostgres } from '../../src/storage/db.js';
import { migrate } from '../../src/storage/migrate.js';
import { adminContract, contract } from './contract.js';
import { type LogCapture, recordSensitive, recordUrl, testLogger } from './logs.js';

export const ENGINE = process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite';

/** Limits high enough that only the rate-limit tests meet them. */
export const GENEROUS_BUCKETS: readonly Bucket[] = [{ name: 'second', limit: 100_000, windowMs: 1000 }];

export interface HarnessOptions {
  buckets?: Partial<Record<BucketSet, readonly Bucket[]>>;
  limiter?: RateLimiter;
  env?: Record<string, string>;
  authCacheTtlMs?: number;
  /** Keeps every log line of the harness's applications, at the most verbose level. */
  logs?: LogCapture;
  /** The engine to run on; default ENGINE. PostgreSQL needs the PostgreSQL run of the suite. */
  engine?: typeof ENGINE;
}

export interface Response {
  status: number;
  headers: LightMyRequestResponse['headers'];
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON
  json: any;
  /** The request that got this answer ("GET /v1/…"), for failure messages. */
  request?: string;
}

export interface TestWorkspace {
  id: string;
  userId: string;
  key: string;
  keyId: string;
}

async function openTestDatabase(
  engine: typeof ENGINE,
): Promise<{ db: Db; url?: string; drop: () => Promise<void> }> {
  const url = process.env.TEST_DATABASE_URL;
  if (engine === 'pglite') {
    const db = await openEmbedded();
    await migrate(db);
    return { db, drop: async () => undefined };
  }
  if (!url) throw new Error('TEST_DATABASE_URL is not set: PostgreSQL is not available to this run');
  const template = process.env.TEST_TEMPLATE_DB;
  if (!template) throw new Error('TEST_TEMPLATE_DB is not set: run the tests through npm test');
  const name = `${process.env.TEST_DB_PREFIX ?? 'tprm_t_'}${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name} template ${template}`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  const db = await openPostgres(target.href, { max: 5 });
  return {
    db,
    url: target.href,
    drop: async () => {
      const dropper = new pg.Client({ connectionString: url });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

export class Harness {
  private constructor(
    readonly db: Db,
    readonly services: Services,
    readonly publicApp: FastifyInstance,
    readonly adminApp: FastifyInstance,
    readonly adminToken: string,
    /** The PostgreSQL database of this harness, for other processes (undefined on the embedded store). */
    readonly databaseUrl: string | undefined,
    private readonly drop: () => Promise<void>,
  ) {}

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const { db, url, drop } = await openTestDatabase(options.engine ?? ENGINE);
    const adminToken = generateAdminToken();
    recordSensitive(adminToken);
    const dataDir = await mkdtemp(join(tmpdir(), 'tprm-test-'));
    const config = loadConfig({ WEBHOOK_ALLOW_INSECURE_URLS: 'false', DATA_DIR: dataDir, ...options.env });
    const services = await createServices({
      config,
      db,
      logger: testLogger(options.logs),
      limiter: options.limiter ?? createMemoryRateLimiter(),
      adminTokenHash: sha256(adminToken),
      metrics: createMetrics(),
      buckets: {
        workspace: GENEROUS_BUCKETS,
        address: GENEROUS_BUCKETS,
        pdf: GENEROUS_BUCKETS,
        reference: GENEROUS_BUCKETS,
        adminFailures: GENEROUS_BUCKETS,
        webhookTests: GENEROUS_BUCKETS,
        exports: GENEROUS_BUCKETS,
        ...options.buckets,
      },
      authCacheTtlMs: options.authCacheTtlMs,
    });
    const publicApp = buildPublicApp(services);
    // Every response of the public listener a test receives is checked against the OpenAPI document.
    contract().watch(publicApp);
    const adminApp = buildAdminApp(services);
    adminContract().watch(adminApp);
    await Promise.all([publicApp.ready(), adminApp.ready()]);
    return new Harness(db, services, publicApp, adminApp, adminToken, url, drop);
  }

  /**
   * Another API instance on the same database, with its own key cache and limiter (its own memory limiter
   * unless told otherwise, e.g. a Redis limiter shared with the first): what a second process of a fleet would
   * be. Its public listener, or its management listener with `listener: 'admin'`. Closed with the harness,
   * its limiter included.
   */
  async secondInstance(
    options: { limiter?: RateLimiter; listener?: 'public' | 'admin' } = {},
  ): Promise<FastifyInstance> {
    const limiter = options.limiter ?? createMemoryRateLimiter();
    this.extraLimiters.push(limiter);
    const services = await createServices({
      config: this.services.config,
      db: this.db,
      logger: this.services.logger,
      limiter,
      adminTokenHash: this.services.adminTokenHash,
      metrics: createMetrics(),
      buckets: this.services.buckets,
    });
    const admin = options.listener === 'admin';
    const app = admin ? buildAdminApp(services) : buildPublicApp(services);
    (admin ? adminContract() : contract()).watch(app);
    await app.ready();
    this.extraApps.push(app);
    return app;
  }

  private readonly extraApps: FastifyInstance[] = [];
  private readonly workers: (() => Promise<void>)[] = [];
  private readonly extraLimiters: RateLimiter[] = [];

  /** A started webhook dispatcher on this harness's database (as in a ROLE=worker process). */
  async worker(options: Parameters<typeof createDispatcher>[1] = {}): Promise<Dispatcher> {
    const worker = createDispatcher(this.services, { pollIntervalMs: 50, ...options });
    await worker.dispatcher.start();
    this.workers.push(worker.close);
    return worker.dispatcher;
  }

  /** A started sink worker on this harness's database (as in a ROLE=worker process). */
  sinkWorker(options: Parameters<typeof createSinkWorker>[1] = {}): void {
    const worker = createSinkWorker(this.services, { pollIntervalMs: 50, ...options });
    worker.start();
    this.workers.push(() => worker.stop());
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((close) => close()));
    const invalidEvents = await this.invalidEvents();
    await Promise.all([
      this.publicApp.close(),
      this.adminApp.close(),
      ...this.extraApps.map((app) => app.close()),
    ]);
    await Promise.all([this.services.limiter, ...this.extraLimiters].map((limiter) => limiter.close()));
    await this.db.close();
    await this.drop();
    if (invalidEvents.length > 0) throw new Error(invalidEvents.join('\n'));
  }

  /**
   * Every event the service stored while the harness ran, checked against the event catalogue's schema of its
   * type: whatever a test made the service emit, delivered or not. Returns the problems found.
   */
  async invalidEvents(): Promise<string[]> {
    const events = await this.db.query<{ id: string; payload: string }>('select id, payload from events');
    return events.flatMap(({ id, payload }) => {
      try {
        contract().checkCataloguedEvent(JSON.parse(payload));
        return [];
      } catch (error) {
        return [`event ${id}: ${(error as Error).message}`];
      }
    });
  }

  private static wrap(response: LightMyRequestResponse): Response {
    let json: unknown;
    try {
      json = response.body ? JSON.parse(response.body) : undefined;
    } catch {
      json = undefined;
    }
    recordSensitive(json);
    if (typeof response.headers.location === 'string') recordUrl(response.headers.location);
    const request = `${response.raw.req.method} ${response.raw.req.url}`;
    return { status: response.statusCode, headers: response.headers, body: response.body, json, request };
  }

  /** A request to the management API with the admin token (or `token`). */
  async admin(
    method: string,
    url: string,
    body?: unknown,
    token: string | null = this.adminToken,
  ): Promise<Response> {
    recordSensitive(body);
    const response = await this.adminApp.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
    return Harness.wrap(response);
  }

  /** A request to the public API. `key` null sends no Authorization header. */
  async api(
    method: string,
    url: string,
    options: {
      key?: string | null;
      body?: unknown;
      rawBody?: string | Buffer;
      /** An array sends the header once per value. */
      headers?: Record<string, string | string[]>;
      remoteAddress?: string;
    } = {},
  ): Promise<Response> {
    const headers: Record<string, string | string[]> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let payload: string | Buffer | undefined;
    if (options.rawBody !== undefined) payload = options.rawBody;
    else if (options.body !== undefined) {
      recordSensitive(options.body);
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await this.publicApp.inject({
      method: method as 'GET',
      url:
        url.startsWith('/v1') ||
        url.startsWith('/files') ||
        url.startsWith('/openapi') ||
        url.startsWith('/docs')
          ? url
          : `/v1${url}`,
      headers,
      payload,
      remoteAddress: options.remoteAddress,
    });
    return Harness.wrap(response);
  }

  /**
   * The typed admin client over this harness's admin listener: a call resolves to the typed response of a
   * success and throws on any other status (tests of error answers use `admin()`).
   */
  get adminClient(): AdminClient<AdminOperations> {
    this.#adminClient ??= createAdminClient(adminOperations, async ({ method, path, body }) => {
      const response = await this.admin(method, path, body);
      if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${response.body}`);
      return response.json;
    });
    return this.#adminClient;
  }
  #adminClient: AdminClient<AdminOperations> | undefined;

  /** A new workspace with one user and one key (every scope unless told otherwise). */
  async workspace(
    options: { plan?: Plan; scopes?: readonly Scope[]; name?: string; expiresAt?: string } = {},
  ): Promise<TestWorkspace> {
    const ws = await this.adminClient.createWorkspace({
      body: { name: options.name ?? 'Test workspace', plan: options.plan ?? 'enterprise' },
    });
    const user = await this.adminClient.createUser({
      params: { id: ws.id },
      body: { name: 'Test User', email: 'user@test.example' },
    });
    const key = await this.key(ws.id, user.id, options.scopes ?? SCOPES, options.expiresAt);
    return { id: ws.id, userId: user.id, key: key.secret, keyId: key.id };
  }

  async key(
    workspaceId: string,
    userId: string,
    scopes: readonly Scope[],
    expiresAt?: string,
  ): Promise<{ id: string; secret: string }> {
    const key = await this.adminClient.createApiKey({
      params: { id: workspaceId },
      body: {
        name: 'test key',
        scopes: [...scopes],
        created_by: userId,
        ...(expiresAt ? { expires_at: expiresAt } : {}),
      },
    });
    return { id: key.id, secret: key.secret };
  }

  async import(workspaceId: string, document: unknown): Promise<Response> {
    const response = await this.admin('POST', `/admin/workspaces/${workspaceId}/import`, document);
    if (response.status !== 200) throw new Error(`import: ${response.status} ${response.body}`);
    return response;
  }
}

/** Error-shape check used by every test that expects an error (risk-data-api.md "Errors"). */
export function assertError(response: Response, status: number, code: string): void {
  if (response.status !== status || response.json?.error?.code !== code) {
    throw new Error(
      `${response.request ?? 'request'}: expected ${status} ${code}, got ${response.status} ${response.body}`,
    );
  }
  const { error } = response.json;
  if (typeof error.message !== 'string' || error.request_id !== response.headers['x-request-id']) {
    throw new Error(`malformed error body: ${response.body}`);
  }
}

export interface UseHarnessOptions<Names extends readonly string[]> extends HarnessOptions {
  /** Workspaces made (enterprise, a key with every scope) once the harness has started, by the names returned. */
  workspaces?: Names;
}

/**
 * The harness of a test file (or of a describe block): started, with its workspaces, in a `before` hook that
 * then runs `setup` (seeding), and closed in an `after` hook. One hook, because a file's top-level `before`
 * hooks do not wait for each other. Returns stand-ins that the tests (and `setup`) use as the harness and the
 * workspaces: each forwards to the real one, which exists once the hook ran (using it earlier throws).
 */
export function useHarness<const Names extends readonly string[] = []>(
  options: UseHarnessOptions<Names> = {},
  setup?: () => Promise<void>,
): { h: Harness } & Record<Names[number], TestWorkspace> {
  const { workspaces: names = [], ...harnessOptions } = options;
  const h = standIn<Harness>('the harness', Harness.prototype);
  const workspaces = names.map(
    (name) => [name, standIn<TestWorkspace>(`workspace ${name}`, Object.prototype)] as const,
  );
  before(async () => {
    const harness = await Harness.start(harnessOptions);
    h.set(harness);
    for (const [, workspace] of workspaces) workspace.set(await harness.workspace());
    await setup?.();
  });
  after(() => h.value.close());
  return {
    h: h.value,
    ...Object.fromEntries(workspaces.map(([name, workspace]) => [name, workspace.value])),
  } as { h: Harness } & Record<Names[number], TestWorkspace>;
}

/** An object that stands for `what` before it exists, forwarding every use to it once `set`. */
function standIn<T extends object>(what: string, prototype: object): { value: T; set(real: T): void } {
  let real: T | undefined;
  const target = (): T => {
    if (!real) throw new Error(`${what} is used before the before() hook of useHarness() ran`);
    return real;
  };
  const value = new Proxy(Object.create(prototype) as T, {
    get(_, key) {
      const found = Reflect.get(target(), key, target());
      // Methods run on the real object (its private fields and `this`).
      return typeof found === 'function' ? found.bind(target()) : found;
    },
    set: (_, key, next) => Reflect.set(target(), key, next),
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(target(), key),
  });
  return {
    value,
    set(next) {
      real = next;
    },
  };
}
