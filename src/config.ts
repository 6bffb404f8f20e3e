// The process's settings, parsed once from the environment (management-api.md, "Process and configuration").
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { statSync } from 'node:fs';
import { isIP } from 'node:net';
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
  /** Events older than this are deleted by the worker, with their delivery attempts (P175). */
  eventRetentionMs: number;
  /** The most records a sink's batch holds (P210). */
  sinkBatchSize: number;
  /** A sink's batch that is not full is sent once its oldest record is this old (P210). */
  sinkBatchAgeMs: number;
  role: Role;
  logLevel: string;
}

/** A setting that cannot work as given: the process stops at start with one line and exit code 2 (P118). */
export class ConfigError extends Error {}

const ROLES: readonly Role[] = ['api', 'worker', 'all'];
/** pino's levels and `silent`, written out so that the CLI, which reads these settings, loads no pino (a test
 * compares the list with pino's). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
const DURATION = 'a duration such as 500ms, 10s, 5m, 2h or 5d (at most 24 days)';
const PORT_FORM = 'a port number from 0 to 65535 (0 picks a free one)';
const HOST_FORM = 'an IP address or host name of this machine (e.g. 127.0.0.1, 0.0.0.0 or ::)';

/** What one setting is, for `--help` and for the message of a bad value. */
export interface Setting {
  /** The default, as a person reads it. */
  fallback: string;
  /** The values accepted, as a phrase that completes "NAME must be …". */
  form: string;
}

/** Every variable the process reads, in the order `--help` lists them. */
export const SETTINGS = {
  PORT: { fallback: '8080', form: PORT_FORM },
  HOST: { fallback: '127.0.0.1', form: HOST_FORM },
  ADMIN_PORT: { fallback: '8081', form: PORT_FORM },
  ADMIN_HOST: { fallback: '127.0.0.1', form: HOST_FORM },
  ADMIN_TOKEN: {
    fallback: 'generated on the first start of the embedded store and shown once; required with DATABASE_URL',
    form: 'at least 32 random visible ASCII characters (e.g. from `openssl rand -base64 32`)',
  },
  DATABASE_URL: {
    fallback: 'unset: the embedded database in DATA_DIR',
    form: 'a postgres:// or postgresql:// URL (e.g. postgres://user:password@host:5432/tprm)',
  },
  DATABASE_POOL_SIZE: { fallback: '10', form: 'an integer from 1 to 1000' },
  DATA_DIR: { fallback: './data', form: 'a directory (created when missing), not a file' },
  REDIS_URL: {
    fallback: 'unset: rate limits in process memory',
    form: 'a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379)',
  },
  REDIS_TIMEOUT: { fallback: '100ms', form: DURATION },
  PUBLIC_BASE_URL: {
    fallback: 'http://{HOST}:{PORT}',
    form: 'an http:// or https:// URL without query or fragment (e.g. https://api.example.com)',
  },
  WEBHOOK_RETRY_DELAYS: {
    fallback: '1m,5m,30m,2h,6h',
    form: 'a comma list of durations such as 1m,5m,30m,2h,6h (units ms, s, m, h, d; each at most 24 days)',
  },
  WEBHOOK_ALLOW_INSECURE_URLS: { fallback: 'false', form: 'true, false, 1 or 0' },
  WEBHOOK_TIMEOUT: { fallback: '10s', form: DURATION },
  WEBHOOK_DISABLE_AFTER: { fallback: '5d', form: `${DURATION}; 0s never disables` },
  EVENT_RETENTION: {
    fallback: '90d',
    form: 'a duration of at least 1d such as 30d, 90d or 400d (units m, h, d)',
  },
  SINK_BATCH_SIZE: { fallback: '500', form: 'an integer from 1 to 10000' },
  SINK_BATCH_AGE: { fallback: '1s', form: `${DURATION}, above 0` },
  REQUEST_TIMEOUT: { fallback: '30s', form: `${DURATION}, above 0` },
  KEEP_ALIVE_TIMEOUT: { fallback: '5s', form: `${DURATION}, above 0` },
  ROLE: { fallback: 'all', form: ROLES.join(', ').replace(/, (?=[^,]*$)/, ' or ') },
  LOG_LEVEL: { fallback: 'info', form: LOG_LEVELS.join(', ').replace(/, (?=[^,]*$)/, ' or ') },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** `NAME must be <form>, got "<value>"`: the value is left out where it may hold a secret. */
export function settingError(name: SettingName, raw?: string): ConfigError {
  // JSON quoting keeps the message on one line whatever the value holds.
  return new ConfigError(
    `${name} must be ${SETTINGS[name].form}${raw === undefined ? '' : `, got ${JSON.stringify(raw)}`}`,
  );
}

/** The variable's value, or undefined when unset or empty (an empty value means the default). */
function read(env: NodeJS.ProcessEnv, name: SettingName): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

function integer(env: NodeJS.ProcessEnv, name: SettingName, fallback: number, min: number, max: number) {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) throw settingError(name, raw);
  return value;
}

function host(env: NodeJS.ProcessEnv, name: SettingName): string {
  const raw = read(env, name) ?? '127.0.0.1';
  const label = '[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
  if (isIP(raw) === 0 && !new RegExp(`^${label}(\\.${label})*$`).test(raw)) throw settingError(name, raw);
  return raw;
}

function boolean(env: NodeJS.ProcessEnv, name: SettingName): boolean {
  const raw = read(env, name)?.toLowerCase() ?? 'false';
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw settingError(name, env[name]);
}

function parsed<T>(env: NodeJS.ProcessEnv, name: SettingName, parse: (text: string) => T, fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  try {
    return parse(raw);
  } catch {
    throw settingError(name, raw);
  }
}

