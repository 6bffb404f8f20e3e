// `tprm mcp --http`: the MCP server over Streamable HTTP at POST /mcp, stateless (a server per request, as
// the SDK's stateless mode wants; tools hold no state between calls). A request may bring its own API key
// in `Authorization: Bearer …`, else the configured one is used (P92). On a loopback address, a Host or
// Origin that is not loopback is refused, so that a web page cannot reach the server through DNS
// rebinding and read the workspace with the configured key.
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { TprmClient } from '../../sdk/src/index.js';
import { isLoopback, MCP_PATH } from './address.js';
import { createMcpServer } from './server.js';

export interface HttpOptions {
  host: string;
  port: number;
  version: string;
  /** The client of a request's API key (theirs, or the configured one); undefined when neither exists. */
  clientFor(requestKey: string | undefined): TprmClient | undefined;
}

/** Starts listening; resolves with the server and the endpoint's URL. */
export async function serveHttp(options: HttpOptions): Promise<{ server: HttpServer; url: string }> {
  const loopback = isLoopback(options.host);
  const server = createServer((req, res) => {
    handle(req, res, options, loopback).catch((error: unknown) => {
      process.stderr.write(`tprm mcp: ${(error as Error)?.stack ?? String(error)}\n`);
      if (!res.headersSent) refuse(res, 500, -32603, 'Internal error.');
    });
  });
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
  loopback: boolean,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://mcp.invalid');
  if (url.pathname !== MCP_PATH) return refuse(res, 404, -32000, `Not found: the endpoint is ${MCP_PATH}.`);
  if (loopback && !(loopbackName(req.headers.host) && originAllowed(req.headers.origin)))
    return refuse(res, 403, -32000, 'Forbidden: the Host or Origin is not a loopback address.');
  // Stateless: no session to stream to (GET) or to end (DELETE).
  if (req.method !== 'POST') return refuse(res, 405, -32000, 'Method not allowed: POST only.');
  const bearer = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const client = options.clientFor(bearer);
  if (!client) {
    res.setHeader('www-authenticate', 'Bearer');
    return refuse(res, 401, -32001, 'No API key: send Authorization: Bearer <API key>.');
  }
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
  await transport.handleRequest(req, res);
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

function refuse(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
