// JSON-RPC's error answers, as both transports of `tprm mcp` write them for a message they refuse before the
// MCP server reads it. Loaded without the MCP SDK.

/** The error codes used here: a request the HTTP layer refuses is -32000, as the MCP SDK does. */
export const JSONRPC_ERROR = {
  parse: -32700,
  invalidRequest: -32600,
  internal: -32603,
  refused: -32000,
  noKey: -32001,
} as const;

/** A JSON-RPC error answer to no particular message (`id` null: the message was not read as one). */
export function jsonRpcError(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}
