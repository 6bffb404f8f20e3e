// The MCP server (`tprm mcp`, src/mcp/) for AI agents: the real tprm command as a child process, on stdio and
// on Streamable HTTP, against the real API listening on loopback, driven by the MCP SDK's own client (and by
// @modelcontextprotocol/inspector-cli). One read-only tool per public GET of the route table; results are the
// API's JSON; the key's scopes and pii:read apply as they do to any client (risk-data-api.md "Authentication",
// decision 6 of the product on pii:read); a 429 is waited out per Retry-After (risk-data-api.md "Errors").
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { importCollectionNames } from '../src/management/import.js';
import { generateSeedDocument } from '../src/management/seed/index.js';
import { toolName } from '../src/mcp/catalog.js';
import { ProcessingActivity } from '../src/resources/context/schema.js';
import { publicRoutes } from '../src/resources/index.js';
import { Supplier } from '../src/resources/suppliers/schema.js';
import { Criticality, SCOPES, type Scope } from '../src/schema/fields.js';
import { type Finished, finished } from './support/child.js';
import { Harness, type TestWorkspace } from './support/harness.js';
import { scrape } from './support/metrics.js';
import { freePort } from './support/redis.js';
import { CITATION } from './support/string-literals.js';

// Compiled to dist/test/mcp.test.js; the launcher lives in bin/ at the project root.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = `${ROOT}bin/tprm.js`;
const INSPECTOR = `${ROOT}node_modules/@modelcontextprotocol/inspector-cli/build/cli.js`;

/** The tools the route table calls for: one per public GET operation. */
const EXPECTED_TOOLS = publicRoutes
  .filter((route) => route.method === 'GET')
  .map((route) => toolName(route.operationId));

const personal = (resource: { fields: Record<string, { pii?: boolean }> }) =>
  Object.entries(resource.fields).flatMap(([name, spec]) => (spec.pii ? [name] : []));

/** The environment of a child tprm: only what it needs (no DATABASE_URL, no admin token). */
function childEnv(apiUrl: string, key?: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '', TPRM_API_URL: apiUrl, ...(key ? { TPRM_API_KEY: key } : {}) };
}

/** `tprm mcp --http …`; resolves with the endpoint URL it prints once listening. */
function startHttp(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const url = new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      const found = /Streamable HTTP on (\S+)/.exec(stderr);
      if (found) resolve(found[1] as string);
    });
    void exited.then((code) => reject(new Error(`tprm mcp exited with ${code}: ${stderr}`)));
  });
  // A process that fails to start is awaited through `exited` by the tests that expect it.
  url.catch(() => undefined);
  return { child, url, exited, stderr: () => stderr };
}

/** The API's JSON of a tool result (its one text item). */
// biome-ignore lint/suspicious/noExplicitAny: test assertions read arbitrary JSON
function json(result: unknown): any {
  const content = (result as CallToolResult).content;
  const first = content[0];
  assert.ok(first && first.type === 'text', `a text result: ${JSON.stringify(result)}`);
  return JSON.parse(first.text);
}

type Transport = 'stdio' | 'http';

