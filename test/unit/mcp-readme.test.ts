// The MCP configuration snippets of the README (P165): each is marked with the client it is for, parses as
// JSON, and has the shape that client documents: Claude Desktop and Cursor `mcpServers` (Claude Desktop: stdio
// only, no `type`), VS Code `servers` with a `type` on each, Claude Code `mcpServers` with a `type`. A stdio
// entry starts `tprm mcp` with the key in `env`; a remote one names the `/mcp` endpoint.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const README = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
const section = README.slice(
  README.indexOf('## MCP server'),
  README.indexOf('\n## ', README.indexOf('## MCP server') + 1),
);

type Entry = Record<string, unknown>;
const CLIENTS: Record<string, { top: 'mcpServers' | 'servers'; check(entry: Entry): string | null }> = {
  'claude-desktop': { top: 'mcpServers', check: (entry) => stdio(entry, { type: 'absent' }) },
  cursor: {
    top: 'mcpServers',
    check: (entry) => ('url' in entry ? remote(entry, 'absent') : stdio(entry, { type: 'absent' })),
  },
  vscode: {
    top: 'servers',
    check: (entry) => (entry.type === 'http' ? remote(entry, 'http') : stdio(entry, { type: 'stdio' })),
  },
  'claude-code': {
    top: 'mcpServers',
    check: (entry) => (entry.type === 'http' ? remote(entry, 'http') : stdio(entry, { type: 'stdio' })),
  },
};
const ALLOWED_TOP = { mcpServers: ['mcpServers'], servers: ['servers', 'inputs'] };

function typeProblem(entry: Entry, type: string): string | null {
  if (type === 'absent') return 'type' in entry ? 'no `type` in this client' : null;
  return entry.type === type ? null : `type must be ${type}`;
}

function stdio(entry: Entry, { type }: { type: string }): string | null {
  const known = new Set(['type', 'command', 'args', 'env']);
  const extra = Object.keys(entry).filter((key) => !known.has(key));
  if (extra.length) return `unknown fields ${extra}`;
  if (entry.command !== 'node') return 'command node';
  const args = entry.args as unknown[];
  if (
    !Array.isArray(args) ||
    args.length !== 2 ||
    !String(args[0]).endsWith('/bin/tprm.js') ||
    args[1] !== 'mcp'
  )
    return 'args [<path>/bin/tprm.js, mcp]';
  const env = entry.env as Record<string, unknown>;
  if (!env || typeof env !== 'object') return 'env';
  if (!Object.values(env).every((value) => typeof value === 'string')) return 'env values are strings';
  if (!Object.keys(env).every((key) => key === 'TPRM_API_URL' || key === 'TPRM_API_KEY')) return 'env names';
  if (!('TPRM_API_KEY' in env)) return 'the key in env';
  return typeProblem(entry, type);
}

function remote(entry: Entry, type: string): string | null {
  const extra = Object.keys(entry).filter((key) => !['type', 'url', 'headers'].includes(key));
  if (extra.length) return `unknown fields ${extra}`;
  const url = new URL(String(entry.url));
  if (url.pathname !== '/mcp') return 'url ends with /mcp';
  return typeProblem(entry, type);
}

/** Every ```json block of the MCP section with the client named by the marker just before it (or none). */
function snippets(): { client: string | null; text: string }[] {
  const found: { client: string | null; text: string }[] = [];
  const pattern = /(?:<!-- mcp-config: ([a-z-]+) -->\s*)?```json\n([\s\S]*?)```/g;
  for (const match of section.matchAll(pattern))
    found.push({ client: match[1] ?? null, text: match[2] as string });
  return found;
}

describe('the README MCP configuration snippets', () => {
  test('every JSON snippet names its client, and every client has a stdio one', () => {
    const all = snippets();
    assert.ok(all.length >= 7, `${all.length} snippets`);
    for (const { client, text } of all)
      assert.ok(client && client in CLIENTS, `unmarked or unknown: ${text}`);
    for (const client of Object.keys(CLIENTS))
      assert.ok(
        all.some((snippet) => snippet.client === client && snippet.text.includes('"command"')),
        client,
      );
  });

  test("each parses as JSON in its client's documented shape", () => {
    for (const { client, text } of snippets()) {
      const spec = CLIENTS[client as string];
      assert.ok(spec);
      const config = JSON.parse(text) as Record<string, unknown>;
      assert.deepEqual(
        Object.keys(config).filter((key) => !ALLOWED_TOP[spec.top].includes(key)),
        [],
        `${client}: top-level keys ${Object.keys(config)}`,
      );
      const servers = config[spec.top] as Record<string, Entry>;
      assert.ok(servers && typeof servers === 'object', `${client}: ${spec.top}`);
      for (const [name, entry] of Object.entries(servers))
        assert.equal(spec.check(entry), null, `${client} ${name}: ${JSON.stringify(entry)}`);
      // VS Code: an `${input:id}` names an input the file declares.
      for (const [, id] of text.matchAll(/\$\{input:([^}]+)\}/g)) {
        assert.equal(client, 'vscode', 'inputs are VS Code’s');
        assert.ok(
          (config.inputs as { id: string }[]).some((input) => input.id === id),
          id,
        );
      }
    }
  });

  test('the checks refuse the shapes clients do not take', () => {
    assert.notEqual(
      CLIENTS.vscode?.check({ command: 'node', args: ['/x/bin/tprm.js', 'mcp'], env: { TPRM_API_KEY: 'k' } }),
      null,
    );
    assert.notEqual(
      CLIENTS['claude-desktop']?.check({
        type: 'stdio',
        command: 'node',
        args: ['/x/bin/tprm.js', 'mcp'],
        env: { TPRM_API_KEY: 'k' },
      }),
      null,
    );
    assert.notEqual(CLIENTS.cursor?.check({ url: 'http://127.0.0.1:8090/' }), null);
    assert.notEqual(CLIENTS['claude-desktop']?.check({ url: 'http://127.0.0.1:8090/mcp' }), null);
  });
});
