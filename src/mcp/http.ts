// `tprm mcp --http`: the MCP server over Streamable HTTP at POST /mcp, stateless (a server per request, as
// the SDK's stateless mode wants; tools hold no state between calls). A request may bring its own API key
// in `Authorization: Bearer …`, else the configured one is used (P92). On a loopback address, a Host or
// Origin that is not loopback is refused, so that a web page cannot reach the server through DNS
// rebinding and read the workspace with the configured key. The edge is the API's (http/edge.ts: timeouts,
// HTTP version, Host, Expect, body reading), answered in JSON-RPC's error shape (P110, P111); a body is read
// here with the API's limit and parser, and a batch is capped (P112).
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { TprmClient } from '../../sdk/src/index.js';
import { ApiError } from '../contract/errors.js';
import { Edge, edgeServerOptions, type HttpTimeouts, MAX_BODY_BYTES, parseJsonBody } from '../http/edge.js';
import { isLoopback, MCP_PATH } from './address.js';
import { JSONRPC_ERROR, jsonRpcError } from './errors.js';
import { createMcpServer } from './server.js';

/** The most messages one JSON-RPC batch may hold: each tool call in it is a request to the API (P112). */
export const MAX_BATCH_MESSAGES = 10;

export interface HttpOptions extends HttpTimeouts {
  host: string;
  port: number;
  version: string;
  /** The client of a request's API key (theirs, or the configured one); undefined when neither exists. */
  clientFor(requestKey: string | undefined): TprmClient | undefined;
}

/** Starts listening; resolves with the server and the endpoint's URL. */
export async function serveHttp(options: HttpOptions): Promise<{ server: HttpServer; url: string }> {
  const loopback = isLoopback(options.host);
  const edge = new Edge((error) => ({
    headers: { 'Content-Type': 'application/json' },
    body: jsonRpcError(JSONRPC_ERROR.refused, error.message),
  }));
  const route = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res, options, { edge, loopback }).catch((error: unknown) => {
      // A connection already closed (the client left, or the request timed out): nobody to answer.
      if (req.socket.destroyed) return;
      process.stderr.write(`tprm mcp: ${(error as Error)?.stack ?? String(error)}\n`);
      if (!res.headersSent) refuse(res, edge, 500, JSONRPC_ERROR.internal, 'Internal error.');
    });
  };
  const server = createServer(edgeServerOptions(options), route);
  server.on('clientError', edge.clientError);
  edge.watch(server, route);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  const shown = address.includes(':') ? `[${address}]` : address;
  return { server, url: `http://${shown}:${port}${MCP_PATH}` };
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  options: HttpOptions,
  { edge, loopback }: { edge: Edge; loopback: boolean },
): Promise<void> {
  const refusal = edge.refusal(req);
  if (refusal) return refuse(res, edge, refusal.status, JSONRPC_ERROR.refused, refusal.message);
  const url = new URL(req.url ?? '/', 'http://mcp.invalid');
  if (url.pathname !== MCP_PATH)
    return refuse(res, edge, 404, JSONRPC_ERROR.refused, `Not found: the endpoint is ${MCP_PATH}.`);
  if (loopback && !(loopbackName(req.headers.host) && originAllowed(req.headers.origin)))
    return refuse(
      res,
      edge,
      403,
      JSONRPC_ERROR.refused,
      'Forbidden: the Host or Origin is not a loopback address.',
    );
  // Stateless: no session to stream to (GET) or to end (DELETE).
  if (req.method !== 'POST')
    return refuse(res, edge, 405, JSONRPC_ERROR.refused, 'Method not allowed: POST only.');
  const bearer = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const client = options.clientFor(bearer);
  if (!client) {
    res.setHeader('www-authenticate', 'Bearer');
    return refuse(res, edge, 401, JSONRPC_ERROR.noKey, 'No API key: send Authorization: Bearer <API key>.');
  }
  const body = await readBody(req, MAX_BODY_BYTES);
  if (body === null) {
    // The rest of the body is read and dropped, so that the answer reaches the client (a connection closed
    // on unread bytes is reset, and the answer with it); the request timeout bounds how long.
    req.resume();
    return refuse(
      res,
      edge,
      413,
      JSONRPC_ERROR.refused,
      `Payload Too Large: the request body must not exceed ${MAX_BODY_BYTES} bytes.`,
    );
  }
  let message: unknown;
  try {
    message = parseJsonBody(body);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return refuse(res, edge, 400, JSONRPC_ERROR.parse, `Parse error: ${error.message}`);
  }
  if (Array.isArray(message) && message.length > MAX_BATCH_MESSAGES)
    return refuse(
      res,
      edge,
      400,
      JSONRPC_ERROR.invalidRequest,
      `Invalid Request: a batch must not hold more than ${MAX_BATCH_MESSAGES} messages.`,
    );
  const mcp = createMcpServer(client, options.version);
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void mcp.close();
  });
  await mcp.connect(transport);
  await transport.handleRequest(req, res, message);
}

/** The request's body, or null as soon as it is known to exceed `limit` bytes (what is left is not read). */
async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  if (Number(req.headers['content-length']) > limit) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  // Not destroyed on leaving the loop early: the rest is still to be drained.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A Host header naming a loopback address (any port). */
function loopbackName(host: string | undefined): boolean {
  if (!host) return false;
  return isLoopback(host.replace(/:\d+$/, ''));
}

/** No Origin (not a browser), or a loopback one. */
function originAllowed(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  return URL.canParse(origin) && isLoopback(new URL(origin).hostname);
}

function refuse(res: ServerResponse, edge: Edge, status: number, code: number, message: string): void {
  edge.answering(res.req);
  const body = jsonRpcError(code, message);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
