// `tprm export <collection> --out FILE`: a whole collection of the public API saved to a file, one JSON record
// a line, through the list's stream (`Accept: application/x-ndjson`, docs/decisions.md P193-P202). It talks to
// the public API with an API key (the key's workspace is the one exported), like `tprm mcp`, not to the
// management API. The file is written as FILE.partial and renamed once the stream's end line arrived: a
// failed or cut export leaves no FILE that looks complete. Progress (rows, rows/s) goes to stderr; stdout gets
// the summary with the cursor that continues the list after the export (`--cursor` takes it back).
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Command } from 'commander';
import { act } from '../command.js';
import { ApiCallError, CliError } from '../errors.js';
import { examples } from '../options.js';
import { print, record } from '../output.js';
import { DEFAULT_API_URL } from './mcp.js';

interface ExportOptions {
  out: string;
  filter: string[];
  cursor?: string;
  apiUrl?: string;
  apiKey?: string;
}

const NEWLINE = 0x0a;

const collect = (value: string, previous: string[]) => [...previous, value];

/** One progress line on stderr every 2 s, and the last one at the end. */
function progressLine(collection: string) {
  const started = Date.now();
  let last = started;
  const line = (rows: number) => {
    const rate = Math.round(rows / Math.max((Date.now() - started) / 1000, 0.001));
    process.stderr.write(`export ${collection}: ${rows} rows, ${rate} rows/s\n`);
  };
  return {
    update(rows: number) {
      if (Date.now() - last >= 2000) {
        last = Date.now();
        line(rows);
      }
    },
    done: line,
  };
}

async function apiError(response: Response): Promise<ApiCallError> {
  const text = await response.text().catch(() => '');
  let error: Record<string, unknown> | undefined;
  try {
    error = (JSON.parse(text) as { error?: Record<string, unknown> }).error;
  } catch {
    error = undefined;
  }
  const failure = new ApiCallError(
    response.status,
    typeof error?.code === 'string' ? error.code : 'unknown_error',
    typeof error?.message === 'string' ? error.message : `HTTP ${response.status}: ${text.slice(0, 200)}`,
    error?.details as Record<string, unknown> | undefined,
    typeof error?.request_id === 'string' ? error.request_id : undefined,
  );
  const retryAfter = response.headers.get('retry-after');
  if (response.status === 429 && retryAfter) failure.notes.push(`retry after ${retryAfter} seconds`);
  return failure;
}