describe('tprm mcp', () => {
  let h: Harness;
  let apiUrl: string;
  let ws: TestWorkspace;
  let noPiiKey: string;
  let noRisksKey: string;
  let http: ReturnType<typeof startHttp>;
  const clients: Client[] = [];
  const seed = generateSeedDocument({ size: { suppliers: 8 }, seed: 15 });

  before(async () => {
    const port = await freePort();
    h = await Harness.start({ env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
    await h.publicApp.listen({ port, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${port}/v1`;
    ws = await h.workspace();
    const known = new Set(importCollectionNames());
    await h.import(ws.id, Object.fromEntries(Object.entries(seed).filter(([name]) => known.has(name))));
    const without = (scope: Scope) => SCOPES.filter((candidate) => candidate !== scope);
    noPiiKey = (await h.key(ws.id, ws.userId, without('pii:read'))).secret;
    noRisksKey = (await h.key(ws.id, ws.userId, without('risks:read'))).secret;
    // The HTTP server is configured with the full key; clients with another key send it themselves.
    http = startHttp(childEnv(apiUrl, ws.key));
    await http.url;
  });
  after(async () => {
    await Promise.all(clients.map((client) => client.close()));
    http?.child.kill('SIGTERM');
    await http?.exited;
    await h.close();
  });

  /** An MCP client connected to `tprm mcp` over `transport`, acting with `key`. */
  async function connect(transport: Transport, key: string): Promise<Client> {
    const client = new Client({ name: 'tprm-mcp-test', version: '1.0.0' });
    if (transport === 'stdio') {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'mcp'],
          env: childEnv(apiUrl, key),
        }),
      );
    } else {
      const headers: Record<string, string> = key === ws.key ? {} : { authorization: `Bearer ${key}` };
      await client.connect(
        new StreamableHTTPClientTransport(new URL(await http.url), { requestInit: { headers } }),
      );
    }
    clients.push(client);
    return client;
  }

  for (const transport of ['stdio', 'http'] as const) {
    describe(`over ${transport}`, () => {
      let client: Client;
      before(async () => {
        client = await connect(transport, ws.key);
      });

      test('its tools, prompts and resources cite no decision (P123)', async () => {
        const listed = {
          tools: (await client.listTools()).tools,
          prompts: (await client.listPrompts()).prompts,
          resources: (await client.listResources()).resources,
        };
        assert.ok(listed.tools.length > 20 && listed.prompts.length > 0 && listed.resources.length > 0);
        const text = JSON.stringify(listed);
        assert.doesNotMatch(text, CITATION);
      });

      test('lists one read-only tool per public GET operation, with its filters, limit and cursor', async () => {
        const { tools } = await client.listTools();
        assert.deepEqual(
          tools.map((tool) => tool.name),
          EXPECTED_TOOLS,
        );
        // The committed document agrees: its keyed GET operations are the tools.
        const document = JSON.parse(readFileSync(`${ROOT}openapi.json`, 'utf8'));
        const keyedGets = Object.values(
          document.paths as Record<
            string,
            Record<string, { operationId: string; 'x-required-scope'?: string }>
          >,
        ).flatMap((operations) =>
          operations.get?.['x-required-scope'] ? [toolName(operations.get.operationId)] : [],
        );
        assert.deepEqual(keyedGets, EXPECTED_TOOLS);
        for (const tool of tools) {
          assert.equal(tool.annotations?.readOnlyHint, true, `${tool.name} is read-only`);
          assert.ok(/needs the [a-z-]+:read scope/.test(tool.description ?? ''), tool.name);
        }
        const listSuppliers = tools.find((tool) => tool.name === 'list_suppliers');
        const properties = listSuppliers?.inputSchema.properties as Record<string, { enum?: string[] }>;
        assert.ok(properties.limit && properties.cursor, 'limit and cursor');
        assert.deepEqual(properties.criticality?.enum, [...Criticality]);
        const getSupplier = tools.find((tool) => tool.name === 'get_supplier');
        assert.deepEqual(getSupplier?.inputSchema.required, ['id']);
      });

      test("calls tools with filters and cursors: the results are the API's JSON", async () => {
        const sameAsApi = async (name: string, args: Record<string, unknown>, path: string) => {
          const result = await client.callTool({ name, arguments: args });
          assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result)}`);
          const api = await h.api('GET', path, { key: ws.key });
          assert.equal(api.status, 200, path);
          assert.deepEqual(json(result), api.json, name);
          return json(result);
        };
        const active = await sameAsApi('list_suppliers', { status: 'active' }, '/suppliers?status=active');
        assert.ok(active.data.length > 0);
        assert.ok(active.data.every((supplier: { status: string }) => supplier.status === 'active'));
        const first = await sameAsApi('list_suppliers', { limit: 2 }, '/suppliers?limit=2');
        assert.equal(first.meta.has_more, true, 'the seed has 8 suppliers');
        const cursor = first.meta.next_cursor;
        const second = await sameAsApi(
          'list_suppliers',
          { limit: 2, cursor },
          `/suppliers?limit=2&cursor=${encodeURIComponent(cursor)}`,
        );
        assert.notDeepEqual(second.data, first.data);
        const supplier = first.data[0];
        await sameAsApi('get_supplier', { id: supplier.id }, `/suppliers/${supplier.id}`);
        await sameAsApi(
          'list_assessments',
          { status: 'completed', limit: 5 },
          '/assessments?status=completed&limit=5',
        );
        const plans = await sameAsApi('list_action_plans', { limit: 200 }, '/action-plans?limit=200');
        const plan = plans.data.find((candidate: { item_count: number }) => candidate.item_count > 0);
        assert.ok(plan, 'a plan with items');
        const items = await sameAsApi(
          'list_action_plan_items',
          { id: plan.id, overdue: false },
          `/action-plans/${plan.id}/items?overdue=false`,
        );
        assert.ok(items.data.length > 0);
        await sameAsApi('get_risk_matrix', { scope: 'cyber' }, '/risk-matrix?scope=cyber');
        await sameAsApi('list_alerts', { unresolved: true }, '/alerts?unresolved=true');

        // A filter value the API refuses: its 400, in the tool result.
        const refused = await client.callTool({
          name: 'list_suppliers',
          arguments: { criticality: 'extreme' },
        });
        assert.equal(refused.isError, true);
        assert.equal(json(refused).error.code, 'invalid_request');
      });

      test('the report PDF tool gives the signed download link, which serves the PDF', async () => {
        const reports = json(await client.callTool({ name: 'list_reports', arguments: { limit: 1 } }));
        const report = reports.data[0];
        assert.ok(report, 'the seed has a report');
        assert.equal((await h.admin('POST', `/admin/reports/${report.id}/render`, {})).status, 200);
        const result = await client.callTool({ name: 'get_report_pdf', arguments: { id: report.id } });
        assert.notEqual(result.isError, true, JSON.stringify(result));
        const link = (result as CallToolResult).content.find((item) => item.type === 'resource_link');
        assert.ok(link && link.type === 'resource_link');
        assert.equal(json(result).location, link.uri);
        const file = await fetch(link.uri);
        assert.equal(file.status, 200);
        assert.equal(
          Buffer.from(await file.arrayBuffer())
            .subarray(0, 5)
            .toString('latin1'),
          '%PDF-',
        );
      });

      test('a key without pii:read gets no personal fields; with it, they are there', async () => {
        const redacted = await connect(transport, noPiiKey);
        for (const [name, fields] of [
          ['list_suppliers', personal(Supplier)],
          ['list_processing_activities', personal(ProcessingActivity)],
        ] as const) {
          assert.ok(fields.length > 0);
          const full = json(await client.callTool({ name, arguments: { limit: 20 } }));
          const partial = json(await redacted.callTool({ name, arguments: { limit: 20 } }));
          assert.ok(full.data.length > 0, `${name} has rows`);
          assert.deepEqual(
            partial.data.map((item: { id: string }) => item.id),
            full.data.map((item: { id: string }) => item.id),
          );
          for (const item of full.data)
            for (const field of fields) assert.ok(field in item, `${name}: ${field}`);
          for (const item of partial.data)
            for (const field of fields) assert.ok(!(field in item), `${name}: ${field} is absent, not null`);
        }
        const supplier = json(await client.callTool({ name: 'list_suppliers', arguments: { limit: 1 } }))
          .data[0];
        const one = json(await redacted.callTool({ name: 'get_supplier', arguments: { id: supplier.id } }));
        assert.ok(!('email' in one) && !('contacts' in one));
      });

      test("a key without a scope gets the API's 403 as the tool result, and the server goes on", async () => {
        const limited = await connect(transport, noRisksKey);
        const result = await limited.callTool({ name: 'list_risks', arguments: {} });
        assert.equal(result.isError, true);
        const body = json(result);
        assert.equal(body.error.code, 'insufficient_scope');
        assert.equal(body.error.details.required_scope, 'risks:read');
        assert.match(body.error.request_id, /^[0-9a-f-]{36}$/);
        const next = await limited.callTool({ name: 'list_suppliers', arguments: { limit: 1 } });
        assert.notEqual(next.isError, true);
        // An id that is no resource of the workspace: the API's 404.
        const missing = await limited.callTool({
          name: 'get_supplier',
          arguments: { id: '00000000-0000-4000-8000-000000000000' },
        });
        assert.equal(json(missing).error.code, 'resource_not_found');
        const noId = await limited.callTool({ name: 'get_supplier', arguments: {} });
        assert.equal(noId.isError, true);
        assert.match(JSON.stringify(noId.content), /argument id is required/);
      });

      test('prompts for common questions, naming only tools that exist', async () => {
        const { prompts } = await client.listPrompts();
        assert.deepEqual(
          prompts.map((prompt) => prompt.name),
          ['supplier_risk_summary', 'overdue_action_items'],
        );
        const overdue = await client.getPrompt({
          name: 'overdue_action_items',
          arguments: { criticality: 'high' },
        });
        const summary = await client.getPrompt({
          name: 'supplier_risk_summary',
          arguments: { supplier_id: '00000000-0000-4000-8000-000000000000' },
        });
        for (const prompt of [overdue, summary]) {
          const text = prompt.messages
            .map((message) => (message.content.type === 'text' ? message.content.text : ''))
            .join('\n');
          const named = [...text.matchAll(/\b((?:list|get)_[a-z_]+)\b/g)].map((match) => match[1] as string);
          assert.ok(named.length >= 3);
          for (const name of named) assert.ok(EXPECTED_TOOLS.includes(name), `${name} is a tool`);
        }
        assert.match(JSON.stringify(overdue.messages), /high suppliers have overdue action items/);
        await assert.rejects(
          client.getPrompt({ name: 'supplier_risk_summary', arguments: {} }),
          /supplier_id/,
        );
        await assert.rejects(
          client.getPrompt({ name: 'overdue_action_items', arguments: { criticality: 'extreme' } }),
          /criticality/,
        );
      });

      test('resources: the OpenAPI document and the enum vocabulary', async () => {
        const { resources } = await client.listResources();
        assert.deepEqual(
          resources.map((resource) => resource.uri),
          ['tprm://openapi.json', 'tprm://vocabulary.json'],
        );
        const document = await client.readResource({ uri: 'tprm://openapi.json' });
        const text = (document.contents[0] as { text: string }).text;
        assert.equal(text, readFileSync(`${ROOT}openapi.json`, 'utf8'), 'the committed document');
        const vocabulary = JSON.parse(
          ((await client.readResource({ uri: 'tprm://vocabulary.json' })).contents[0] as { text: string })
            .text,
        );
        assert.deepEqual(vocabulary.Supplier.criticality, [...Criticality]);
        assert.deepEqual(vocabulary.Supplier.status, ['active', 'inactive', 'pending']);
        assert.ok(vocabulary.ActionPlanItem.status.includes('overdue'));
      });
    });
  }

  describe('over HTTP only', () => {
    test('a request without a key, when none is configured, is refused with 401', async () => {
      const keyless = startHttp(childEnv(apiUrl));
      try {
        const response = await fetch(await keyless.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        assert.equal(response.status, 401);
      } finally {
        keyless.child.kill('SIGTERM');
        assert.equal(await keyless.exited, 0, 'stops cleanly on SIGTERM');
      }
    });

    test('a browser page cannot reach the loopback server (Host and Origin checked)', async () => {
      const url = new URL(await http.url);
      const post = (headers: Record<string, string>) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
      assert.equal((await post({ origin: 'https://evil.example' })).status, 403);
      assert.equal((await post({ origin: `http://localhost:${url.port}` })).status, 200);
    });

    test('the configured key is not served on a non-loopback address', async () => {
      const exposed = startHttp(childEnv(apiUrl, ws.key), ['--host', '0.0.0.0']);
      assert.equal(await exposed.exited, 1);
      assert.match(exposed.stderr(), /Refusing to serve the configured API key on 0\.0\.0\.0/);
    });
  });

  test('inspector-cli lists and calls the tools of `tprm mcp` (stdio and HTTP)', async () => {
    const inspector = (...args: string[]) =>
      run(process.execPath, [
        INSPECTOR,
        '--cli',
        '-e',
        `TPRM_API_URL=${apiUrl}`,
        '-e',
        `TPRM_API_KEY=${ws.key}`,
        process.execPath,
        BIN,
        'mcp',
        ...args,
      ]);
    const listed = await inspector('--method', 'tools/list');
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      JSON.parse(listed.stdout).tools.map((tool: { name: string }) => tool.name),
      EXPECTED_TOOLS,
    );
    const called = await inspector(
      '--method',
      'tools/call',
      '--tool-name',
      'list_suppliers',
      '--tool-arg',
      'criticality=high',
      'limit=2',
    );
    assert.equal(called.code, 0, called.stderr);
    const page = json(JSON.parse(called.stdout));
    assert.ok(
      page.data.length > 0 &&
        page.data.every((supplier: { criticality: string }) => supplier.criticality === 'high'),
    );
    const overHttp = await run(process.execPath, [
      INSPECTOR,
      '--cli',
      await http.url,
      '--method',
      'tools/call',
      '--tool-name',
      'get_supplier',
      '--tool-arg',
      `id=${page.data[0].id}`,
    ]);
    assert.equal(overHttp.code, 0, overHttp.stderr);
    assert.equal(json(JSON.parse(overHttp.stdout)).id, page.data[0].id);
  });
});