/** A duration of at least 1 ms: 0 would turn Node's HTTP timeouts off. */
const positive = (text: string): number => {
  const ms = parseDuration(text);
  if (ms < 1) throw new Error('not above 0');
  return ms;
};

const DAY_MS = 86_400_000;
const DEFAULT_EVENT_RETENTION_MS = 90 * DAY_MS;
/** The longest retention: ten years (the 24-day bound of timer durations does not apply: no timer waits it). */
const MAX_EVENT_RETENTION_MS = 3650 * DAY_MS;

/** EVENT_RETENTION: a count of minutes, hours or days, from one day to ten years. */
const retention = (text: string): number => {
  const match = /^(\d+)(m|h|d)$/.exec(text.trim());
  if (!match) throw new Error('not a duration');
  const ms = Number(match[1]) * { m: 60_000, h: 3_600_000, d: DAY_MS }[match[2] as 'm' | 'h' | 'd'];
  if (ms < DAY_MS || ms > MAX_EVENT_RETENTION_MS) throw new Error('out of range');
  return ms;
};

/** REQUEST_TIMEOUT and KEEP_ALIVE_TIMEOUT: the service's listeners and `tprm mcp --http` read the same two. */
export function httpTimeouts(env: NodeJS.ProcessEnv = process.env): HttpTimeouts {
  return {
    requestTimeoutMs: parsed(env, 'REQUEST_TIMEOUT', positive, 30_000),
    keepAliveTimeoutMs: parsed(env, 'KEEP_ALIVE_TIMEOUT', positive, 5_000),
  };
}

/** A URL of one of `schemes`; the value is never echoed (it may carry a password). */
function serviceUrl(env: NodeJS.ProcessEnv, name: SettingName, schemes: string[]): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw) || !schemes.includes(new URL(raw).protocol)) throw settingError(name);
  return raw;
}

function adminToken(env: NodeJS.ProcessEnv): string | undefined {
  const token = read(env, 'ADMIN_TOKEN');
  const weakness = token === undefined ? null : adminTokenWeakness(token);
  // Never the token itself.
  if (weakness)
    throw new ConfigError(`ADMIN_TOKEN is too weak: ${weakness}; it must be ${SETTINGS.ADMIN_TOKEN.form}`);
  return token;
}

function dataDir(env: NodeJS.ProcessEnv): string {
  const path = resolve(read(env, 'DATA_DIR') ?? './data');
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat && !stat.isDirectory()) throw settingError('DATA_DIR', path);
  return path;
}

function publicBaseUrl(env: NodeJS.ProcessEnv, host: string, port: number): string {
  const raw = read(env, 'PUBLIC_BASE_URL');
  if (raw === undefined) return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username)
    throw settingError('PUBLIC_BASE_URL', raw);
  return raw.replace(/\/+$/, '');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const publicHost = host(env, 'HOST');
  const role = (read(env, 'ROLE') ?? 'all') as Role;
  if (!ROLES.includes(role)) throw settingError('ROLE', role);
  const logLevel = read(env, 'LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw settingError('LOG_LEVEL', logLevel);
  return {
    port,
    host: publicHost,
    adminPort: integer(env, 'ADMIN_PORT', 8081, 0, 65535),
    adminHost: host(env, 'ADMIN_HOST'),
    adminToken: adminToken(env),
    databaseUrl: serviceUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    dataDir: dataDir(env),
    redisUrl: serviceUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisTimeoutMs: parsed(env, 'REDIS_TIMEOUT', parseDuration, 100),
    publicBaseUrl: publicBaseUrl(env, publicHost, port),
    webhookRetryDelaysMs: parsed(env, 'WEBHOOK_RETRY_DELAYS', parseDurationList, [
      ...DEFAULT_RETRY_DELAYS_MS,
    ]),
    webhookAllowInsecureUrls: boolean(env, 'WEBHOOK_ALLOW_INSECURE_URLS'),
    webhookTimeoutMs: parsed(env, 'WEBHOOK_TIMEOUT', parseDuration, 10_000),
    webhookDisableAfterMs: parsed(env, 'WEBHOOK_DISABLE_AFTER', parseDuration, DEFAULT_DISABLE_AFTER_MS),
    eventRetentionMs: parsed(env, 'EVENT_RETENTION', retention, DEFAULT_EVENT_RETENTION_MS),
    sinkBatchSize: integer(env, 'SINK_BATCH_SIZE', 500, 1, 10_000),
    sinkBatchAgeMs: parsed(env, 'SINK_BATCH_AGE', positive, 1_000),
    ...httpTimeouts(env),
    role,
    logLevel,
  };
}

/** What `node dist/src/main.js --help` prints: how to start, and every setting with its default and form. */
export function usage(): string {
  const width = Math.max(...Object.keys(SETTINGS).map((name) => name.length));
  const settings = Object.entries(SETTINGS).map(
    ([name, { fallback, form }]) =>
      `  ${name.padEnd(width)}  default: ${fallback}\n  ${' '.repeat(width)}  ${form}\n`,
  );
  return (
    'tprm-api: the third-party risk data API (public API, management API and webhook dispatcher).\n\n' +
    'Usage: node dist/src/main.js   (npm start builds first)\n\n' +
    'Settings come from the environment; a .env file in the working directory may set them too.\n' +
    'A bad setting stops the start with exit code 2 and one line naming it.\n\n' +
    `${settings.join('')}`
  );
}

/** The environment variables the service's settings are read from, observed rather than listed twice. */
export function settingVariables(): string[] {
  const read = new Set<string>();
  const env = new Proxy({} as NodeJS.ProcessEnv, {
    get: (_target, name) => {
      if (typeof name === 'string') read.add(name);
      return undefined;
    },
  });
  loadConfig(env);
  return [...read].sort();
}
