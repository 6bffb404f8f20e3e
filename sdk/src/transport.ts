// Sends the requests: authentication, query strings, timeouts, and the retry policy of risk-data-api.md
// "Errors": 429 after `Retry-After`, 5xx and failed connections after an exponential backoff with jitter, a
// bounded number of times; never any other 4xx. A POST carries one Idempotency-Key for all its attempts, so
// a retried write is applied once.
import { randomUUID } from 'node:crypto';
import {
  errorFromResponse,
  retryAfterSeconds,
  TprmConnectionError,
  UnexpectedResponseError,
} from './errors.js';

export interface RetryOptions {
  /** Retries after the first attempt (default 2); 0 disables retrying. */
  maxRetries?: number;
  /** Backoff before the first retry, doubled for each next one (default 500 ms). */
  initialDelayMs?: number;
  /** Cap of the backoff (default 8 s). */
  maxDelayMs?: number;
  /** A 429 asking to wait longer than this is thrown at once instead of waited out (default 60 s). */
  maxRetryAfterSeconds?: number;
}

export interface ClientOptions {
  /** The API's address, version prefix included: `https://tprm.example.com/v1`. */
  baseUrl: string;
  /** An API key of the workspace (`tprm_…`). */
  apiKey: string;
  retry?: RetryOptions;
  /** Time allowed for each attempt, in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** A replacement for the global `fetch` (instrumentation, proxies). */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** Overrides the Idempotency-Key the SDK generates for a POST (reuse it to retry a write yourself). */
  idempotencyKey?: string;
}

type QueryValue = string | number | boolean | null | undefined;

export class Transport {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly retry: Required<RetryOptions>;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: ClientOptions) {
    if (typeof options.apiKey !== 'string' || options.apiKey === '')
      throw new TypeError('apiKey is required');
    this.baseUrl = new URL(options.baseUrl).href.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.retry = {
      maxRetries: options.retry?.maxRetries ?? 2,
      initialDelayMs: options.retry?.initialDelayMs ?? 500,
      maxDelayMs: options.retry?.maxDelayMs ?? 8000,
      maxRetryAfterSeconds: options.retry?.maxRetryAfterSeconds ?? 60,
    };
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** The URL of a path of the document (`/suppliers/{id}`), its `{id}` filled in, with a query string. */
  url(path: string, id?: string, query?: object): URL {
    let filled = path;
    if (id !== undefined) {
      // Ids are UUIDs; anything else could change the path (`..`, `/`) rather than name a resource.
      if (typeof id !== 'string' || !/^[0-9A-Za-z-]+$/.test(id))
        throw new TypeError(`not an id: ${String(id)}`);
      filled = path.replace('{id}', id);
    }
    const url = new URL(`${this.baseUrl}${filled}`);
    for (const [name, value] of Object.entries((query ?? {}) as Record<string, QueryValue>)) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url;
  }

  /** One API call whose success is a JSON body: `path` is the document's (`/suppliers/{id}`). */
  async json<T>(
    method: string,
    path: string,
    request: { id?: string; query?: object; body?: unknown } = {},
    options: RequestOptions = {},
  ): Promise<T> {
    const url = this.url(path, request.id, request.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    // Generated once, outside the retry loop: every attempt of this call carries the same key.
    if (method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    const response = await this.send(method, url, {
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    if (!response.ok) throw await unexpected(response, url.pathname);
    return (await response.json()) as T;
  }

  /**
   * Sends with the retry policy and resolves with the first response below 400 (redirects are not followed:
   * the caller decides where a `Location` may take its credentials). `authenticated` false sends no key.
   */
  async send(
    method: string,
    url: URL,
    init: { headers?: Record<string, string>; body?: string; authenticated?: boolean },
  ): Promise<Response> {
    const headers = { ...init.headers };
    if (init.authenticated !== false) headers.authorization = `Bearer ${this.apiKey}`;
    for (let retry = 0; ; retry++) {
      let response: Response;
      try {
        response = await this.fetch(url, {
          method,
          headers,
          body: init.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (cause) {
        if (retry >= this.retry.maxRetries)
          throw new TprmConnectionError(`${method} ${url.pathname}: ${describe(cause)}`, { cause });
        await sleep(this.backoff(retry));
        continue;
      }
      if (response.status < 400) return response;
      const error = await errorFromResponse(response);
      const delay = this.delayBeforeRetry(response, retry);
      if (delay === undefined) throw error;
      await sleep(delay);
    }
  }

  /** Milliseconds to wait before retrying after this response, or undefined when it is final. */
  private delayBeforeRetry(response: Response, retry: number): number | undefined {
    if (retry >= this.retry.maxRetries) return undefined;
    if (response.status === 429) {
      const seconds = retryAfterSeconds(response.headers);
      if (seconds === undefined) return this.backoff(retry);
      if (seconds > this.retry.maxRetryAfterSeconds) return undefined;
      // A little jitter on top, so that clients told the same instant do not all come back at once.
      return seconds * 1000 + Math.random() * this.retry.initialDelayMs;
    }
    return response.status >= 500 ? this.backoff(retry) : undefined;
  }

  /** Exponential backoff with "equal jitter": half the step is fixed, half random. */
  private backoff(retry: number): number {
    const step = Math.min(this.retry.maxDelayMs, this.retry.initialDelayMs * 2 ** retry);
    return step / 2 + Math.random() * (step / 2);
  }
}

/** The error for a response the operation does not declare as its success (e.g. a redirect to a JSON call). */
export async function unexpected(response: Response, from: string): Promise<UnexpectedResponseError> {
  await response.body?.cancel();
  return new UnexpectedResponseError(
    {
      code: 'unexpected_response',
      message: `unexpected HTTP ${response.status} from ${from}`,
      status: response.status,
      request_id: response.headers.get('x-request-id') ?? undefined,
      details: undefined,
    },
    response.headers,
  );
}

function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner =
    cause.cause instanceof Error
      ? `: ${(cause.cause as Error & { code?: string }).code ?? cause.cause.message}`
      : '';
  return `${cause.name === 'TimeoutError' ? 'timed out' : cause.message}${inner}`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