describe('tprm mcp and 429', () => {
  let h: Harness;
  let apiUrl: string;
  let ws: TestWorkspace;

  before(async () => {
    h = await Harness.start({ buckets: { workspace: [{ name: 'second', limit: 1, windowMs: 1000 }] } });
    await h.publicApp.listen({ port: 0, host: '127.0.0.1' });
    apiUrl = `http://127.0.0.1:${(h.publicApp.server.address() as { port: number }).port}/v1`;
    ws = await h.workspace();
  });
  after(() => h.close());

  test('a 429 is retried after Retry-After: every call succeeds', async () => {
    const client = new Client({ name: 'tprm-mcp-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'mcp'],
        env: childEnv(apiUrl, ws.key),
      }),
    );
    try {
      const before = (await scrape(h.adminApp)).value('tprm_rate_limited_total', { bucket: 'second' });
      const started = Date.now();
      for (let call = 0; call < 3; call++) {
        const result = await client.callTool({ name: 'list_suppliers', arguments: { limit: 1 } });
        assert.notEqual(result.isError, true, JSON.stringify(result));
      }
      const after = (await scrape(h.adminApp)).value('tprm_rate_limited_total', { bucket: 'second' });
      assert.ok(after > before, 'the API answered 429');
      assert.ok(Date.now() - started >= 1000, 'the retry waited for Retry-After');
    } finally {
      await client.close();
    }
  });
});

/** Runs a command to its end. */
function run(command: string, args: string[]): Promise<Finished> {
  // The inspector finds its own package.json from a working directory whose parent holds a package.json
  // (modelcontextprotocol/inspector#1334): dist/ of this project is one.
  return finished(spawn(command, args, { cwd: `${ROOT}dist`, env: { PATH: process.env.PATH ?? '' } }));
}
