// The failures the CLI reports (exit code 1) and their two forms on stderr: text for people, and with --json
// one JSON object for scripts (decision P79).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { escapeControls, jsonText } from './output.js';

/** A failure to report to the person as is (no stack). `notes` are printed after it. */
export class CliError extends Error {
  readonly notes: string[] = [];
  /** The code of the JSON error (--json): `cli_error` unless the failure has a name of its own. */
  code = 'cli_error';
}

/** An error answer of the API, in its error shape (risk-data-api.md "Errors"). */
export class ApiCallError extends CliError {
  constructor(
    readonly status: number,
    override readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/**
 * The error for people: the message, the API's code and status, field problems, request id, notes. Each part
 * may come from the server (a field name is whatever the request held): its control characters are shown
 * escaped, and only the lines made here break lines (P106).
 */
export function describeError(error: unknown): string {
  if (!(error instanceof CliError))
    return `error: ${escapeControls((error as Error)?.stack ?? String(error), { keep: '\n' })}\n`;
  const text = (value: unknown) => escapeControls(String(value));
  const lines = [`error: ${text(error.message)}`];
  if (error instanceof ApiCallError) {
    lines[0] += ` (${text(error.code)}, HTTP ${error.status})`;
    const { fields, ...rest } = error.details ?? {};
    if (fields && typeof fields === 'object')
      for (const [field, problem] of Object.entries(fields)) lines.push(`  ${text(field)}: ${text(problem)}`);
    for (const [key, value] of Object.entries(rest)) lines.push(`  ${text(key)}: ${jsonText(value)}`);
    if (error.requestId) lines.push(`  request id: ${text(error.requestId)}`);
  }
  for (const note of error.notes) lines.push(`note: ${text(note)}`);
  return `${lines.join('\n')}\n`;
}

/** The error for scripts (--json): one line of JSON, the API's error fields, or `cli_error` for a local one. */
export function errorJson(error: unknown): string {
  const body: Record<string, unknown> =
    error instanceof ApiCallError
      ? {
          code: error.code,
          message: error.message,
          status: error.status,
          ...(error.requestId ? { request_id: error.requestId } : {}),
          ...(error.details ? { details: error.details } : {}),
        }
      : {
          code: error instanceof CliError ? error.code : 'cli_error',
          message: error instanceof CliError ? error.message : ((error as Error)?.stack ?? String(error)),
        };
  if (error instanceof CliError && error.notes.length > 0) body.notes = error.notes;
  return `${jsonText({ error: body })}\n`;
}
