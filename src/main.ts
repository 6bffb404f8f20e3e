// Process entry: reads the settings, opens storage, applies migrations, and starts what ROLE asks for.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildAdminApp, buildPublicApp, createDispatcher } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { purgeIdempotencyKeys } from './http/idempotency.js';
import { createMetrics } from './http/metrics.js';
import { createRateLimiter } from './http/rate-limit.js';
import { createDemoWorkspace, isEmpty } from './management/bootstrap.js';
import { importLocalObjects } from './reports/storage.js';
import { createServices } from './services.js';
import './resources/imports.js';
import { generateAdminToken, sha256 } from './security/secrets.js';
import { type Db, openEmbedded, openPostgres } from './storage/db.js';
import { DataDirError, lockDataDir } from './storage/lock.js';
import { migrate } from './storage/migrate.js';
import { readSetting, writeSetting } from './storage/settings.js';

async function adminTokenHash(
  db: Db,
  configured: string | undefined,
): Promise<{ hash: Buffer; generated?: string }> {
  if (configured) return { hash: sha256(configured) };
  const stored = await readSetting(db, 'admin_token_sha256');
  if (stored) return { hash: Buffer.from(stored, 'base64') };
  const token = generateAdminToken();
  await writeSetting(db, 'admin_token_sha256', sha256(token).toString('base64'));
  return { hash: sha256(token), generated: token };
}

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { service: 'tprm-api' } });

  let release: (() => void) | undefined;
  let db: Db;
  if (config.databaseUrl) {
    db = await openPostgres(config.databaseUrl, { max: config.databasePoolSize });
  } else {
    release = lockDataDir(config.dataDir);
    db = await openEmbedded(join(config.dataDir, 'pgdata'), {
      // The engine is unusable after a PANIC: exit rather than hang, so that a supervisor restarts the
      // process (PostgreSQL's own answer to a PANIC); what was committed before is recovered at the next start.
      onPanic: (line) => {
        process.stderr.write(`tprm-api: the embedded database stopped (${line.trim()}); exiting.\n`);
        process.exit(1);
      },
    });
  }
  const applied = await migrate(db);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

  const firstStart = !config.databaseUrl && (await isEmpty(db));
  const admin = await adminTokenHash(db, config.adminToken);
  const metrics = createMetrics();
  const limiter = createRateLimiter({
    redisUrl: config.redisUrl,
    commandTimeoutMs: config.redisTimeoutMs,
    logger,
  });
  const services = await createServices({ config, db, logger, limiter, adminTokenHash: admin.hash, metrics });
  // Earlier versions kept PDFs under DATA_DIR/objects: they move into the database once.
  const imported = await importLocalObjects(join(config.dataDir, 'objects'), services.objects);
  if (imported > 0) logger.info({ imported }, 'report PDFs copied from DATA_DIR/objects into the database');

  // Closed on SIGTERM in this order: first what takes new work (each finishes what it has in flight), then
  // the admin listener (health checks answer until the end).
  const draining: (() => Promise<unknown>)[] = [];
  const adminApp = buildAdminApp(services);
  const adminUrl = await adminApp.listen({ port: config.adminPort, host: config.adminHost });
  let publicUrl: string | undefined;
  if (config.role !== 'worker') {
    const publicApp = buildPublicApp(services);
    publicUrl = await publicApp.listen({ port: config.port, host: config.host });
    draining.push(() => publicApp.close());
  }
  if (config.role !== 'api') {
    const worker = createDispatcher(services);
    await worker.dispatcher.start();
    draining.push(worker.close);
  }
  // Installed before anything else runs (the demo data of a first start included): a SIGTERM at any point
  // from here stops the process cleanly.
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new requests or claims; finishing those in flight');
    // Bounded: requests and attempts in flight end within WEBHOOK_TIMEOUT; past that, exit anyway.
    const deadline = setTimeout(() => {
      logger.warn('shutdown took too long; exiting');
      process.exit(1);
    }, config.webhookTimeoutMs + 15_000);
    deadline.unref();
    await Promise.all(draining.map((close) => close().catch(() => undefined)));
    await adminApp.close().catch(() => undefined);
    await limiter.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    release?.();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  logger.info({ role: config.role, public: publicUrl, admin: adminUrl }, 'tprm-api ready');

  if (admin.generated) {
    process.stdout.write(
      `\nAdmin token (shown once; only its hash is kept): ${admin.generated}\n` +
        `  export ADMIN_URL=${adminUrl} ADMIN_TOKEN=${admin.generated}\n`,
    );
  }
  if (firstStart) {
    const demo = await createDemoWorkspace(db);
    process.stdout.write(
      `\nDemo workspace ${demo.workspaceId} created with ${Object.entries(demo.created)
        .map(([name, count]) => `${count} ${name}`)
        .join(', ')}.\n` +
        `Demo API key, every scope (shown once): ${demo.apiKey}\n` +
        `Try it:\n  curl -s -H 'Authorization: Bearer ${demo.apiKey}' '${config.publicBaseUrl}/v1/suppliers?limit=2'\n\n`,
    );
  }

  // Idempotency keys are retained 24 hours (older ones are already ignored; this reclaims their rows).
  const purge = setInterval(() => {
    purgeIdempotencyKeys(db).catch((err) => logger.warn({ err: err.message }, 'idempotency purge failed'));
  }, 3_600_000);
  purge.unref();
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof DataDirError) {
    process.stderr.write(`tprm-api: ${error.message}\n`);
  } else {
    process.stderr.write(`tprm-api failed to start: ${error?.stack ?? error}\n`);
  }
  process.exit(1);
});
