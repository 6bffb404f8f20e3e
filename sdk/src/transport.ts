// Sends the requests: authentication, query strings, timeouts, and the retry policy of risk-data-api.md
// "Errors": 429 after `Retry-After`, 5xx and failed connections after an exponential backoff with jitter, a
// bounded number of times; never any other 4xx. A POST carries one Idempotency-Key for all its attempts, so
// a retried write is applied once.
import { randomUUID } from 'node:crypto';
import {
  errorFromResponse,
  retryAfterSeconds,
  TprmAbortError,
  TprmConnectionError,
  UnexpectedResponseError,
} from './errors.js';
import { SDK_VERSION } from './version.js';

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

/** Options of one call, its last argument; each overrides the client's setting for this call only. */
export interface RequestOptions {
  /** Time allowed for each attempt of this call, in milliseconds. */
  timeoutMs?: number;
  /** Retries after the first attempt of this call; 0 sends it once. */
  maxRetries?: number;
  /** Aborts the call (the attempt in flight or the wait before a retry): a {@link TprmAbortError} is thrown. */
  signal?: AbortSignal;
  /**
   * The API key of this call instead of the client's: one process serving several workspaces keeps one
   * client and names each call's workspace by its key (stripe-node's per-request `apiKey`).
   */
  apiKey?: string;
}

/** Options of a POST: also the Idempotency-Key. */
export interface PostRequestOptions extends RequestOptions {
  /** Overrides the Idempotency-Key the SDK generates for a POST (reuse it to retry a write yourself). */
  idempotencyKey?: string;
}

/** The `X-RateLimit-*` headers of a response: the workspace's bucket closest to its ceiling. */
export interface RateLimitInfo {
  limit: number;
  remaining: number;
  /** Seconds until that bucket's window resets. */
  resetSeconds: number;
}

/** What the response of a successful call said besides its body (stripe-node's `lastResponse`). */
export interface LastResponse {
  statusCode: number;
  /** `X-Request-Id`: quote it to support. */
  requestId: string | undefined;
  /** The Idempotency-Key sent (POST only). */
  idempotencyKey: string | undefined;
  /** True when the service replayed the stored response of an earlier request with the same key. */
  idempotentReplayed: boolean;
  /** Undefined when the response has no `X-RateLimit-*` headers (the signed PDF download). */
  rateLimit: RateLimitInfo | undefined;
  headers: Headers;
}

/** A result with its response's metadata on `lastResponse`, a non-enumerable property (not serialized). */
export type WithResponse<T> = T & { readonly lastResponse: LastResponse };

/** Emitted before each attempt of a call (a retry is a new attempt). */
export interface RequestEvent {
  method: string;
  /** The path requested; the signed PDF URL, itself a credential, is shown as `/files/…`. */
  path: string;
  /** 1 for the first attempt, 2 for the first retry, … */
  attempt: number;
  idempotencyKey: string | undefined;
  /** `Date.now()` when the attempt was sent. */
  requestStartTime: number;
}

/** Emitted for each HTTP response, error statuses included (not when the attempt got no response). */
export interface ResponseEvent extends RequestEvent {
  status: number;
  requestId: string | undefined;
  requestEndTime: number;
  elapsedMs: number;
  headers: Headers;
}

export interface ClientEvents {
  request: RequestEvent;
  response: ResponseEvent;
}
export type ClientEventName = keyof ClientEvents;
export type ClientEventListener<E extends ClientEventName> = (event: ClientEvents[E]) => void;

type QueryValue = string | number | boolean | null | undefined;

/** The Node.js runtime the SDK runs on, for the User-Agent. */
const RUNTIME = typeof process === 'object' ? `node/${process.versions.node}` : 'unknown-runtime';
export const USER_AGENT = `tprm-sdk/${SDK_VERSION} ${RUNTIME}`;

export class Transport {
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly retry: Required<RetryOptions>;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;
  private readonly listeners: { [E in ClientEventName]: Set<ClientEventListener<E>> } = {
    request: new Set(),
    response: new Set(),
  };

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

  on<E extends ClientEventName>(event: E, listener: ClientEventListener<E>): void {
    this.listenersOf(event).add(listener);
  }

  off<E extends ClientEventName>(event: E, listener: ClientEventListener<E>): void {
    this.listenersOf(event).delete(listener);
  }

  private listenersOf<E extends ClientEventName>(event: E): Set<ClientEventListener<E>> {
    const listeners = Object.hasOwn(this.listeners, event) ? this.listeners[event] : undefined;
    if (!listeners) throw new TypeError(`no such event: ${String(event)} (request or response)`);
    return listeners as Set<ClientEventListener<E>>;
  }

