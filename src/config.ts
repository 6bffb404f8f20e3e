// The process's settings, parsed once from the environment (management-api.md, "Process and configuration").
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { resolve } from 'node:path';
import {
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_RETRY_DELAYS_MS,
  parseDuration,
  parseDurationList,
} from './events/retry-schedule.js';
import type { HttpTimeouts } from './http/edge.js';
import { adminTokenWeakness } from './security/secrets.js';

export type Role = 'api' | 'worker' | 'all';

export interface Config extends HttpTimeouts {
  port: number;
  host: string;
  adminPort: number;
  adminHost: string;
  adminToken: string | undefined;
  databaseUrl: string | undefined;
  /** Connections the process may open to a PostgreSQL server (docs/operations.md "Sizing"). */
  databasePoolSize: number;
  dataDir: string;
  redisUrl: string | undefined;
  /** A Redis answer slower than this is an outage: limits fall back to the process (decision P40). */
  redisTimeoutMs: number;
  publicBaseUrl: string;
  webhookRetryDelaysMs: number[];
  webhookAllowInsecureUrls: boolean;
  webhookTimeoutMs: number;
  /** An endpoint whose attempts have all failed for this long is disabled; 0 never disables (P83). */
  webhookDisableAfterMs: number;
  role: Role;
  logLevel: string;
}

export class ConfigError extends Error {}

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  range: { min: number; max: number; what: string } = { min: 0, max: 65535, what: 'a port number' },
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < range.min || value > range.max)
    throw new ConfigError(`${name} must be ${range.what}, got "${raw}"`);
  return value;
}

function boolean(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? 'false').toLowerCase();
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0' || raw === '') return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function duration<T>(name: string, raw: string | undefined, parse: (text: string) => T, fallback: T): T {
  if (raw === undefined || raw === '') return fallback;
  try {
    return parse(raw);
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
}

/** A duration of at least 1 ms: 0 would turn Node's HTTP timeouts off. */
const positive = (text: string): number => {
  const ms = parseDuration(text);
  if (ms < 1) throw new Error(`Invalid duration ${JSON.stringify(text)}: it must be more than 0`);
  return ms;
};

/** REQUEST_TIMEOUT and KEEP_ALIVE_TIMEOUT: the service's listeners and `tprm mcp --http` read the same two. */
export function httpTimeouts(env: NodeJS.ProcessEnv = process.env): HttpTimeouts {
  return {
    requestTimeoutMs: duration('REQUEST_TIMEOUT', env.REQUEST_TIMEOUT, positive, 30_000),
    keepAliveTimeoutMs: duration('KEEP_ALIVE_TIMEOUT', env.KEEP_ALIVE_TIMEOUT, positive, 5_000),
  };
}

function adminToken(env: NodeJS.ProcessEnv): string | undefined {
  const token = env.ADMIN_TOKEN || undefined;
  const weakness = token === undefined ? null : adminTokenWeakness(token);
  if (weakness)
    throw new ConfigError(
      `ADMIN_TOKEN is too weak: ${weakness}. use a random one, e.g. \`openssl rand -base64 32\``,
    );
  return token;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 8080);
  const host = env.HOST || '127.0.0.1';
  const role = (env.ROLE || 'all') as Role;
  if (!['api', 'worker', 'all'].includes(role))
    throw new ConfigError(`ROLE must be api, worker or all, got "${role}"`);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl))
    throw new ConfigError('DATABASE_URL must start with postgres://');
  return {
    port,
    host,
    adminPort: integer(env, 'ADMIN_PORT', 8081),
    adminHost: env.ADMIN_HOST || '127.0.0.1',
    adminToken: adminToken(env),
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, {
      min: 1,
      max: 1000,
      what: 'an integer from 1 to 1000',
    }),
    dataDir: resolve(env.DATA_DIR || './data'),
    redisUrl: env.REDIS_URL || undefined,
    redisTimeoutMs: duration('REDIS_TIMEOUT', env.REDIS_TIMEOUT, parseDuration, 100),
    publicBaseUrl: (
      env.PUBLIC_BASE_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`
    ).replace(/\/+$/, ''),
    webhookRetryDelaysMs: duration('WEBHOOK_RETRY_DELAYS', env.WEBHOOK_RETRY_DELAYS, parseDurationList, [
      ...DEFAULT_RETRY_DELAYS_MS,
    ]),
    webhookAllowInsecureUrls: boolean(env, 'WEBHOOK_ALLOW_INSECURE_URLS'),
    webhookTimeoutMs: duration('WEBHOOK_TIMEOUT', env.WEBHOOK_TIMEOUT, parseDuration, 10_000),
    webhookDisableAfterMs: duration(
      'WEBHOOK_DISABLE_AFTER',
      env.WEBHOOK_DISABLE_AFTER,
      parseDuration,
      DEFAULT_DISABLE_AFTER_MS,
    ),
    ...httpTimeouts(env),
    role,
    logLevel: env.LOG_LEVEL || 'info',
  };
}
