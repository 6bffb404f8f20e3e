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
import { MAX_BODY_BYTES } from '../../src/http/edge.js';
import { importCollectionNames } from '../../src/management/import.js';
import { toolName } from '../../src/mcp/catalog.js';
import { JSONRPC_ERROR } from '../../src/mcp/errors.js';
import { MAX_BATCH_MESSAGES } from '../../src/mcp/http.js';
import { ProcessingActivity } from '../../src/resources/context/schema.js';
import { publicOperations } from '../../src/resources/operations.js';
import { Supplier } from '../../src/resources/suppliers/schema.js';
import { Criticality, SCOPES, type Scope } from '../../src/schema/fields.js';
import { generateSeedDocument } from '../../src/seed/index.js';
import { type Finished, finished } from '../support/child.js';
import { Harness, type TestWorkspace } from '../support/harness.js';
import { scrape } from '../support/metrics.js';
import { parseResponses, type RawResponse, rawConnection, rawRequest } from '../support/raw-http.js';
import { freePort } from '../support/redis.js';
import { CITATION } from '../support/string-literals.js';

// Compiled to dist/test/mcp.test.js; the launcher lives in bin/ at the project root.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = `${ROOT}bin/tprm.js`;
const INSPECTOR = `${ROOT}node_modules/@modelcontextprotocol/inspector-cli/build/cli.js`;

/** The tools the route table calls for: one per public GET operation. */
const GET_TOOLS = publicOperations
  .filter((route) => route.method === 'GET')
  .map((route) => toolName(route.id));
