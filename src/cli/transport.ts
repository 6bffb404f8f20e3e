// The one place that talks to the management API: the typed admin client over fetch. An error answer
// becomes an ApiCallError with the API's code, message, details and request id; an unreachable server, a
// bad URL or a missing token a CliError saying what to set.
// Loaded by a command when it runs (command.ts): the contracts are not loaded for --help or --version.
import { type AdminOperations, adminOperations } from '../management/admin-operations.js';
import {
  type AdminClient,
  type AdminRequest,
  type AdminTransport,
  createAdminClient,
} from '../management/client.js';
import { ApiCallError, CliError } from './errors.js';
import { DEFAULT_ADMIN_URL, type Globals } from './options.js';

export type Admin = AdminClient<AdminOperations>;

export const connect = (globals: Globals): Admin =>
  createAdminClient(adminOperations, httpTransport(globals));

type Json = Record<string, unknown>;

/** Checked at each call, not before: `migrate` and `--help` need neither a URL nor a token. */
function httpTransport(globals: Globals): AdminTransport {
  const base = (globals.adminUrl || process.env.ADMIN_URL || DEFAULT_ADMIN_URL).replace(/\/+$/, '');
  return async (request) => {
    if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol))
      throw new CliError(`The admin URL "${base}" is not an http(s) URL (ADMIN_URL or --admin-url).`);
    const token = globals.adminToken || process.env.ADMIN_TOKEN;
    if (!token) {
      throw new CliError(
        'No admin token: set ADMIN_TOKEN (or pass --admin-token). The server prints it on its first start.',
      );
    }
    return answer(base, await send(base, token, request));
  };
}

async function send(base: string, token: string, { method, path, body }: AdminRequest): Promise<Response> {
  try {
    return await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(
      `Cannot reach the management API at ${base} (${cause?.code ?? cause?.message ?? (error as Error).message}). ` +
        'Is the server running? Set ADMIN_URL or pass --admin-url.',
    );
  }
}

/** The parsed JSON of a success (undefined for an empty body), or the error it says. */
async function answer(base: string, response: Response): Promise<unknown> {
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    throw new CliError(`Unexpected answer from ${base} (HTTP ${response.status}): ${text.slice(0, 200)}`);
  }
  if (response.ok) return parsed;
  const error = (parsed as { error?: Json } | undefined)?.error;
  const failure = new ApiCallError(
    response.status,
    typeof error?.code === 'string' ? error.code : 'unknown_error',
    typeof error?.message === 'string' ? error.message : `HTTP ${response.status}: ${text.slice(0, 200)}`,
    error?.details as Json | undefined,
    typeof error?.request_id === 'string' ? error.request_id : undefined,
  );
  // A 429 says when to retry in a header, which the person at the terminal does not see otherwise.
  const retryAfter = response.headers.get('retry-after');
  if (response.status === 429 && retryAfter)
    failure.notes.push(`retry after ${retryAfter} ${retryAfter === '1' ? 'second' : 'seconds'}`);
  throw failure;
}
