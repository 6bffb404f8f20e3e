// One delivery attempt over HTTP (decisions 24 and 30): POST the payload bytes, signed; the receiver has
// WEBHOOK_TIMEOUT for the whole exchange; redirects are not followed; at most 1 KiB of the answer is kept.
// The target is checked at each send, on the URL (IP literals, which never reach a DNS lookup) and on every
// address the name resolves to and that the socket actually connects to.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { SIGNATURE_HEADER } from '../../sdk/src/signing.js';
import { checkWebhookUrl, guardedLookup, isForbiddenAddress, refusedTarget } from './address-policy.js';

export const RESPONSE_BODY_LIMIT = 1024;

export interface AttemptOutcome {
  delivered: boolean;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  /**
   * What kind of failure, for logs (P82): `http` (see responseStatus), `timeout`, `blocked`, `aborted`, a
   * socket error's code (`ECONNREFUSED`…) or `connection`; null when delivered. Never an address or URL.
   */
  errorClass: string | null;
}

export interface Sender {
  send(url: string, body: Buffer, signature: string, signal?: AbortSignal): Promise<AttemptOutcome>;
  close(): void;
}

/** One POST of `body` with `headers` under the rules above: what the webhook sender and the http sinks send. */
export interface Poster {
  post(
    url: string,
    body: Buffer,
    headers: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<AttemptOutcome>;
  close(): void;
}

const failure = (
  errorClass: string,
  error: string,
  responseStatus: number | null = null,
  responseBody: string | null = null,
): AttemptOutcome => ({
  delivered: false,
  responseStatus,
  responseBody,
  error,
  errorClass,
});

/** Text PostgreSQL can store: invalid UTF-8 becomes U+FFFD, NUL is dropped. */
const storable = (bytes: Buffer) => bytes.toString('utf8').replaceAll('\u0000', '');

/** A failed attempt's outcome, its `error` as the API shows it: never an address the target's name resolved to (P73). */
function connectionFailure(error: NodeJS.ErrnoException, timeoutMs: number): AttemptOutcome {
  if (error.code === 'ETIMEDOUT_WEBHOOK')
    return failure('timeout', `timeout: no complete answer within ${timeoutMs} ms`);
  if (error.code === 'EFORBIDDENADDRESS') return failure('blocked', `blocked: ${error.message}`);
  if (error.code === 'ABORT_ERR')
    return failure('aborted', 'aborted: the worker shut down during the attempt');
  // Node's socket errors end with the address and port tried ("connect ECONNREFUSED 10.0.0.7:443").
  if (error.code && error.syscall && (error as { address?: unknown }).address !== undefined)
    return failure(error.code, `${error.code}: ${error.syscall} failed`);
  return error.code
    ? failure(error.code, `${error.code}: ${error.message}`)
    : failure('connection', `connection error: ${error.message}`);
}

export interface PosterOptions {
  timeoutMs: number;
  allowInsecure: boolean;
  userAgent: string;
}

export function createSender(options: PosterOptions): Sender {
  const poster = createPoster(options);
  return {
    send: (url, body, signature, signal) =>
      poster.post(url, body, { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature }, signal),
    close: poster.close,
  };
}

export function createPoster(options: PosterOptions): Poster {
  const lookup = guardedLookup(options.allowInsecure);
  // Keep-alive pays the TLS handshake once per receiver instead of once per attempt.
  const agents = {
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64, lookup }),
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64, lookup }),
  };

  const post = (url: string, body: Buffer, headers: Record<string, string>, signal?: AbortSignal) =>
    new Promise<AttemptOutcome>((resolve) => {
      const problem = checkWebhookUrl(url, { allowInsecure: options.allowInsecure });
      if (problem) return resolve(failure('blocked', `blocked: ${problem}`));
      const target = new URL(url);
      const transport = target.protocol === 'https:' ? https : http;
      let settled = false;
      let status: number | null = null;
      const chunks: Buffer[] = [];
      let kept = 0;
      const finish = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const answered = () => {
        const text = storable(Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT));
        if (status !== null && status >= 200 && status < 300) {
          return finish({
            delivered: true,
            responseStatus: status,
            responseBody: text,
            error: null,
            errorClass: null,
          });
        }
        const reason =
          status !== null && status >= 300 && status < 400
            ? `HTTP ${status}: redirects are not followed`
            : `HTTP ${status}: only a 2xx acknowledges`;
        finish(failure('http', reason, status, text));
      };

      const request = transport.request(target, {
        method: 'POST',
        agent: agents[target.protocol as 'https:' | 'http:'],
        lookup,
        headers: { ...headers, 'content-length': body.length, 'user-agent': options.userAgent },
      });
      const fail = (error: NodeJS.ErrnoException) => {
        request.destroy();
        // Once the status line is in, the receiver has answered: what it did with the body is its business.
        if (status !== null) answered();
        else finish(connectionFailure(error, options.timeoutMs));
      };
      const timer = setTimeout(() => {
        const error: NodeJS.ErrnoException = new Error('timeout');
        error.code = 'ETIMEDOUT_WEBHOOK';
        fail(error);
      }, options.timeoutMs);
      const onAbort = () => {
        const error: NodeJS.ErrnoException = new Error('aborted');
        error.code = 'ABORT_ERR';
        fail(error);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });

      if (!options.allowInsecure) {
        // The address actually connected to, whatever resolved it (a reused keep-alive socket was checked
        // when it connected).
        request.on('socket', (socket: Socket) => {
          socket.once('connect', () => {
            const address = socket.remoteAddress ?? '';
            if (isForbiddenAddress(address)) {
              socket.destroy();
              fail(refusedTarget());
            }
          });
        });
      }
      request.on('error', fail);
      request.on('response', (response) => {
        status = response.statusCode ?? 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_BODY_LIMIT) {
            chunks.push(chunk);
            kept += chunk.length;
          }
          // Enough kept: stop reading a large or endless body rather than wait for it.
          if (kept >= RESPONSE_BODY_LIMIT) {
            response.destroy();
            answered();
          }
        });
        response.on('end', answered);
        response.on('error', () => answered());
        response.on('close', () => answered());
      });
      request.end(body);
    });

  return {
    post,
    close() {
      agents['https:'].destroy();
      agents['http:'].destroy();
    },
  };
}
