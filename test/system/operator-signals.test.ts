// What an operator reads (issue 25 "Ship it", point 6; decisions P133, P136, P137): request log lines name the
// API key's id (never its secret), the client address and the user agent; webhook failure lines name the
// workspace; /metrics has tprm_build_info{version}; and OpenTelemetry traces, opt-in through the standard
// OTEL_* variables, reach a local OTLP/HTTP receiver (JSON) from a real `tprm serve` process: incoming requests
// named by route, PostgreSQL statements inside them, and webhook sends whose `traceparent` the receiver gets.
// Off, no OpenTelemetry SDK, exporter or instrumentation is loaded.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { redactUrls } from '../../src/telemetry/tracing.js';
import { packageVersion } from '../../src/version.js';
import { finished } from '../support/child.js';
import { ENGINE, Harness } from '../support/harness.js';
import { LogCapture, recordSensitive } from '../support/logs.js';
import { scrape } from '../support/metrics.js';
import { answerWith, eventually, Receiver } from '../support/receiver.js';
import { type ServiceProcess, startService } from '../support/service.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('log lines and metrics', () => {
  const logs = new LogCapture();
  let h: Harness;
  let receiver: Receiver;
  before(async () => {
    h = await Harness.start({ logs, env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true' } });
    receiver = await Receiver.start();
  });
  after(async () => {
    await receiver.close();
    await h.close();
  });

  test('a request line names the API key by id, the client address and the user agent; never the secret', async () => {
    const ws = await h.workspace({ scopes: ['suppliers:read'] });
    const res = await h.api('GET', '/suppliers', {
      key: ws.key,
      headers: { 'user-agent': 'siem-connector/4.2' },
      remoteAddress: '192.0.2.10',
    });
    assert.equal(res.status, 200);
    const anonymous = await h.api('GET', '/suppliers', { remoteAddress: '192.0.2.11' });
    assert.equal(anonymous.status, 401);
    const lineOf = (requestId: unknown) =>
      logs.records().find((record) => record.msg === 'request' && record.request_id === requestId);
    const line = lineOf(res.headers['x-request-id']);
    assert.deepEqual(
      { api_key_id: line?.api_key_id, client_address: line?.client_address, user_agent: line?.user_agent },
      { api_key_id: ws.keyId, client_address: '192.0.2.10', user_agent: 'siem-connector/4.2' },
    );
    const refused = lineOf(anonymous.headers['x-request-id']);
    assert.equal(refused?.api_key_id, null);
    assert.equal(refused?.client_address, '192.0.2.11');
    assert.ok(!logs.text().includes(ws.key));
  });

  test('a webhook failure line names the workspace', async () => {
    const ws = await h.workspace();
    const path = `/${randomUUID()}`;
    receiver.answerAt(path, answerWith(500));
    const created = await h.admin('POST', `/admin/workspaces/${ws.id}/webhook-endpoints`, {
      url: receiver.url(path),
      events: ['alert.created'],
    });
    assert.equal(created.status, 201, created.body);
    const alert = await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
      scope: 'org',
      severity: 'low',
      title: 'failing receiver',
      body: 'b',
    });
    assert.equal(alert.status, 201, alert.body);
    await h.worker();
    const line = await eventually(async () =>
      logs.records().find((record) => record.msg === 'webhook attempt failed; a retry is scheduled'),
    );
    assert.equal(line.workspace_id, ws.id);
    assert.equal(line.endpoint_id, created.json.id);
  });

  test('tprm_build_info{version} is 1 for the running version', async () => {
    const metrics = await scrape(h.adminApp);
    assert.equal(metrics.value('tprm_build_info', { version: packageVersion() }), 1);
    assert.equal(metrics.types.get('tprm_build_info'), 'gauge');
  });
});

