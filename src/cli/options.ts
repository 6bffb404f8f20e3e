// Option parsers and helpers shared by the commands.
import { type Command, InvalidArgumentError, Option } from 'commander';
import { Plans } from '../schema/fields.js';

export const DEFAULT_ADMIN_URL = 'http://127.0.0.1:8081';

/** The program-wide options. */
export interface Globals {
  adminUrl?: string;
  adminToken?: string;
  json?: boolean;
}

export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!/^-?\d+$/.test(raw.trim()) || value < min || value > max)
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    return value;
  };
}

/** `a,b,c` or `all` (every value of `all`). The API judges the values. */
export const list =
  (all: readonly string[]) =>
  (raw: string): string[] =>
    raw.trim() === 'all'
      ? [...all]
      : raw
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean);

/** The body fields named by `fields`, from the options of the same keys, each keeping its optionality. */
type Renamed<O, M> = {
  [K in keyof O as K extends keyof M ? (M[K] extends string ? M[K] : never) : never]: O[K];
};

/** Only the options the person gave, renamed to the API's field names. */
export function pick<O extends object, const M extends { [K in keyof O]?: string }>(
  opts: O,
  fields: M,
): Renamed<O, M> {
  const body: Record<string, unknown> = {};
  for (const [option, field] of Object.entries(fields) as [keyof O, string][])
    if (opts[option] !== undefined) body[field] = opts[option];
  // Each given option was copied under its field name: what Renamed says.
  return body as Renamed<O, M>;
}

export function requireChanges(cmd: Command, body: object): void {
  if (Object.keys(body).length === 0)
    cmd.error('error: nothing to update: give at least one option (see --help).');
}

export const examples = (lines: string[]): string =>
  `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;

export const planOption = () =>
  new Option('--plan <plan>', 'plan (other plans exist to see 403 plan_upgrade_required)').choices(Plans);

export const quotaOption = (note = '') =>
  new Option('--quota <n>', `assessment_quota: supplier assessments the API may create${note}`).argParser(
    integer(0, 1_000_000),
  );

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * `--since`: an ISO 8601 instant as given, or a duration ago (`30m`, `6h`, `7d`) as the instant it names now,
 * so that a page's cursor and the command printed to continue it keep the same filter.
 */
export function since(raw: string): string {
  const ago = /^(\d+)(s|m|h|d)$/.exec(raw.trim());
  if (ago) {
    const ms = Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS];
    return new Date(Date.now() - ms).toISOString();
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(raw) && !Number.isNaN(Date.parse(raw))) return raw;
  throw new InvalidArgumentError(
    'expected an ISO 8601 instant (2026-11-20T06:00:00Z) or a duration: 30m, 6h, 7d.',
  );
}