/** And the search tool (P164). */
const EXPECTED_TOOLS = [...GET_TOOLS, 'search_suppliers'];

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
        assert.deepEqual(keyedGets, GET_TOOLS);
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
        const active = await sameAsApi(
          'list_suppliers',
          { status: 'active' },
          '/suppliers?status=active&limit=20',
        );
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
          `/action-plans/${plan.id}/items?overdue=false&limit=20`,
        );
        assert.ok(items.data.length > 0);
        await sameAsApi('get_risk_matrix', { scope: 'cyber' }, '/risk-matrix?scope=cyber');
        await sameAsApi('list_alerts', { unresolved: true }, '/alerts?unresolved=true&limit=20');

        // A filter value the API refuses: its 400, in the tool result.
        const refused = await client.callTool({
          name: 'list_suppliers',
          arguments: { criticality: 'extreme' },
        });
        assert.equal(refused.isError, true);
        assert.equal(json(refused).error.code, 'invalid_request');
      });

      test('agents get 20 rows by default; search_suppliers finds by name or domain prefix (P164)', async () => {
        const tools = (await client.listTools()).tools;
        for (const tool of tools) {
          const limit = (tool.inputSchema.properties as Record<string, { default?: number }>).limit;
          if (limit) assert.equal(limit.default, 20, tool.name);
        }
        const search = tools.find((tool) => tool.name === 'search_suppliers');
        assert.deepEqual(search?.inputSchema.required, ['q']);
        const all = json(await client.callTool({ name: 'list_suppliers', arguments: { limit: 200 } }));
        const target = all.data[all.data.length - 1];
        const prefix = target.name.slice(0, 4);
        const found = json(
          await client.callTool({ name: 'search_suppliers', arguments: { q: prefix.toUpperCase() } }),
        );
        const api = await h.api('GET', `/suppliers?q=${encodeURIComponent(prefix)}&limit=20`, {
          key: ws.key,
        });
        assert.deepEqual(found, api.json);
        assert.ok(found.data.some((row: { id: string }) => row.id === target.id));
        const missing = await client.callTool({ name: 'search_suppliers', arguments: { q: '' } });
        assert.equal(missing.isError, true);
        assert.equal(json(missing).error.code, 'invalid_request');
      });

      test('list_assessment_gaps stays bounded: the most severe kept, a note of how many left out (P164)', async () => {
        const assessments = json(
          await client.callTool({ name: 'list_assessments', arguments: { limit: 200 } }),
        ).data as { id: string }[];
        let most = { id: '', count: 0 };
        for (const assessment of assessments) {
          const count = (await h.api('GET', `/assessments/${assessment.id}/gaps`, { key: ws.key })).json.data
            .length;
          if (count > most.count) most = { id: assessment.id, count };
        }
        assert.ok(most.count >= 3, `an assessment with gaps (${most.count})`);
        const everything = (await h.api('GET', `/assessments/${most.id}/gaps`, { key: ws.key })).json;
        const limit = most.count - 1;
        const result = await client.callTool({
          name: 'list_assessment_gaps',
          arguments: { id: most.id, limit },
        });
        assert.notEqual(result.isError, true, JSON.stringify(result));
        const cut = json(result);
        assert.equal(cut.data.length, limit);
        assert.equal(cut.meta.has_more, true);
        assert.equal(cut.meta.left_out, 1);
        const rank = { high: 0, medium: 1, low: 2 } as Record<string, number>;
        const dropped = everything.data.find(
          (gap: { id: string }) => !cut.data.some((kept: { id: string }) => kept.id === gap.id),
        );
        for (const kept of cut.data) assert.ok((rank[kept.severity] ?? 3) <= (rank[dropped.severity] ?? 3));
        // In the API's order, each row as the API gives it.
        assert.deepEqual(
          cut.data,
          everything.data.filter((gap: { id: string }) => gap.id !== dropped.id),
        );
        assert.match(JSON.stringify(result.content), /1 of \d+ gaps left out/);
        const whole = json(
          await client.callTool({ name: 'list_assessment_gaps', arguments: { id: most.id, limit: 500 } }),
        );
        assert.deepEqual(whole.data, everything.data);
        assert.equal(whole.meta.left_out, 0);
        const bad = await client.callTool({
          name: 'list_assessment_gaps',
          arguments: { id: most.id, limit: 0 },
        });
        assert.equal(bad.isError, true);
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

describe('tprm mcp: the HTTP edge and the size of messages (decisions P110-P113)', () => {
  // REQUEST_TIMEOUT and KEEP_ALIVE_TIMEOUT short enough for a test, read as the service reads them.
  const REQUEST_TIMEOUT_MS = 800;
  const KEEP_ALIVE_TIMEOUT_MS = 400;
  // Node looks for late requests every quarter of the timeout: closed by 1.25 × it, plus scheduling slack.
  const CLOSED_BY_MS = REQUEST_TIMEOUT_MS * 1.25 + 1000;
  // No tool is called here: the API is never asked, so none listens.
  const NO_API = 'http://127.0.0.1:9/v1';
  let server: ReturnType<typeof startHttp>;
  let port: number;

  before(async () => {
    server = startHttp({
      ...childEnv(NO_API, 'tprm_configured_key'),
      REQUEST_TIMEOUT: `${REQUEST_TIMEOUT_MS}ms`,
      KEEP_ALIVE_TIMEOUT: `${KEEP_ALIVE_TIMEOUT_MS}ms`,
    });
    port = Number(new URL(await server.url).port);
  });
  after(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  const rpc = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
  /**
   * The head of a POST to /mcp whose body is `length` bytes, with `headers` (a Host by default), asking the
   * server to close the connection after its answer unless it should stay open (`keepAlive`).
   */
  const head = (length: number, headers = 'Host: localhost\r\n', keepAlive = false) =>
    `POST /mcp HTTP/1.1\r\n${headers}Content-Type: application/json\r\n` +
    `Accept: application/json, text/event-stream\r\nContent-Length: ${length}\r\n` +
    `${keepAlive ? '' : 'Connection: close\r\n'}\r\n`;
  const post = (body: string, headers?: string, keepAlive?: boolean) =>
    `${head(Buffer.byteLength(body), headers, keepAlive)}${body}`;

  /** A JSON-RPC error answer to no message (`id` null), with `status` and JSON-RPC `code`. */
  function assertRpcError(res: RawResponse | undefined, status: number, code: number, where: string): void {
    assert.ok(res, `${where}: no response`);
    assert.equal(res.status, status, `${where}: ${res.body}`);
    assert.equal(res.headers['content-type'], 'application/json', where);
    const body = JSON.parse(res.body);
    assert.deepEqual(
      { jsonrpc: body.jsonrpc, id: body.id, code: body.error?.code },
      { jsonrpc: '2.0', id: null, code },
      where,
    );
    assert.equal(typeof body.error.message, 'string', where);
  }

  test('headers or a body that arrive too slowly: 408 in the JSON-RPC error shape, then closed; idle connections closed', async () => {
    for (const [what, text, trickle] of [
      ['headers that never end', 'POST /mcp HTTP/1.1\r\nHost: localhost\r\n', false],
      ['a body a byte at a time', post('x'.repeat(100)).slice(0, -100), true],
    ] as const) {
      const connection = await rawConnection(port);
      connection.write(text);
      const timer = trickle ? setInterval(() => connection.write('{'), 100) : undefined;
      const { closed, afterMs, received } = await connection.closed(CLOSED_BY_MS + 2000);
      clearInterval(timer);
      const where = `${what}: closed ${closed} after ${Math.round(afterMs)} ms`;
      assert.ok(closed && afterMs <= CLOSED_BY_MS, where);
      assert.ok(afterMs >= REQUEST_TIMEOUT_MS - 100, `closed early: ${where}`);
      const responses = parseResponses(received);
      assert.equal(responses.length, 1, where);
      assertRpcError(responses[0], 408, JSONRPC_ERROR.refused, where);
    }
    const idle = await rawConnection(port);
    idle.write(post(JSON.stringify(rpc(1)), undefined, true));
    const { closed, afterMs, received } = await idle.closed(KEEP_ALIVE_TIMEOUT_MS + 4000);
    assert.deepEqual(
      parseResponses(received).map((response) => response.status),
      [200],
    );
    // Node waits one second more than it advertises.
    assert.ok(closed && afterMs <= KEEP_ALIVE_TIMEOUT_MS + 2000, `idle closed after ${afterMs} ms`);
  });

  test('a REQUEST_TIMEOUT or KEEP_ALIVE_TIMEOUT that is not a duration above 0 stops it, naming the variable', async () => {
    for (const [name, value] of [
      ['REQUEST_TIMEOUT', '0'],
      ['KEEP_ALIVE_TIMEOUT', 'soon'],
    ] as const) {
      const bad = startHttp({ ...childEnv(NO_API, 'tprm_configured_key'), [name]: value });
      const started = await bad.url.then(
        () => true,
        () => false,
      );
      if (started) bad.child.kill('SIGTERM');
      assert.equal(started, false, `${name}=${value} started`);
      assert.equal(await bad.exited, 1);
      assert.match(bad.stderr(), new RegExp(`^error: ${name} must be a duration`, 'm'));
    }
  });

  test('Host twice or not a host, an Expect other than 100-continue, another HTTP version: 400 in the JSON-RPC error shape', async () => {
    const ping = JSON.stringify(rpc(1));
    const refused: [string, string][] = [
      ['Host twice', post(ping, 'Host: localhost\r\nHost: localhost\r\n')],
      ['Host twice, one foreign', post(ping, 'Host: localhost\r\nHost: evil.example\r\n')],
      ['Host not a host', post(ping, 'Host: localhost:80a\r\n')],
      ['Host empty', post(ping, 'Host: \r\n')],
      ['Expect', post(ping, 'Host: localhost\r\nExpect: bogus\r\n')],
      ['HTTP/2.0', post(ping).replace('HTTP/1.1', 'HTTP/2.0')],
      ['HTTP/0.9', post(ping).replace('HTTP/1.1', 'HTTP/0.9')],
      ['no version', 'POST /mcp\r\n\r\n'],
      ['HTTP/3.0', post(ping).replace('HTTP/1.1', 'HTTP/3.0')],
    ];
    for (const [what, text] of refused)
      assertRpcError(await rawRequest(port, text), 400, JSONRPC_ERROR.refused, what);
    for (const version of ['HTTP/1.1', 'HTTP/1.0']) {
      const res = await rawRequest(port, post(ping).replace('HTTP/1.1', version));
      assert.equal(res.status, 200, `${version}: ${res.body}`);
      assert.deepEqual(JSON.parse(res.body), { jsonrpc: '2.0', id: 1, result: {} });
    }
  });

  test('a body over 4 MiB, declared or chunked, is a 413; one of exactly 4 MiB is read', async () => {
    const ping = JSON.stringify(rpc(1));
    // Whitespace is JSON: a ping padded to the limit, and one byte more.
    const padded = (size: number) => ping.replace('{', `{${' '.repeat(size - ping.length)}`);
    assert.equal(Buffer.byteLength(padded(MAX_BODY_BYTES)), MAX_BODY_BYTES);
    const over = padded(MAX_BODY_BYTES + 1);
    const chunked =
      'POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
      'Accept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' +
      `${over.length.toString(16)}\r\n${over}\r\n0\r\n\r\n`;
    // Kept open: a connection closed on bytes it has not read is reset, and the answer may be lost with it.
    const declared = post(over, undefined, true);
    assertRpcError(await rawRequest(port, declared), 413, JSONRPC_ERROR.refused, 'declared');
    assertRpcError(await rawRequest(port, chunked), 413, JSONRPC_ERROR.refused, 'chunked');
    const atLimit = await rawRequest(port, post(padded(MAX_BODY_BYTES)));
    assert.equal(atLimit.status, 200, atLimit.body);
    assert.deepEqual(JSON.parse(atLimit.body), { jsonrpc: '2.0', id: 1, result: {} });
  });

  test('a body is read as the API reads one: bytes that are not UTF-8, or JSON nested too deep, are a parse error', async () => {
    // 0xff is never UTF-8; the SDK alone read it as U+FFFD and answered.
    const notUtf8 = Buffer.from(
      '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"note":"\u00ff"}}}',
      'latin1',
    );
    const deep = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":${'['.repeat(100)}${']'.repeat(100)}}}}`;
    for (const [what, request] of [
      ['not UTF-8', Buffer.concat([Buffer.from(head(notUtf8.length)), notUtf8])],
      ['nested 100 deep', post(deep)],
    ] as const)
      assertRpcError(await rawRequest(port, request), 400, JSONRPC_ERROR.parse, what);
  });

  test(`a batch of more than ${MAX_BATCH_MESSAGES} messages is refused; one of ${MAX_BATCH_MESSAGES} is answered`, async () => {
    const batch = (size: number) => JSON.stringify(Array.from({ length: size }, (_, i) => rpc(i + 1)));
    assertRpcError(
      await rawRequest(port, post(batch(MAX_BATCH_MESSAGES + 1))),
      400,
      JSONRPC_ERROR.invalidRequest,
      'batch',
    );
    const answered = await rawRequest(port, post(batch(MAX_BATCH_MESSAGES)));
    assert.equal(answered.status, 200, answered.body);
    assert.deepEqual(
      (JSON.parse(answered.body) as { id: number }[]).map((answer) => answer.id).sort((a, b) => a - b),
      Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => i + 1),
    );
  });

  test('on stdio, a line over 4 MiB is answered with a JSON-RPC error and the server goes on', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], {
      env: childEnv(NO_API, 'tprm_configured_key'),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = finished(child);
    let received = '';
    const waiters: (() => void)[] = [];
    child.stdout.on('data', (chunk) => {
      received += chunk;
      for (const wake of waiters.splice(0)) wake();
    });
    /** The next `count` lines the server wrote (waits for them, at most 10 s). */
    let read = 0;
    const lines = async (count: number) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const all = received.split('\n').slice(0, -1);
        if (all.length >= read + count) {
          const next = all.slice(read, read + count).map((line) => JSON.parse(line));
          read += count;
          return next;
        }
        assert.ok(Date.now() < deadline, `no answer; stdout: ${received.slice(-300)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    };
    const send = (text: string) => child.stdin.write(`${text}\n`);
    try {
      send(JSON.stringify(rpc(1)));
      assert.deepEqual(await lines(1), [{ jsonrpc: '2.0', id: 1, result: {} }]);
      // Over the limit, and over the 10 MB at which the SDK's own transport gave up.
      for (const size of [MAX_BODY_BYTES + 1, 11 * 1024 * 1024]) {
        const line = JSON.stringify({ ...rpc(2), params: { _meta: { pad: 'x'.repeat(size) } } });
        send(line);
        const [answer] = await lines(1);
        assert.deepEqual(
          { id: answer.id, code: answer.error?.code },
          { id: null, code: JSONRPC_ERROR.invalidRequest },
          `a line of ${line.length} bytes: ${JSON.stringify(answer)}`,
        );
        send(JSON.stringify(rpc(3)));
        assert.deepEqual(await lines(1), [{ jsonrpc: '2.0', id: 3, result: {} }]);
      }
      // A message of exactly the limit is read.
      const ping = JSON.stringify(rpc(4));
      send(ping.replace('{', `{${' '.repeat(MAX_BODY_BYTES - ping.length)}`));
      assert.deepEqual(await lines(1), [{ jsonrpc: '2.0', id: 4, result: {} }]);
    } finally {
      child.stdin.end();
    }
    assert.equal((await exited).code, 0, 'ends when its stdin is closed');
  });
});
