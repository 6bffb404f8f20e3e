// Process entry: reads the settings, opens storage, applies migrations, and starts what ROLE asks for.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import {
  buildAdminApp,
  buildPublicApp,
  createDispatcher,
  createSinkWorker,
  startEventRetention,
} from './app.js';
import { type Config, ConfigError, loadConfig, SETTINGS, type SettingName, usage } from './config.js';
import { purgeIdempotencyKeys } from './http/idempotency.js';
import { createMetrics } from './http/metrics.js';
import { createRateLimiter } from './http/rate-limit.js';
import {
  createDemoWorkspace,
  isEmpty,
  renderPendingReports,
  showSecretsOnce,
} from './management/bootstrap.js';
import { importLocalObjects } from './reports/storage.js';
import { generateAdminToken, sha256 } from './security/secrets.js';
import { createServices } from './services.js';
import { type Db, openEmbedded, openPostgres } from './storage/db.js';
import { DataDirError, lockDataDir } from './storage/lock.js';
import { migrate } from './storage/migrate.js';
import { readSetting, writeSetting } from './storage/settings.js';

/**
 * The admin token's hash: ADMIN_TOKEN's, else the one kept in the database, else a new token's on the embedded
 * store (shown once by the caller). A PostgreSQL server holding none needs ADMIN_TOKEN (P117): a token minted
 * there would reach only whichever process's output came first.
 */
async function adminTokenHash(db: Db, config: Config): Promise<{ hash: Buffer; generated?: string }> {
  if (config.adminToken) return { hash: sha256(config.adminToken) };
  const stored = await readSetting(db, 'admin_token_sha256');
  if (stored) return { hash: Buffer.from(stored, 'base64') };
  if (config.databaseUrl)
    throw new ConfigError(
      `ADMIN_TOKEN must be set with DATABASE_URL (the same in every process): ${SETTINGS.ADMIN_TOKEN.form}`,
    );
  const token = generateAdminToken();
  await writeSetting(db, 'admin_token_sha256', sha256(token).toString('base64'));
  return { hash: sha256(token), generated: token };
}

/** A database of DATABASE_URL that cannot be opened: said in one line, without the URL's password. */
class DatabaseUnavailable extends Error {}

async function openDatabaseServer(url: string, max: number): Promise<Db> {
  try {
    return await openPostgres(url, { max });
  } catch (error) {
    const { host, pathname } = new URL(url);
    throw new DatabaseUnavailable(
      `cannot open the PostgreSQL database of DATABASE_URL (${host}${pathname}): ${(error as Error).message}`,
    );
  }
}

/** Listens, or says in one line which setting keeps it from listening (P118). */
async function listen(
  app: FastifyInstance,
  port: number,
  host: string,
  names: { port: SettingName; host: SettingName },
): Promise<string> {
  try {
    return await app.listen({ port, host });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    if (code === 'EADDRINUSE')
      throw new ConfigError(
        `${names.port}: ${where} is already in use; ${names.port} must be ${SETTINGS[names.port].form}`,
      );
    if (code === 'EACCES')
      throw new ConfigError(
        `${names.port}: listening on ${where} is not permitted to this user; ${names.port} must be ${SETTINGS[names.port].form}, 1024 or above unless privileged`,
      );
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      throw new ConfigError(
        `${names.host}: ${JSON.stringify(host)} is not an address of this machine; ${names.host} must be ${SETTINGS[names.host].form}`,
      );
    throw error;
  }
}

