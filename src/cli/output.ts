// What commands print: a table or a field/value record for people, the API's JSON with --json. Secrets the
// API returns once are shown with a warning that goes to stderr under --json, so stdout stays parseable.
// Nothing from the server reaches the terminal with a control character in it (P106).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { CONTROL_CHARACTERS, SCOPES } from '../schema/fields.js';

/**
 * `text` with each control character (C0, DEL, C1) written out as an escape that shows it: `\x1b`, or in JSON
 * `\u001b`, which JSON reads back as the same character. Data from the server can then never move the
 * cursor, recolour, retitle or clear the operator's terminal, nor fake a line. `keep` lists the characters
 * left as they are: the line breaks of the output's own layout.
 */
export function escapeControls(text: string, options: { json?: boolean; keep?: string } = {}): string {
  return text.replace(CONTROL_CHARACTERS, (ch) => {
    if (options.keep?.includes(ch)) return ch;
    const hex = (ch.codePointAt(0) as number).toString(16);
    return options.json ? `\\u${hex.padStart(4, '0')}` : `\\x${hex.padStart(2, '0')}`;
  });
}

/** The output mode of a command. */
export interface Output {
  json: boolean;
}

/** Terminal columns a string takes: East Asian wide characters take two (the seed data has Japanese names). */
function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    const wide =
      (cp >= 0x1100 && cp <= 0x115f) ||
      (cp >= 0x2e80 && cp <= 0xa4cf) ||
      (cp >= 0xac00 && cp <= 0xd7a3) ||
      (cp >= 0xf900 && cp <= 0xfaff) ||
      (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) ||
      (cp >= 0xffe0 && cp <= 0xffe6) ||
      (cp >= 0x20000 && cp <= 0x3fffd);
    width += wide ? 2 : 1;
  }
  return width;
}

function cellText(value: unknown, max: number): string {
  let text: string;
  if (value === null || value === undefined) text = '-';
  else if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null))
    text = value.length === 0 ? '-' : value.join(', ');
  else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  // A multi-line text (a note, an alert's body) reads on one line; any other control is shown, not obeyed.
  text = escapeControls(text.replace(/(?:[ \t]*\r?\n)+[ \t]*/g, ' '));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A field of the row, or a header and how to get the cell from the row. */
export type Column<R> = (keyof R & string) | [header: string, value: (row: R) => unknown];

/** `text` cut to at most `width` terminal columns, with "…" when cut. */
function cutTo(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let cut = '';
  for (const ch of text) {
    if (displayWidth(cut + ch) > width - 1) break;
    cut += ch;
  }
  return `${cut}…`;
}

export interface TableOptions {
  header?: boolean;
  /** Longest cell, in characters (default 60). */
  max?: number;
  /**
   * The widest a line may be, and the columns (by field or header) cut down to make the table fit: the
   * widest of them first, each to no less than its header (P168).
   */
  fit?: { width: number; shrink: readonly string[] };
}

/** The one table printer: long cells are cut (use --json for the full values). */
export function table<R extends object>(
  rows: readonly R[],
  columns: readonly Column<R>[],
  options: TableOptions = {},
): string {
  if (rows.length === 0) return '(none)';
  const names = columns.map((c) => (typeof c === 'string' ? c : c[0]));
  const headers = names.map((name) => name.replaceAll('_', ' ').toUpperCase());
  const cells = rows.map((row) =>
    columns.map((c) => cellText(typeof c === 'string' ? row[c] : c[1](row), options.max ?? 60)),
  );
  const lines = options.header === false ? cells : [headers, ...cells];
  const widths = columns.map((_, k) => Math.max(...lines.map((line) => displayWidth(line[k] as string))));
  if (options.fit) {
    // The widest of the columns that may give way loses a column at a time, down to its header's width.
    const flexible = options.fit.shrink.map((name) => names.indexOf(name)).filter((k) => k >= 0);
    const least = (k: number) => Math.max(displayWidth(headers[k] as string), 2);
    let excess = widths.reduce((sum, w) => sum + w, 0) + 2 * (columns.length - 1) - options.fit.width;
    while (excess > 0) {
      const widest = flexible
        .filter((k) => (widths[k] as number) > least(k))
        .sort((a, b) => (widths[b] as number) - (widths[a] as number))[0];
      if (widest === undefined) break;
      widths[widest] = (widths[widest] as number) - 1;
      excess--;
    }
    for (const k of flexible)
      for (const line of lines) line[k] = cutTo(line[k] as string, widths[k] as number);
  }
  return lines
    .map((line) =>
      line
        .map((cell, k) => cell + ' '.repeat((widths[k] as number) - displayWidth(cell)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** "1 delivery", "2 deliveries", "0 records": the count and the noun that agrees with it (P171). */
export const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** One object as a two-column field/value table. */
export const record = (object: object): string =>
  table(
    Object.entries(object).map(([field, value]) => ({ field, value })),
    ['field', 'value'],
    { header: false, max: 100 },
  );

/** Prints `value` as JSON with --json, else what `human` renders from it (its own line breaks kept). */
export function print(out: Output, value: unknown, human: () => string): void {
  const text = out.json ? jsonText(value, 2) : escapeControls(human(), { keep: '\n' });
  process.stdout.write(`${text}\n`);
}

/**
 * JSON for a terminal: JSON.stringify escapes C0 controls but writes DEL and C1 controls (U+009B is a CSI to
 * some terminals) as they are. The value read back is the same.
 */
export const jsonText = (value: unknown, indent?: number): string =>
  escapeControls(JSON.stringify(value, null, indent), { json: true, keep: '\n' });

/** A secret the API returns once (API key secret, endpoint signing secret): shown with a warning. The JSON
 * output carries it in the response itself; the warning then goes to stderr so stdout stays parseable. */
export function printWithSecret<T extends object>(
  out: Output,
  value: T,
  secretField: keyof T & string,
  what: string,
  view: (value: T) => object = (v) => v,
): void {
  const { [secretField]: secret, ...rest } = view(value) as Record<string, unknown>;
  const warning = `${what} is shown only once and cannot be shown again: store it now.`;
  if (out.json) {
    print(out, value, () => '');
    process.stderr.write(`warning: ${warning}\n`);
    return;
  }
  print(
    out,
    value,
    () =>
      `${record(rest)}\n\n${what} (${secretField}):\n  ${escapeControls(String(secret))}\n\nwarning: ${warning}`,
  );
}

interface KeyFields {
  scopes: readonly string[];
  revoked_at: string | null;
  expires_at: string | null;
}

export const keyStatus = (key: KeyFields): string =>
  key.revoked_at
    ? 'revoked'
    : key.expires_at && Date.parse(key.expires_at) <= Date.now()
      ? 'expired'
      : 'active';

/** Every scope shown as "all (16)". (Answers are typed, not checked: whatever a server sends is shown.) */
export const scopesText = (key: KeyFields): unknown =>
  Array.isArray(key.scopes) && SCOPES.every((scope) => key.scopes.includes(scope))
    ? `all (${SCOPES.length})`
    : key.scopes;

/** A key for people. */
export const keyView = <K extends KeyFields>(key: K): object => ({ ...key, scopes: scopesText(key) });
