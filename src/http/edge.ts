// The edge every listener of the project shares, the API's two and `tprm mcp --http`: what Node's HTTP server
// is told (timeouts, no bare answers of its own), the answer to requests Node's parser refuses or that arrive
// too slowly, the checks of a request before any route sees it (HTTP version, Host, Expect) and the reading of
// a JSON body. Each listener renders the refusals in its own error shape.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import {
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError, invalidRequest } from '../contract/errors.js';
import { assertHost } from './request-headers.js';

/** The largest request body, and the largest MCP message on stdio (P1, P112). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
// Deeper JSON is refused before parsing: every walk over a body (validation, NUL checks, idempotency
// canonicalisation) recurses, and 100,000 levels would overflow the stack (a 500) instead of a 400.
export const MAX_JSON_DEPTH = 64;

export interface HttpTimeouts {
  /** Time from a request's first byte until its last (headers and body) before a 408 (decision P66). */
  requestTimeoutMs: number;
  /** Time an idle keep-alive connection stays open (decision P66). */
  keepAliveTimeoutMs: number;
}

/**
 * Node's options for a listener. Headers and body must arrive within the request timeout of the request's
 * first byte, however they trickle (P66). Node's own answer to a request without Host is a bare 400: the Host
 * check gives it the listener's shape instead (P67).
 */
export function edgeServerOptions(timeouts: HttpTimeouts): ServerOptions {
  return {
    requireHostHeader: false,
    headersTimeout: timeouts.requestTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // Node looks for late requests this often: a quarter of the timeout, at most 1 s (Node's default is 30 s).
    connectionsCheckingInterval: Math.min(1000, Math.ceil(timeouts.requestTimeoutMs / 4)),
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether JSON text nests objects/arrays deeper than `limit` (brackets inside strings do not count). */
function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character, which may be a quote.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** A JSON body: UTF-8 (invalid bytes are refused, not replaced), not empty, at most MAX_JSON_DEPTH deep. */
export function parseJsonBody(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw invalidRequest('The request body is not valid UTF-8.');
  }
  if (text.trim() === '') throw invalidRequest('The request body is empty.');
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw invalidRequest(`The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest('The request body is not valid JSON.');
  }
}

/** A listener's error answer to a request it refuses: its headers (Content-Type included) and body. */
export type RenderRefusal = (
  error: ApiError,
  requestId: string,
) => { headers: Record<string, string>; body: string };

/** Why a request was refused before any route saw it, for the listener's log. */
export interface EdgeRefusalLog {
  requestId: string;
  status: number;
  /** Node's code for the failure (HPE_…, ERR_HTTP_REQUEST_TIMEOUT). */
  errorCode: string | undefined;
}

/**
 * The edge of one listener. Wire `clientError` to the server's 'clientError' event and call `watch` once the
 * server exists; then `refusal` judges each request before the listener routes it, and `answering` is told
 * of every response sent before the request's body had arrived.
 */
export class Edge {
  // Connections whose request was answered before its body had arrived (a 401 is sent before the body is
  // read): when that body is too slow, the connection is closed without a second response.
  private readonly answeredEarly = new WeakSet<Socket>();
  private readonly unmetExpectations = new WeakSet<IncomingMessage>();

  constructor(
    private readonly render: RenderRefusal,
    private readonly log: (entry: EdgeRefusalLog) => void = () => undefined,
  ) {}

  /**
   * Requests Node's HTTP parser refuses (a control character in a header, headers over 16 KB, a bad
   * Content-Length, both Content-Length and Transfer-Encoding, an unknown HTTP version, …) never reach the
   * listener: they are answered here, 400 (P47), or 408 when not received in time (P66), and the connection
   * is closed.
   */
  readonly clientError = (error: Error, socket: Duplex): void => {
    const { code } = error as { code?: string };
    if (code === 'ECONNRESET' || socket.destroyed) return;
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    const answered = this.answeredEarly.has(socket as Socket) || inFlight?.headersSent === true;
    if (socket.writable && !answered) {
      const status = code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
      const requestId = randomUUID();
      const message =
        status === 408
          ? 'The request was not received in time.'
          : code === 'HPE_HEADER_OVERFLOW'
            ? 'The request headers are too large.'
            : 'The request is not valid HTTP.';
      socket.write(this.rawAnswer(status, invalidRequest(message), requestId));
      this.log({ requestId, status, errorCode: code });
    }
    socket.destroy(error);
  };

  /**
   * Node answers an `Expect` other than 100-continue with its own bare 417 unless someone listens: the request
   * goes to `route` instead, and `refusal` refuses it in the listener's shape (P67).
   */
  watch(server: Server, route: (request: IncomingMessage, response: ServerResponse) => void): void {
    server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
      this.unmetExpectations.add(request);
      route(request, response);
    });
  }

  /**
   * Why the request is not one to serve, or null: an HTTP version other than 1.0 and 1.1 (P111), a missing,
   * repeated or invalid Host (P67), an Expect other than 100-continue (P67). Checked before anything else,
   * the 404 of an unknown path included.
   */
  refusal(request: IncomingMessage): ApiError | null {
    const { httpVersionMajor: major, httpVersionMinor: minor } = request;
    // Node's parser takes `HTTP/2.0`, `HTTP/0.9` and a request line without a version (0.9) and would answer
    // them as HTTP/1.1; other versions it refuses itself (clientError).
    if (major !== 1 || (minor !== 0 && minor !== 1))
      return invalidRequest(
        `The request is not valid HTTP: HTTP/${major}.${minor} is not supported, only HTTP/1.1 and HTTP/1.0.`,
      );
    try {
      assertHost(request.httpVersion, request.rawHeaders);
    } catch (error) {
      if (error instanceof ApiError) return error;
      throw error;
    }
    if (this.unmetExpectations.has(request))
      return invalidRequest('The Expect header can only be 100-continue.', { header: 'Expect' });
    return null;
  }

  /** To be called as a response is sent: one sent before its request's body has arrived is remembered. */
  answering(request: IncomingMessage): void {
    if (request.complete !== false) return;
    const { socket } = request;
    this.answeredEarly.add(socket);
    request.once('end', () => this.answeredEarly.delete(socket));
  }

  /** A response written straight to the socket, for a request that never reached the listener. */
  private rawAnswer(status: number, error: ApiError, requestId: string): string {
    const { headers, body } = this.render(error, requestId);
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    return (
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
    );
  }
}