async function main(args: string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(usage());
    return;
  }
  if (args.length > 0)
    throw new ConfigError(
      `unknown argument ${JSON.stringify(args[0])}: settings come from the environment (see --help)`,
    );
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = loadConfig();
  // Lines go to stdout in writes of 8 KB or every 200 ms, whichever comes first, instead of one write per line
  // (P242): under load one system call carries about 20 access-log lines. pino writes what is left
  // synchronously when the process exits, however it exits short of SIGKILL.
  const logger = pino(
    { level: config.logLevel, base: { service: 'tprm-api' } },
    pino.destination({ dest: 1, sync: false, minLength: 8192, periodicFlush: 200 }),
  );
  if (config.webhookAllowInsecureUrls)
    logger.warn(
      { setting: 'WEBHOOK_ALLOW_INSECURE_URLS' },
      'webhook targets may be http:// and loopback, private or reserved addresses: for local testing only, never in production',
    );

  let release: (() => void) | undefined;
  let db: Db;
  if (config.databaseUrl) {
    db = await openDatabaseServer(config.databaseUrl, config.databasePoolSize);
  } else {
    release = lockDataDir(config.dataDir);
    // However the process ends from here, the next start finds no lock of a live process.
    process.once('exit', release);
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
  const admin = await adminTokenHash(db, config);
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
  let adminUrl: string;
  let publicUrl: string | undefined;
  try {
    adminUrl = await listen(adminApp, config.adminPort, config.adminHost, {
      port: 'ADMIN_PORT',
      host: 'ADMIN_HOST',
    });
    if (config.role !== 'worker') {
      const publicApp = buildPublicApp(services);
      draining.push(() => publicApp.close());
      publicUrl = await listen(publicApp, config.port, config.host, { port: 'PORT', host: 'HOST' });
    }
  } catch (error) {
    await Promise.allSettled([...draining.map((close) => close()), adminApp.close(), limiter.close()]);
    await db.close().catch(() => undefined);
    throw error;
  }
  if (config.role !== 'api') {
    const worker = createDispatcher(services);
    await worker.dispatcher.start();
    draining.push(worker.close);
    const retention = startEventRetention(services);
    draining.push(retention.stop);
    const sinks = createSinkWorker(services);
    sinks.start();
    draining.push(() => sinks.stop());
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

  let secrets = '';
  if (admin.generated) {
    secrets +=
      `\nAdmin token (shown once; only its hash is kept): ${admin.generated}\n` +
      `  export ADMIN_URL=${adminUrl} ADMIN_TOKEN=${admin.generated}\n`;
  }
  if (firstStart) {
    const demo = await createDemoWorkspace(db);
    secrets +=
      `\nDemo workspace ${demo.workspaceId} created with ${Object.entries(demo.created)
        .map(([name, count]) => `${count} ${name}`)
        .join(', ')}.\n` +
      `Demo API key, every scope (shown once): ${demo.apiKey}\n` +
      `Try it:\n  curl -s -H 'Authorization: Bearer ${demo.apiKey}' '${config.publicBaseUrl}/v1/suppliers?limit=2'\n\n`;
    // In the background, after readiness: the demo reports' PDFs, so that a first download works (P119).
    const rendering = new AbortController();
    const rendered = renderPendingReports(db, services.objects, demo.workspaceId, rendering.signal).then(
      (count) => logger.info({ workspace_id: demo.workspaceId, reports: count }, 'demo report PDFs rendered'),
      (error) => {
        if (!stopping) logger.warn({ err: error.message }, 'rendering the demo report PDFs failed');
      },
    );
    draining.push(() => {
      rendering.abort();
      return rendered;
    });
  }
  if (secrets) showSecretsOnce(secrets, { dataDir: config.dataDir, logger });

  // Idempotency keys are retained 24 hours (older ones are already ignored; this reclaims their rows).
  const purge = setInterval(() => {
    purgeIdempotencyKeys(db).catch((err) => logger.warn({ err: err.message }, 'idempotency purge failed'));
  }, 3_600_000);
  purge.unref();
}

/** Whether this file is the process's entry (`node dist/src/main.js …`): `tprm serve` imports it, and the
 * arguments are then the CLI's, already judged. */
function isEntry(): boolean {
  try {
    return (
      process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href
    );
  } catch {
    return false;
  }
}

main(isEntry() ? process.argv.slice(2) : []).catch((error) => {
  // A setting that cannot work exits 2 (P118); a store that cannot be used, or anything else, exits 1.
  if (error instanceof ConfigError) {
    process.stderr.write(`tprm-api: ${error.message}\n`);
    process.exit(2);
  }
  if (error instanceof DataDirError || error instanceof DatabaseUnavailable)
    process.stderr.write(`tprm-api: ${error.message}\n`);
  else process.stderr.write(`tprm-api failed to start: ${error?.stack ?? error}\n`);
  process.exit(1);
});
