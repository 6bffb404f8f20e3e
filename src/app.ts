// Builds the two HTTP applications from their services. Wiring only: behaviour lives in http/, resources/
// and management/.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { Dispatcher, type DispatcherOptions } from './events/dispatcher.js';
import { createSender } from './events/sender.js';
import { Authenticator } from './http/auth.js';
import type { Metrics } from './http/metrics.js';
import { registerOpenRoutes } from './http/open-route.js';
import { CursorCodec } from './http/pagination.js';
import {
  ADDRESS_BUCKETS,
  ADMIN_FAILURE_BUCKETS,
  type Bucket,
  PDF_BUCKETS,
  type RateLimiter,
  REFERENCE_BUCKETS,
  WORKSPACE_BUCKETS,
} from './http/rate-limit.js';
import { type BucketSet, type PublicServices, registerRoutes } from './http/route.js';
import { createServer } from './http/server.js';
import { buildAdminRoutes } from './management/app.js';
import { servedOpenRoutes } from './openapi/reference.js';
import { createLocalObjectStorage, type ObjectStorage } from './reports/storage.js';
import { adminRegistrars, publicRoutes } from './resources/index.js';
import type { Db } from './storage/db.js';
import { serviceSecret } from './storage/settings.js';

export interface Services extends PublicServices {
  config: Config;
  logger: Logger;
  adminTokenHash: Buffer;
  metrics: Metrics;
  /** Report PDFs (local files under DATA_DIR/objects; an S3-compatible store can implement the interface). */
  objects: ObjectStorage;
  /** Key of the signed download URLs the service issues. */
  urlSecret: Buffer;
}

export async function createServices(options: {
  config: Config;
  db: Db;
  logger: Logger;
  limiter: RateLimiter;
  adminTokenHash: Buffer;
  metrics: Metrics;
  buckets?: Partial<Record<BucketSet, readonly Bucket[]>>;
  authCacheTtlMs?: number;
  objects?: ObjectStorage;
}): Promise<Services> {
  options.metrics.observe({ db: options.db, limiter: options.limiter });
  return {
    config: options.config,
    db: options.db,
    logger: options.logger,
    limiter: options.limiter,
    adminTokenHash: options.adminTokenHash,
    metrics: options.metrics,
    objects: options.objects ?? createLocalObjectStorage(join(options.config.dataDir, 'objects')),
    urlSecret: await serviceSecret(options.db, 'url_signing_secret'),
    auth: new Authenticator(options.db, { cacheTtlMs: options.authCacheTtlMs ?? 30_000 }),
    cursors: new CursorCodec(await serviceSecret(options.db, 'cursor_secret')),
    buckets: {
      workspace: WORKSPACE_BUCKETS,
      address: ADDRESS_BUCKETS,
      pdf: PDF_BUCKETS,
      reference: REFERENCE_BUCKETS,
      adminFailures: ADMIN_FAILURE_BUCKETS,
      ...options.buckets,
    },
  };
}

export function buildPublicApp(services: Services): FastifyInstance {
  const app = createServer('public', services);
  registerRoutes(app, services, publicRoutes);
  registerOpenRoutes(app, services, servedOpenRoutes);
  return app;
}

export function buildAdminApp(services: Services): FastifyInstance {
  const app = createServer('admin', services);
  buildAdminRoutes(app, services, adminRegistrars);
  return app;
}

/** The webhook worker of a process whose ROLE includes it (not started: call start()). */
export function createDispatcher(
  services: Services,
  options: Partial<Pick<DispatcherOptions, 'concurrency' | 'pollIntervalMs' | 'leaseMarginMs'>> = {},
): { dispatcher: Dispatcher; close: () => Promise<void> } {
  const { config } = services;
  const sender = createSender({
    timeoutMs: config.webhookTimeoutMs,
    allowInsecure: config.webhookAllowInsecureUrls,
    userAgent: 'tprm-api-webhooks/1',
  });
  const dispatcher = new Dispatcher(services.db, sender, {
    retryDelaysMs: config.webhookRetryDelaysMs,
    timeoutMs: config.webhookTimeoutMs,
    logger: services.logger.child({ component: 'webhooks' }),
    metrics: services.metrics,
    ...options,
  });
  return {
    dispatcher,
    close: async () => {
      await dispatcher.stop();
      sender.close();
    },
  };
}
