// Where `tprm mcp --http` listens, without loading the MCP SDK (the CLI's start-up stays light).

export const MCP_PATH = '/mcp';

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]', '::1'];

/** A host name or address of this machine only. */
export const isLoopback = (host: string): boolean =>
  LOOPBACK_HOSTS.includes(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
