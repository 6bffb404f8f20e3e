// `tprm mcp`: the read-only MCP server for AI agents (src/mcp/), on stdio or Streamable HTTP, talking to the
// public API with an API key through the SDK. It needs neither the management API nor a database. The MCP
// SDK (and the ajv it brings) is loaded when the command runs, not at every start of the CLI.
import { type Command, Option } from 'commander';
import { createClient } from '../../../sdk/src/index.js';
import type { HttpTimeouts } from '../../http/edge.js';
import { isLoopback, MCP_PATH } from '../../mcp/address.js';
import { packageVersion } from '../../version.js';
import { CliError } from '../errors.js';
import { examples, integer } from '../options.js';

export const DEFAULT_API_URL = 'http://127.0.0.1:8080/v1';
const DEFAULT_MCP_PORT = 8090;

interface McpOptions {
  apiUrl?: string;
  apiKey?: string;
  http?: boolean;
  port: number;
  host: string;
}

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('serve the public API to AI agents as a read-only MCP server (stdio, or --http)')
    .option('--api-url <url>', `the public API, /v1 included (default: $TPRM_API_URL or ${DEFAULT_API_URL})`)
    .option('--api-key <key>', 'the API key the tools use (default: $TPRM_API_KEY; prefer the variable)')
    .option('--http', `serve Streamable HTTP at ${MCP_PATH} instead of stdio`)
    .addOption(
      new Option('--port <n>', 'port of --http (0: any free port)')
        .default(DEFAULT_MCP_PORT)
        .argParser(integer(0, 65535)),
    )
    .option('--host <address>', 'address of --http', '127.0.0.1')
    .addHelpText(
      'after',
      `
Each tool is one GET of the API with the key: its workspace, scopes, pii:read and rate limits apply.
With --http, a request's own "Authorization: Bearer <API key>" replaces the configured key; the
configured key is only served on a loopback address. REQUEST_TIMEOUT (30s) and KEEP_ALIVE_TIMEOUT (5s)
apply as they do to the service.
${examples([
  'TPRM_API_KEY=tprm_… tprm mcp',
  'TPRM_API_KEY=tprm_… tprm mcp --http --port 8090',
  'cd dist && npx mcp-inspector-cli --cli -e TPRM_API_KEY=tprm_… node ../bin/tprm.js mcp --method tools/list',
])}`,
    )
    .action(async (opts: McpOptions) => {
      const base = opts.apiUrl || process.env.TPRM_API_URL || DEFAULT_API_URL;
      if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol))
        throw new CliError(`The API URL "${base}" is not an http(s) URL (TPRM_API_URL or --api-url).`);
      const configuredKey = opts.apiKey || process.env.TPRM_API_KEY || undefined;
      const clientFor = (key: string | undefined) =>
        key ? createClient({ baseUrl: base, apiKey: key }) : undefined;
      const version = packageVersion();
      if (opts.http) {
        if (configuredKey && !isLoopback(opts.host))
          throw new CliError(
            `Refusing to serve the configured API key on ${opts.host}: on a non-loopback address, unset ` +
              'TPRM_API_KEY (and --api-key) so that each client sends its own key.',
          );
        const [{ serveHttp }, { ConfigError, httpTimeouts }] = await Promise.all([
          import('../../mcp/http.js'),
          import('../../config.js'),
        ]);
        let timeouts: HttpTimeouts;
        try {
          timeouts = httpTimeouts(process.env);
        } catch (error) {
          throw error instanceof ConfigError ? new CliError(error.message) : error;
        }
        const { server, url } = await serveHttp({
          ...timeouts,
          host: opts.host,
          port: opts.port,
          version,
          clientFor: (requestKey) => clientFor(requestKey ?? configuredKey),
        });
        process.stderr.write(`tprm mcp: Streamable HTTP on ${url} (API ${base})\n`);
        await untilSignal();
        await new Promise((resolve) => server.close(resolve));
        return;
      }
      const client = clientFor(configuredKey);
      if (!client) throw new CliError('No API key: set TPRM_API_KEY (or pass --api-key).');
      const [{ createMcpServer }, { serveStdio }] = await Promise.all([
        import('../../mcp/server.js'),
        import('../../mcp/stdio.js'),
      ]);
      // The client ends the session by closing our stdin.
      await serveStdio(createMcpServer(client, version));
    });
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
}