describe('OpenTelemetry traces (tprm serve with OTEL_*)', () => {
  interface Span {
    traceId: string;
    spanId: string;
    parentSpanId?: string;
    name: string;
    kind: number;
    attributes: Record<string, unknown>;
  }
  const spans: Span[] = [];
  const exports: { path: string; contentType: string | undefined; service: unknown }[] = [];
  let collector: Server;
  let collectorUrl: string;
  let receiver: Receiver;
  let h: Harness | undefined;
  let work: string;
  let preload: string;

  /** OTLP/JSON attribute values ({ stringValue }, { intValue }, …) as plain values. */
  const plain = (attributes: { key: string; value: Record<string, unknown> }[] = []) =>
    Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]]));

  before(async () => {
    collector = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const payload = JSON.parse(body);
        for (const resourceSpans of payload.resourceSpans ?? []) {
          const resource = plain(resourceSpans.resource?.attributes);
          exports.push({
            path: request.url ?? '',
            contentType: request.headers['content-type'],
            service: resource['service.name'],
          });
          for (const scope of resourceSpans.scopeSpans ?? [])
            for (const span of scope.spans ?? []) spans.push({ ...span, attributes: plain(span.attributes) });
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    collectorUrl = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    receiver = await Receiver.start();
    if (ENGINE === 'postgres') h = await Harness.start();
    work = mkdtempSync(join(tmpdir(), 'tprm-otel-'));
    // Reports, as the process exits, which OpenTelemetry packages it loaded (the API package is always there:
    // prom-client uses it; it does nothing without an SDK).
    preload = join(work, 'loaded.cjs');
    writeFileSync(
      preload,
      `process.on('exit', () => process.stderr.write(JSON.stringify({ loaded: Object.keys(require.cache)
        .filter((path) => /@opentelemetry\\/(?!api\\/)|-in-the-middle/.test(path)) }) + '\\n'));`,
    );
  });
  after(async () => {
    await receiver.close();
    await new Promise((resolve) => collector.close(resolve));
    await h?.close();
    rmSync(work, { recursive: true, force: true });
  });

  async function serve(env: Record<string, string>): Promise<ServiceProcess & { adminToken: string }> {
    const adminToken = `otel-${randomUUID()}-${randomUUID()}`;
    recordSensitive(adminToken);
    const service = await startService(
      {
        ADMIN_TOKEN: adminToken,
        DATA_DIR: join(work, randomUUID()),
        WEBHOOK_ALLOW_INSECURE_URLS: 'true',
        ...(h?.databaseUrl ? { DATABASE_URL: h.databaseUrl } : {}),
        ...env,
      },
      60_000,
      { args: ['--require', preload, 'bin/tprm.js', 'serve'], cwd: ROOT },
    );
    return Object.assign(service, { adminToken });
  }

  const loadedAtExit = (service: ServiceProcess): string[] => {
    const line = service.output.find((text) => text.startsWith('{"loaded"'));
    assert.ok(line, service.output.join('\n'));
    return JSON.parse(line).loaded;
  };

  test('spans of a request, its SQL and a webhook send reach the collector; traceparent reaches the receiver', async () => {
    const service = await serve({
      OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'tprm-api-under-test',
    });
    try {
      // biome-ignore lint/suspicious/noExplicitAny: JSON bodies of the API
      const admin = async (path: string, body: unknown): Promise<any> => {
        const res = await fetch(`${service.adminUrl}/admin${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${service.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        assert.equal(res.status, 201, await res.clone().text());
        return res.json();
      };
      const ws = await admin('/workspaces', { name: 'Traced', plan: 'enterprise' });
      const user = await admin(`/workspaces/${ws.id}/users`, { name: 'Ops', email: 'ops@traced.example' });
      const key = await admin(`/workspaces/${ws.id}/api-keys`, {
        name: 'traced',
        scopes: ['suppliers:read'],
        created_by: user.id,
      });
      recordSensitive(key.secret);
      const supplierId = randomUUID();
      // A read by id: the key is looked up and the supplier searched for (404), both in SQL.
      const read = await fetch(`${service.publicUrl}/v1/suppliers/${supplierId}`, {
        headers: { authorization: `Bearer ${key.secret}` },
      });
      assert.equal(read.status, 404, await read.clone().text());
      const path = `/hook/${randomUUID()}?token=receiver-secret`;
      await admin(`/workspaces/${ws.id}/webhook-endpoints`, {
        url: receiver.url(path),
        events: ['alert.created'],
      });
      await admin(`/workspaces/${ws.id}/alerts`, {
        scope: 'org',
        severity: 'low',
        title: 'traced',
        body: 'b',
      });
      const delivery = await eventually(async () =>
        receiver.received.find((request) => request.path === path),
      );
      const traceparent = String(delivery.headers.traceparent ?? '');
      assert.match(traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
      const [, traceId, parentId] = traceparent.split('-');

      const server = await eventually(async () =>
        spans.find((span) => span.kind === 2 && span.name === 'GET /v1/suppliers/:id'),
      );
      assert.equal(server.attributes['http.route'], '/v1/suppliers/:id');
      const send = await eventually(async () => spans.find((span) => span.spanId === parentId));
      assert.equal(send.traceId, traceId);
      assert.equal(send.kind, 3, 'a client span');
      if (ENGINE === 'postgres') {
        const sql = await eventually(async () =>
          spans.find((span) => span.traceId === server.traceId && span.name.startsWith('pg.query')),
        );
        assert.ok(sql, 'a PostgreSQL statement inside the request');
      }
      assert.ok(exports.every((e) => e.path === '/v1/traces' && e.contentType === 'application/json'));
      assert.ok(exports.some((e) => e.service === 'tprm-api-under-test'));
      // No URL path, query or secret in any attribute: the supplier id, the receiver's token, the key.
      const text = JSON.stringify(spans);
      for (const secret of [key.secret, 'receiver-secret', supplierId, service.adminToken])
        assert.ok(!text.includes(secret), `no ${secret.slice(0, 12)}… in the spans`);
      assert.equal(await service.kill('SIGTERM'), 0);
      assert.ok(loadedAtExit(service).some((path) => path.includes('@opentelemetry/sdk-trace-base')));
    } finally {
      if (service.child.exitCode === null && service.child.signalCode === null) await service.kill('SIGKILL');
    }
  });

  test('without OTEL_* no OpenTelemetry SDK, exporter or instrumentation is loaded', async () => {
    const service = await serve({});
    assert.equal((await fetch(`${service.adminUrl}/readyz`)).status, 200);
    assert.equal(await service.kill('SIGTERM'), 0);
    assert.deepEqual(loadedAtExit(service), []);
  });

  test('an exporter or protocol it cannot use stops the start with one line naming the variable', async () => {
    for (const [env, variable] of [
      [
        { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
        'OTEL_EXPORTER_OTLP_PROTOCOL',
      ],
      [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER'],
    ] as const) {
      const dataDir = join(work, randomUUID());
      const result = await finished(
        spawn(process.execPath, ['bin/tprm.js', 'serve'], {
          cwd: ROOT,
          env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, PORT: '0', ADMIN_PORT: '0', ...env },
        }),
      );
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      assert.match(result.stderr, new RegExp(`^error: ${variable} must be`));
      assert.ok(!existsSync(dataDir), 'nothing started');
    }
  });

  test('URL attributes keep the route and the origin only', () => {
    assert.deepEqual(
      redactUrls({
        'http.route': '/files/:token',
        'http.target': '/files/abc?expires=1&signature=s',
        'url.path': '/files/abc',
        'url.query': 'expires=1&signature=s',
        'http.url': 'https://hooks.example/in?token=t',
        'url.full': 'https://hooks.example/in?token=t',
        'http.method': 'GET',
      }),
      {
        'http.route': '/files/:token',
        'http.target': '/files/:token',
        'url.path': '/files/:token',
        'http.url': 'https://hooks.example',
        'url.full': 'https://hooks.example',
        'http.method': 'GET',
      },
    );
  });
});