  /** Listeners run synchronously, in the order added; one that throws fails the call (as an emitter would). */
  private emit<E extends ClientEventName>(event: E, payload: ClientEvents[E]): void {
    for (const listener of [...this.listenersOf(event)]) listener(payload);
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
    options: PostRequestOptions = {},
  ): Promise<WithResponse<T>> {
    const url = this.url(path, request.id, request.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    // Generated once, outside the retry loop: every attempt of this call carries the same key.
    if (method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? randomUUID();
    const response = await this.send(
      method,
      url,
      { headers, body: request.body === undefined ? undefined : JSON.stringify(request.body) },
      options,
    );
    if (!response.ok) throw await unexpected(response, url.pathname);
    // The signal also covers reading the body: an abort there is the caller's too.
    const body = await response.json().catch((cause: unknown) => {
      throwIfAborted(options.signal, method, url.pathname);
      throw cause;
    });
    return withResponse(body as T, response, headers['idempotency-key']);
  }

  /**
   * Sends with the retry policy and resolves with the first response below 400 (redirects are not followed:
   * the caller decides where a `Location` may take its credentials). `authenticated` false sends no key.
   */
  async send(
    method: string,
    url: URL,
    init: { headers?: Record<string, string>; body?: string; authenticated?: boolean; stream?: boolean },
    options: RequestOptions = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, ...init.headers };
    if (options.apiKey !== undefined && (typeof options.apiKey !== 'string' || options.apiKey === ''))
      throw new TypeError('apiKey, when given for a call, must be a non-empty string');
    if (init.authenticated !== false) headers.authorization = `Bearer ${options.apiKey ?? this.apiKey}`;
    const maxRetries = options.maxRetries ?? this.retry.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const { signal } = options;
    const path = init.authenticated === false ? '/files/…' : url.pathname;
    for (let retry = 0; ; retry++) {
      throwIfAborted(signal, method, path);
      const requestEvent: RequestEvent = {
        method,
        path,
        attempt: retry + 1,
        idempotencyKey: headers['idempotency-key'],
        requestStartTime: Date.now(),
      };
      this.emit('request', requestEvent);
      let response: Response;
      try {
        // A stream's body may take longer than the timeout: then it bounds the wait for the response only.
        const streamTimer = init.stream ? new AbortController() : undefined;
        const timer =
          streamTimer &&
          setTimeout(
            () => streamTimer.abort(new DOMException('The operation timed out.', 'TimeoutError')),
            timeoutMs,
          );
        const timeout = streamTimer ? streamTimer.signal : AbortSignal.timeout(timeoutMs);
        try {
          response = await this.fetch(url, {
            method,
            headers,
            body: init.body,
            redirect: 'manual',
            signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
          });
        } finally {
          clearTimeout(timer);
        }
      } catch (cause) {
        throwIfAborted(signal, method, path);
        if (retry >= maxRetries)
          throw new TprmConnectionError(`${method} ${path}: ${describe(cause)}`, { cause });
        await sleep(this.backoff(retry), signal, method, path);
        continue;
      }
      const requestEndTime = Date.now();
      this.emit('response', {
        ...requestEvent,
        status: response.status,
        requestId: response.headers.get('x-request-id') ?? undefined,
        requestEndTime,
        elapsedMs: requestEndTime - requestEvent.requestStartTime,
        headers: response.headers,
      });
      if (response.status < 400) return response;
      const error = await errorFromResponse(response);
      const delay = retry >= maxRetries ? undefined : this.delayBeforeRetry(response, retry);
      if (delay === undefined) throw error;
      await sleep(delay, signal, method, path);
    }
  }

  /** Milliseconds to wait before retrying after this response (retries are left), or undefined when final. */
  private delayBeforeRetry(response: Response, retry: number): number | undefined {
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

/** Puts `lastResponse` on a result, non-enumerable like stripe-node's, so that JSON and deepEqual ignore it. */
export function withResponse<T>(result: T, response: Response, idempotencyKey?: string): WithResponse<T> {
  const header = (name: string) => {
    const value = response.headers.get(name);
    return value === null || value.trim() === '' ? undefined : Number(value);
  };
  const [limit, remaining, resetSeconds] = [
    header('x-ratelimit-limit'),
    header('x-ratelimit-remaining'),
    header('x-ratelimit-reset'),
  ];
  const lastResponse: LastResponse = {
    statusCode: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    idempotencyKey,
    idempotentReplayed: response.headers.get('idempotent-replayed') === 'true',
    rateLimit:
      limit === undefined || remaining === undefined || resetSeconds === undefined
        ? undefined
        : { limit, remaining, resetSeconds },
    headers: response.headers,
  };
  Object.defineProperty(result as object, 'lastResponse', { value: lastResponse, enumerable: false });
  return result as WithResponse<T>;
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

function throwIfAborted(signal: AbortSignal | undefined, method: string, path: string): void {
  if (signal?.aborted)
    throw new TprmAbortError(`${method} ${path}: aborted by the caller`, { cause: signal.reason });
}

/** Waits `ms`, or less when `signal` aborts, which throws. */
async function sleep(ms: number, signal: AbortSignal | undefined, method: string, path: string) {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
  throwIfAborted(signal, method, path);
}