export function exportCommand(program: Command): void {
  program
    .command('export <collection>')
    .description(
      'save a whole collection of the public API to a file, one JSON record a line (GET /v1/<collection> as application/x-ndjson)',
    )
    .requiredOption(
      '--out <file>',
      'the file to write (written as <file>.partial until the export is complete)',
    )
    .option('--filter <name=value>', 'a filter of the list, as in its query (repeatable)', collect, [])
    .option('--cursor <cursor>', "start after this cursor (a previous export's next cursor)")
    .option('--api-url <url>', `the public API, /v1 included (default: $TPRM_API_URL or ${DEFAULT_API_URL})`)
    .option(
      '--api-key <key>',
      'an API key of the workspace to export (default: $TPRM_API_KEY; prefer the variable)',
    )
    .addHelpText(
      'after',
      `
<collection> is a list's path under /v1: suppliers, assessments, audit-logs, risks, alerts… The key's scopes
apply (without pii:read, personal fields are left out). Stdout gets the rows written and the cursor that
continues the list after the export; exports count against their own hourly budget.
${examples([
  'TPRM_API_KEY=tprm_… tprm export suppliers --out suppliers.ndjson',
  'TPRM_API_KEY=tprm_… tprm export suppliers --filter status=active --out active.ndjson --json',
  'TPRM_API_KEY=tprm_… tprm export audit-logs --cursor "$LAST" --out audit.ndjson',
])}`,
    )
    .action(
      act<[collection: string], ExportOptions>(async (io, [collection], opts) => {
        const base = (opts.apiUrl || process.env.TPRM_API_URL || DEFAULT_API_URL).replace(/\/+$/, '');
        if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol))
          throw new CliError(`The API URL "${base}" is not an http(s) URL (TPRM_API_URL or --api-url).`);
        const key = opts.apiKey || process.env.TPRM_API_KEY;
        if (!key) throw new CliError('No API key: set TPRM_API_KEY (or pass --api-key).');
        if (!/^[a-z][a-z-]*$/.test(collection))
          throw new CliError(`"${collection}" is not a collection name (a list's path, e.g. suppliers).`);
        const url = new URL(`${base}/${collection}`);
        for (const filter of opts.filter) {
          const at = filter.indexOf('=');
          if (at < 1) throw new CliError(`--filter ${filter}: expected name=value`);
          url.searchParams.append(filter.slice(0, at), filter.slice(at + 1));
        }
        if (opts.cursor) url.searchParams.set('cursor', opts.cursor);
        let response: Response;
        try {
          response = await fetch(url, {
            headers: { authorization: `Bearer ${key}`, accept: 'application/x-ndjson' },
          });
        } catch (error) {
          const cause = (error as { cause?: { code?: string } }).cause;
          throw new CliError(
            `Cannot reach the API at ${base} (${cause?.code ?? (error as Error).message}). Set TPRM_API_URL or pass --api-url.`,
          );
        }
        if (!response.ok) throw await apiError(response);
        if (!response.headers.get('content-type')?.startsWith('application/x-ndjson') || !response.body)
          throw new CliError(`${url.pathname} is not a collection that can be exported.`);
        const partial = `${opts.out}.partial`;
        const file = createWriteStream(partial);
        const bar = progressLine(collection);
        // Lines are copied as they arrive; only the current incomplete line is kept, to recognize the last one.
        let pending = Buffer.alloc(0);
        let rows = 0;
        let end: {
          meta?: { next_cursor: string | null; count: number };
          error?: Record<string, unknown>;
        } | null = null;
        try {
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
            const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : Buffer.from(chunk);
            let start = 0;
            for (let at = data.indexOf(NEWLINE); at !== -1; at = data.indexOf(NEWLINE, start)) {
              const line = data.subarray(start, at + 1);
              start = at + 1;
              // A record always has fields besides these; the end and error lines have exactly one key.
              if (
                line[0] === 0x7b &&
                (line.subarray(0, 8).toString() === '{"meta":' ||
                  line.subarray(0, 9).toString() === '{"error":')
              ) {
                const parsed = JSON.parse(line.toString('utf8'));
                if (Object.keys(parsed).length === 1) {
                  end = parsed;
                  continue;
                }
              }
              if (end) throw new CliError('the export sent a record after its last line');
              rows++;
              if (!file.write(line)) await once(file, 'drain');
            }
            pending = data.subarray(start);
            bar.update(rows);
          }
          file.end();
          await once(file, 'finish');
          if (end?.error) {
            const { code, message, request_id } = end.error as {
              code?: string;
              message?: string;
              request_id?: string;
            };
            throw new ApiCallError(
              500,
              code ?? 'internal_error',
              `the export failed midway: ${message}`,
              undefined,
              request_id,
            );
          }
          if (!end?.meta || pending.length > 0) throw new CliError('the export ended before its last line');
          if (end.meta.count !== rows)
            throw new CliError(`the export announced ${end.meta.count} rows, ${rows} arrived`);
          await rename(partial, opts.out);
        } catch (error) {
          file.destroy();
          await rm(partial, { force: true });
          throw error;
        }
        bar.done(rows);
        const summary = { collection, file: opts.out, rows, next_cursor: end.meta.next_cursor };
        print(io, summary, () =>
          record({ collection, file: opts.out, rows, 'next cursor': end?.meta?.next_cursor ?? '(none)' }),
        );
      }),
    );
}
