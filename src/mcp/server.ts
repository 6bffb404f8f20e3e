// The MCP server of `tprm mcp`: the tools, prompts and resources of catalog.ts and prompts.ts over the SDK's
// low-level Server. Every tool call is one GET of the public API through @tprm/client with the configured
// key, so the key's workspace, scopes, pii:read redaction and rate limits apply unchanged; an error answer
// is the tool's result (isError, the API's error body), never a failure of the server (P90).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import { TprmApiError, type TprmClient, TprmError } from '../../sdk/src/index.js';
import { type AgentTool, agentTools, enumVocabulary } from './catalog.js';
import { agentPrompts, renderPrompt } from './prompts.js';

const INSTRUCTIONS = [
  "Read-only access to one workspace of a third-party risk data API (the API key's workspace): suppliers,",
  'assessments and gaps, reports, assets, business context, risks, action plans, alerts, insights, the audit',
  "log and webhook deliveries. Each tool is one GET of the API and answers the API's JSON. Lists answer one",
  'page of 20 rows unless `limit` asks for more: pass `meta.next_cursor` as `cursor` (same filters) while',
  '`meta.has_more` is true. To find a supplier by name or domain, use search_suppliers. Personal fields are',
  'absent unless the key has pii:read; a scope the key lacks answers an insufficient_scope error. The',
  'resources hold the OpenAPI document and the enumerated values of every field.',
].join(' ');

const JSON_TYPE = 'application/json';

/** The resources: what the tools are made from, for an agent that wants the whole picture. */
const RESOURCES: { resource: Resource; text: () => string | Promise<string> }[] = [
  {
    resource: {
      uri: 'tprm://openapi.json',
      name: 'openapi.json',
      title: 'OpenAPI document of the API',
      description: 'The OpenAPI 3.1 document of the public API: every operation, parameter and schema.',
      mimeType: JSON_TYPE,
    },
    // Built on first read: the document's generator (its examples come from the seed) is not loaded before.
    text: async () => (await import('../openapi/document.js')).apiDocumentText(),
  },
  {
    resource: {
      uri: 'tprm://vocabulary.json',
      name: 'vocabulary.json',
      title: 'Enumerated values of every field',
      description:
        'The allowed values of each enumerated field, by resource: {"Supplier": {"criticality": [...]}}.',
      mimeType: JSON_TYPE,
    },
    text: () => `${JSON.stringify(enumVocabulary(), null, 2)}\n`,
  },
];

const toolsByName = new Map(agentTools.map((entry) => [entry.tool.name, entry]));

/** A server for one connection; `client` carries the API key its calls use. */
export function createMcpServer(client: TprmClient, version: string): Server {
  const server = new Server(
    { name: 'tprm-api', title: 'Third-party risk data API', version },
    { capabilities: { tools: {}, prompts: {}, resources: {} }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: agentTools.map((entry) => entry.tool) }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const entry = toolsByName.get(params.name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `No tool named ${params.name}.`);
    return callTool(client, entry, params.arguments ?? {});
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...agentPrompts] }));
  server.setRequestHandler(GetPromptRequestSchema, ({ params }) =>
    renderPrompt(params.name, params.arguments),
  );
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: RESOURCES.map((entry) => entry.resource),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => {
    const entry = RESOURCES.find((candidate) => candidate.resource.uri === params.uri);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `No resource ${params.uri}.`);
    return { contents: [{ uri: params.uri, mimeType: JSON_TYPE, text: await entry.text() }] };
  });
  return server;
}

const text = (value: unknown): CallToolResult['content'][number] => ({
  type: 'text',
  text: JSON.stringify(value),
});

/**
 * One GET: the arguments named after the path parameter fill the path, the rest are the query (the API
 * validates them and answers 400 for anything it does not take).
 */
async function callTool(
  client: TprmClient,
  entry: AgentTool,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const { [entry.pathParameter ?? '']: id, ...given } = args;
  // The agents' defaults (a smaller limit) where the agent named none; a cut's limit is the tool's own.
  const query: Record<string, unknown> = { ...entry.defaults, ...given };
  const cutAt = entry.cut ? (query[entry.cut.argument] ?? entry.cut.default) : undefined;
  if (entry.cut) {
    delete query[entry.cut.argument];
    if (!Number.isInteger(cutAt) || (cutAt as number) < 1 || (cutAt as number) > entry.cut.maximum)
      return {
        isError: true,
        content: [
          {
            type: 'text',
            text: `The argument ${entry.cut.argument} must be an integer from 1 to ${entry.cut.maximum}.`,
          },
        ],
      };
  }
  // Checked here: a path without its id would name another resource (`/suppliers/{id}` literally).
  if (entry.pathParameter !== undefined && typeof id !== 'string')
    return {
      isError: true,
      content: [{ type: 'text', text: `The argument ${entry.pathParameter} is required.` }],
    };
  try {
    const answer = await client.get(entry.path, { id: id as string | undefined, query });
    const location = (answer as { location?: unknown }).location;
    // A redirect (the report PDF): the signed URL, as a link the client can open (P91).
    if (typeof location === 'string')
      return {
        content: [
          text(answer),
          {
            type: 'resource_link',
            uri: location,
            name: entry.tool.name,
            description: 'Signed download URL: needs no key, valid for a few minutes.',
          },
        ],
      };
    if (entry.cut) return cutAnswer(answer, cutAt as number, entry.cut.mostSevereFirst);
    return { content: [text(answer)] };
  } catch (error) {
    // The API's own error body, as it sent it: the agent branches on error.code like any client.
    if (error instanceof TprmApiError)
      return {
        isError: true,
        content: [
          text({
            error: {
              code: error.code,
              message: error.message,
              request_id: error.request_id,
              ...(error.details ? { details: error.details } : {}),
            },
          }),
        ],
      };
    // No answer (connection refused, timeout), or an id the SDK will not put in a path.
    if (error instanceof TprmError || error instanceof TypeError)
      return { isError: true, content: [{ type: 'text', text: error.message }] };
    throw error;
  }
}

/**
 * An answer the API never pages, cut to `limit` rows for an agent's context: the most severe kept (ties in the
 * API's order), shown in the API's order; `meta.has_more` true and `meta.left_out` the count of the rest, and a
 * note in words.
 */
function cutAnswer(answer: unknown, limit: number, mostSevereFirst: string[]): CallToolResult {
  const { data, meta } = answer as { data: { severity?: string }[]; meta: Record<string, unknown> };
  if (data.length <= limit)
    return { content: [text({ ...(answer as object), meta: { ...meta, left_out: 0 } })] };
  const rank = (row: { severity?: string }) => {
    const found = mostSevereFirst.indexOf(row.severity ?? '');
    return found < 0 ? mostSevereFirst.length : found;
  };
  const kept = new Set(
    data
      .map((row, index) => ({ row, index }))
      .sort((a, b) => rank(a.row) - rank(b.row) || a.index - b.index)
      .slice(0, limit)
      .map(({ row }) => row),
  );
  const leftOut = data.length - limit;
  return {
    content: [
      text({
        ...(answer as object),
        data: data.filter((row) => kept.has(row)),
        meta: { ...meta, has_more: true, left_out: leftOut },
      }),
      {
        type: 'text',
        text:
          `${leftOut} of ${data.length} gaps left out (the ${limit} most severe are shown). ` +
          'Pass severity to see one severity at a time, or a larger limit.',
      },
    ],
  };
}
