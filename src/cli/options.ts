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
