// Log capture for tests, and the leak audit of a whole test run (docs/operations.md "Logs").
//
// Full run: scripts/run-tests.mjs sets TEST_LOG_DIR. Every harness of every test process then logs at the
// most verbose level to `<dir>/<pid>.log`, and records the secrets and personal values its requests and
// responses carried to `<dir>/<pid>.values`. After the suite, `auditLogDir` greps every log for every
// recorded value, and for anything shaped like a secret or an e-mail address: a log line must never hold one.
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DestinationStream, type Logger, pino, type StreamEntry } from 'pino';

/** Log lines kept in memory (tests that assert on logs). */
export class LogCapture {
  readonly lines: string[] = [];
  readonly stream: DestinationStream = { write: (line: string) => void this.lines.push(line) };
  // biome-ignore lint/suspicious/noExplicitAny: log records are arbitrary JSON
  records(): any[] {
    return this.lines.map((line) => JSON.parse(line));
  }
  text(): string {
    return this.lines.join('');
  }
}

const LOG_DIR = process.env.TEST_LOG_DIR;
let runLog: DestinationStream | undefined;

/**
 * The logger of a test harness: silent unless TEST_LOG_LEVEL asks for stdout, and in addition at the most
 * verbose level into `capture` and, in a full run, into this process's log file.
 */
export function testLogger(capture?: LogCapture): Logger {
  const streams: StreamEntry[] = [];
  if (capture) streams.push({ level: 'trace', stream: capture.stream });
  if (LOG_DIR) {
    if (!runLog) {
      mkdirSync(LOG_DIR, { recursive: true });
      // Synchronous: a test process may exit right after its last request.
      runLog = pino.destination({ dest: join(LOG_DIR, `${process.pid}.log`), sync: true, append: true });
    }
    streams.push({ level: 'trace', stream: runLog });
  }
  const stdoutLevel = process.env.TEST_LOG_LEVEL;
  if (stdoutLevel && stdoutLevel !== 'silent')
    streams.push({ level: stdoutLevel as 'info', stream: process.stdout });
  if (streams.length === 0) return pino({ level: 'silent' });
  return pino({ level: 'trace' }, pino.multistream(streams));
}

// Fields whose values are secrets (responses show them once) or personal data: the `pii: true` fields of the
// resources (supplier email, contacts, onboarding_data; context owner_name; gap evidence) and people's
// e-mail addresses in the management API.
const SECRET_FIELDS = new Set(['secret', 'signing_secret', 'token', 'admin_token']);
const PERSONAL_FIELDS = new Set(['email', 'contacts', 'onboarding_data', 'owner_name', 'evidence']);
// Shorter values could match unrelated log text by chance ("yes", "2024").
const MIN_LENGTH = 8;
// A lone lowercase word inside a personal field is the API's vocabulary (an enumeration value such as an
// asset's exposure "internal" in the seed's onboarding data), and matches unrelated text such as a stack
// frame's "node:internal/…"; the personal values the tests write are names, addresses and sentences.
const VOCABULARY = /^[a-z][a-z_]*$/;

const recorded = new Set<string>();

function strings(value: unknown, out: string[]): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) strings(item, out);
  return out;
}

function collect(value: unknown, out: string[]): void {
  if (Array.isArray(value)) for (const item of value) collect(item, out);
  else if (value && typeof value === 'object') {
    for (const [name, item] of Object.entries(value)) {
      if (SECRET_FIELDS.has(name) || PERSONAL_FIELDS.has(name)) strings(item, out);
      else collect(item, out);
    }
  }
}

/** In a full run, remembers the secrets and personal values in a request or response body (or a token). */
export function recordSensitive(value: unknown): void {
  if (!LOG_DIR || value === undefined) return;
  const found: string[] = [];
  if (typeof value === 'string') found.push(value);
  else collect(value, found);
  const fresh = found.filter((s) => s.length >= MIN_LENGTH && !VOCABULARY.test(s) && !recorded.has(s));
  if (fresh.length === 0) return;
  for (const s of fresh) recorded.add(s);
  mkdirSync(LOG_DIR, { recursive: true });
  appendFileSync(join(LOG_DIR, `${process.pid}.values`), fresh.map((s) => `${JSON.stringify(s)}\n`).join(''));
}

/** In a full run, remembers the credential parts of a URL the service issued (a signed download URL). */
export function recordUrl(location: string): void {
  const url = new URL(location, 'http://localhost');
  const parts = [...url.pathname.split('/'), ...url.searchParams.values()];
  // Expiry times and other numbers are not secret, and would match timestamps by chance.
  for (const part of parts) if (!/^\d*$/.test(part)) recordSensitive(part);
}

// Shapes no log line may contain, whoever produced the value: API keys (tprm_<prefix>_<secret>), admin
// tokens, webhook signing secrets, bearer credentials, e-mail addresses.
const SECRET_SHAPES = [
  /tprm_[a-z0-9]{8}_[A-Za-z0-9_-]{20,}/,
  /tprm_admin_[A-Za-z0-9_-]{20,}/,
  /whsec_[A-Za-z0-9_-]{20,}/,
  /Bearer [\x21-\x7e]{8,}/i,
  /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/,
];

export interface Leak {
  file: string;
  line: number;
  what: string;
}

/** Every log line of `text` that holds one of `values` (as it would appear in JSON) or a secret shape. */
export function findLeaks(text: string, values: Iterable<string>, file = 'log'): Leak[] {
  // A value inside a JSON log line appears escaped. Thousands of values against megabytes of logs: index
  // the values by their first MIN_LENGTH characters and look each text position up once.
  const byPrefix = new Map<string, string[]>();
  for (const value of values) {
    if (value.length < MIN_LENGTH) continue;
    const escaped = JSON.stringify(value).slice(1, -1);
    const prefix = escaped.slice(0, MIN_LENGTH);
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), escaped]);
  }
  const leaks: Leak[] = [];
  text.split('\n').forEach((line, i) => {
    for (let at = 0; at + MIN_LENGTH <= line.length; at++) {
      for (const escaped of byPrefix.get(line.slice(at, at + MIN_LENGTH)) ?? [])
        if (line.startsWith(escaped, at))
          leaks.push({ file, line: i + 1, what: `recorded value ${mask(escaped)}` });
    }
    for (const shape of SECRET_SHAPES) {
      const match = shape.exec(line);
      if (match) leaks.push({ file, line: i + 1, what: `secret-shaped text ${mask(match[0])}` });
    }
  });
  return leaks;
}

// Reports say which value leaked without printing it whole.
const mask = (v: string) => `"${v.slice(0, 4)}…" (${v.length} chars)`;

/** The leak audit of a full run: every `.log` of `dir` against every value recorded by any process. */
export function auditLogDir(dir: string): { files: number; lines: number; values: number; leaks: Leak[] } {
  mkdirSync(dir, { recursive: true });
  const names = readdirSync(dir);
  const values = new Set<string>();
  for (const name of names.filter((n) => n.endsWith('.values'))) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n'))
      if (line) values.add(JSON.parse(line) as string);
  }
  const logs = names.filter((n) => n.endsWith('.log'));
  let lines = 0;
  const leaks = logs.flatMap((name) => {
    const text = readFileSync(join(dir, name), 'utf8');
    lines += text.split('\n').length - 1;
    return findLeaks(text, values, name);
  });
  return { files: logs.length, lines, values: values.size, leaks };
}
