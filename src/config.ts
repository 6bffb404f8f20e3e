// The process's settings, parsed once from the environment (management-api.md, "Process and configuration").
import { resolve } from 'node:path';
import { DEFAULT_RETRY_DELAYS_MS, parseDuration, parseDurationList } from './events/retry-schedule.js';

export type Role = 'api' | 'worker' | 'all';

export interface Config {
  port: number;
  host: string;
  adminPort: number;
  adminHost: string;
  adminToken: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  /** A Redis answer slower than this is an outage: limits fall back to the process (decision P40). */
  redisTimeoutMs: number;
  publicBaseUrl: string;
  webhookRetryDelaysMs: number[];
  webhookAllowInsecureUrls: boolean;
  webhookTimeoutMs: number;
  role: Role;
  logLevel: string;
}

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535)
    throw new ConfigError(`${name} must be a port number, got "${raw}"`);
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
    adminToken: env.ADMIN_TOKEN || undefined,
    databaseUrl,
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
    role,
    logLevel: env.LOG_LEVEL || 'info',
  };
}
