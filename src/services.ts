import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { BucketSet } from './contract/operation.js';
import { Authenticator } from './http/auth.js';
import type { Metrics } from './http/metrics.js';
import { CursorCodec } from './http/pagination.js';
import {
  ADDRESS_BUCKETS,
  ADMIN_FAILURE_BUCKETS,
  type Bucket,
  EXPORT_BUCKETS,
  PDF_BUCKETS,
  type RateLimiter,
  REFERENCE_BUCKETS,
  WEBHOOK_TEST_BUCKETS,
  WORKSPACE_BUCKETS,
} from './http/rate-limit.js';
import type { PublicServices } from './http/route.js';
import { createDatabaseObjectStorage, type ObjectStorage } from './reports/storage.js';
import type { Db } from './storage/db.js';
import { serviceSecret } from './storage/settings.js';

export interface Services extends PublicServices {
  config: Config;
  logger: Logger;
  adminTokenHash: Buffer;
  metrics: Metrics;
  /** Report PDFs, in the database (an S3-compatible store could implement the interface). */
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
    objects: options.objects ?? createDatabaseObjectStorage(options.db),
    urlSecret: await serviceSecret(options.db, 'url_signing_secret'),
    auth: new Authenticator(options.db, { cacheTtlMs: options.authCacheTtlMs ?? 30_000 }),
    cursors: new CursorCodec(await serviceSecret(options.db, 'cursor_secret')),
    buckets: {
      workspace: WORKSPACE_BUCKETS,
      address: ADDRESS_BUCKETS,
      pdf: PDF_BUCKETS,
      reference: REFERENCE_BUCKETS,
      adminFailures: ADMIN_FAILURE_BUCKETS,
      webhookTests: WEBHOOK_TEST_BUCKETS,
      exports: EXPORT_BUCKETS,
      ...options.buckets,
    },
  };
}
