// The SDK (sdk/, developer-experience issue "SDK") against the real service on loopback: every operation of
// the document through its namespace, lists that follow cursors, one error class per code, the retry policy
// of risk-data-api.md "Errors" (429 after Retry-After; 5xx and lost connections with backoff and jitter; no
// other 4xx; one Idempotency-Key per POST), webhooks verified with the server's own signing code, the PDF
// behind its redirect, per-call options (timeoutMs, maxRetries, signal, idempotencyKey), `lastResponse`, the
// User-Agent and the request/response hooks (decisions P86, P87 in docs/decisions.md), and the built package
// importable from ES modules and CommonJS.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  type ClientOptions,
  ConflictError,
  createClient,
  Export,
  InsufficientScopeError,
  InternalError,
  InvalidApiKeyError,
  InvalidRequestError,
  Paginated,
  PlanUpgradeRequiredError,
  RateLimitExceededError,
  type RequestEvent,
  ResourceNotFoundError,
  type ResponseEvent,
  type Schemas,
  SDK_VERSION,
  TprmAbortError,
  TprmApiError,
  type TprmClient,
  TprmConnectionError,
  TprmError,
  UnexpectedResponseError,
  USER_AGENT,
  ValidationFailedError,
  type WebhookEvent,
  WebhookSignatureError,
  webhooks,
} from '../../sdk/src/index.js';
import { ContractEventTypes } from '../../src/contract/events.js';
import { importCollectionNames } from '../../src/management/import.js';
import { apiDocumentText } from '../../src/openapi/document.js';
import { generateSeedDocument } from '../../src/seed/index.js';
import { contract } from '../support/contract.js';
import { Harness, type TestWorkspace } from '../support/harness.js';
import { FlakyProxy } from '../support/proxy.js';
import { eventually, Receiver } from '../support/receiver.js';
import { freePort } from '../support/redis.js';

const SDK_DIR = fileURLToPath(new URL('../../../sdk/', import.meta.url));

interface Call {
  method: string;
  path: string;
  authorization: string | null;
}

/** The real `fetch`, recording what the SDK sends. */
function recordingFetch(calls: Call[]): typeof fetch {
  return (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    calls.push({
      method: init?.method ?? 'GET',
      path: url.pathname,
      authorization: headers.get('authorization'),
    });
    return fetch(input, init);
  };
}

/** Listens on loopback; the base URL of its API. */
async function listen(h: Harness, port = 0): Promise<string> {
  await h.publicApp.listen({ port, host: '127.0.0.1' });
  return `http://127.0.0.1:${(h.publicApp.server.address() as { port: number }).port}/v1`;
}

/** Retries fast enough for tests; the policy is the same. */
const FAST = { initialDelayMs: 20, maxDelayMs: 200 };

async function rejection<E extends Error>(promise: Promise<unknown>, type: new (...args: never[]) => E) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
    return error;
  }
  throw new Error(`expected ${type.name}, got a result`);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the SDK against the service', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let baseUrl: string;
  let client: TprmClient;
  const calls: Call[] = [];
  const seed = generateSeedDocument({ size: { suppliers: 6 }, seed: 2026 });

  before(async () => {
    const port = await freePort();
    h = await Harness.start({
      env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true', PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
    });
    baseUrl = await listen(h, port);
    ws = await h.workspace();
    const known = new Set(importCollectionNames());
    await h.import(ws.id, Object.fromEntries(Object.entries(seed).filter(([name]) => known.has(name))));
    client = createClient({ baseUrl, apiKey: ws.key, retry: FAST, fetch: recordingFetch(calls) });
  });
  after(() => h.close());

  test('every operation of the document is reached through a namespace, with typed results', async () => {
    calls.length = 0;
    const suppliers = await client.suppliers.listPage({ limit: 2, status: 'active' });
    assert.equal(suppliers.currency, 'USD');
    const supplier: Schemas['SupplierDetail'] = await client.suppliers.get(suppliers.data[0]?.id ?? '');
    assert.equal(typeof supplier.assessment_count, 'number');
    const created = await client.suppliers.create({ name: 'Created through the SDK' });
    assert.equal(created.status, 'pending', 'decision 41');

    const assessments = await client.assessments.listPage({ status: 'completed', limit: 5 });
    const completed = assessments.data[0];
    assert.ok(completed);
    assert.equal((await client.assessments.get(completed.id)).id, completed.id);
    const gaps = await client.assessments.gaps(completed.id, { severity: 'high' });
    assert.ok(gaps.data.every((gap) => gap.severity === 'high'));
    const draft = await client.assessments.create({ supplier_id: created.id, assessment_type: 'self' });
    assert.equal(draft.status, 'draft');

    const reports = await client.reports.listPage();
    const report = reports.data[0];
    assert.ok(report);
    assert.equal((await client.reports.get(report.id)).id, report.id);
    assert.equal((await h.admin('POST', `/admin/reports/${report.id}/render`, {})).status, 200);
    const pdf = await client.reports.pdf(report.id);
    assert.equal(Buffer.from(pdf.subarray(0, 5)).toString('latin1'), '%PDF-');
    // The generic get, by the document's path: the same JSON, and a 302 as its unfollowed location (P91).
    assert.deepEqual(
      await client.get('/reports/{id}', { id: report.id }),
      await client.reports.get(report.id),
    );
    assert.deepEqual(
      await client.get('/reports', { query: { limit: 1 } }),
      await client.reports.listPage({ limit: 1 }),
    );
    const { location } = (await client.get('/reports/{id}/pdf', { id: report.id })) as { location: string };
    assert.match(new URL(location).pathname, /^\/files\//);

    const upsert = await client.assets.upsert({
      source: 'manual',
      assets: [{ external_id: 'sdk-1', name: 'SDK asset', asset_type: 'application' }],
    });
    assert.deepEqual(upsert, { created: 1, updated: 0, skipped: [] });
    assert.ok(
      (await client.assets.listPage({ source: 'manual' })).data.some((a) => a.external_id === 'sdk-1'),
    );

    for (const page of await Promise.all([
      client.businessProcesses.listPage(),
      client.productsServices.listPage(),
      client.processingActivities.listPage(),
      client.bia.listPage(),
      client.threats.listPage(),
      client.riskAcceptances.listPage(),
      client.insights.listPage(),
      client.auditLogs.listPage(),
      client.webhookEndpoints.listPage(),
      client.webhookDeliveries.listPage(),
    ]))
      assert.ok(Array.isArray(page.data) && typeof page.meta.has_more === 'boolean');
    // The event log, auto-paged: the supplier created above is announced there (P172, P177).
    const announced = await client.events.list({ type: 'supplier.created', limit: 1 }).toArray();
    assert.deepEqual(
      announced.map((event) => event.data),
      [{ supplier_id: created.id }],
    );

    const risks = await client.risks.listPage({ limit: 50 });
    const treated = risks.data.find((risk) => seed.risk_treatments?.some((t) => t.risk_id === risk.id));
    assert.ok(treated);
    assert.ok((await client.risks.treatments(treated.id)).data.length > 0);
    const scores = await client.riskScores.get({ limit: 5 });
    assert.equal(scores.data.length, 1);
    const matrix = await client.riskMatrix.get({ scope: 'cyber' });
    assert.ok(matrix.data.every((row) => row.scope === 'cyber'));

    const plans = await client.actionPlans.listPage();
    const plan = plans.data[0];
    assert.ok(plan);
    const items = await client.actionPlans.items(plan.id, { limit: 200 });
    const item = items.data.find((candidate) => candidate.status !== 'in_progress');
    assert.ok(item);
    const updated = await client.actionPlanItems.update(item.id, { status: 'in_progress', note: 'via SDK' });
    assert.equal(updated.status, 'in_progress');
    assert.deepEqual(await client.actionPlanItems.get(item.id), updated);

    const alerts = await client.alerts.list({ scope: 'org' }).toArray();
    assert.ok(
      alerts.length > 0 && alerts.every((alert) => alert.scope === 'org' && alert.supplier_id === null),
    );
    assert.deepEqual(await client.alerts.get(alerts[0]?.id ?? ''), alerts[0]);

    // Each call named an operation of the document; together they name all of /v1, and the PDF's /files.
    const document = JSON.parse(apiDocumentText()) as {
      paths: Record<string, Record<string, unknown> & { servers?: unknown }>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => method !== 'servers')
        .map((method) => ({
          name: `${method.toUpperCase()} ${item.servers ? '' : '/v1'}${path}`,
          pattern: new RegExp(`^${item.servers ? '' : '/v1'}${path.replace(/\{\w+\}/g, '[^/]+')}$`),
          method: method.toUpperCase(),
        })),
    );
    const reached = new Set(
      calls.map((call) => {
        const operation = operations.find((op) => op.method === call.method && op.pattern.test(call.path));
        assert.ok(operation, `${call.method} ${call.path} is an operation of the document`);
        return operation.name;
      }),
    );
    const expected = operations.map((op) => op.name).filter((name) => / \/(v1|files)\//.test(name));
    assert.deepEqual([...reached].sort(), expected.sort());
  });

  test('filters are typed from the document: a value outside the enumeration does not compile', async () => {
    // Each line would compile without its @ts-expect-error only if the SDK's types accepted the value; the
    // service refuses them (400), which shows they are really outside the contract.
    // @ts-expect-error 'archived' is no SupplierStatus
    await rejection(client.suppliers.listPage({ status: 'archived' }), InvalidRequestError);
    // @ts-expect-error severity of a gap is low, medium or high
    await rejection(client.assessments.gaps(randomUUID(), { severity: 'critical' }), InvalidRequestError);
    // @ts-expect-error the audit feed has no `status` filter
    await rejection(client.auditLogs.listPage({ status: 'x' }), InvalidRequestError);
  });

  test('list() follows the cursors page after page; pages() shows each page; listPage() is one request', async () => {
    const all = await client.suppliers.listPage({ limit: 200 });
    assert.ok(all.data.length >= 7);
    calls.length = 0;
    const iterated: string[] = [];
    for await (const supplier of client.suppliers.list({ limit: 2 })) iterated.push(supplier.id);
    assert.deepEqual(
      iterated,
      all.data.map((s) => s.id),
      'every supplier once, in the order of the collection',
    );
    assert.equal(calls.length, Math.ceil(all.data.length / 2), 'one request per page');

    const tagged = seed.suppliers?.find((s) => Array.isArray(s.tags) && s.tags.length > 0)?.tags as string[];
    const tag = tagged[0] as string;
    const withTag = await client.suppliers.list({ tag, limit: 1 }).toArray();
    assert.ok(
      withTag.length > 0 && withTag.every((s) => s.tags?.includes(tag)),
      'the filter holds on every page',
    );

    const sizes: number[] = [];
    for await (const page of client.suppliers.list({ limit: 3 }).pages()) {
      sizes.push(page.data.length);
      assert.equal(page.currency, 'USD');
    }
    assert.equal(
      sizes.reduce((a, b) => a + b, 0),
      all.data.length,
    );

    // Page at a time: the caller carries the cursor.
    const first = await client.suppliers.listPage({ limit: 4 });
    assert.equal(first.meta.has_more, true);
    const second = await client.suppliers.listPage({ limit: 4, cursor: first.meta.next_cursor ?? '' });
    assert.deepEqual(
      [...first.data, ...second.data].map((s) => s.id),
      all.data.slice(0, first.data.length + second.data.length).map((s) => s.id),
    );
    // list() may start from a stored cursor.
    const rest = await client.suppliers.list({ limit: 4, cursor: first.meta.next_cursor ?? '' }).toArray();
    assert.deepEqual(
      rest.map((s) => s.id),
      all.data.slice(first.data.length).map((s) => s.id),
    );

    // The audit feed sets next_cursor on its last page too: iteration still ends there (has_more false).
    calls.length = 0;
    const entries = await client.auditLogs.list({ limit: 200 }).toArray();
    assert.ok(entries.length > 0);
    assert.equal(calls.length, 1);
  });

  test('errors: one class per code, with status, request_id and details; no other 4xx is retried', async () => {
    calls.length = 0;
    const expectOne = async <E extends TprmApiError>(
      call: () => Promise<unknown>,
      type: new (...args: never[]) => E,
      status: number,
      code: string,
    ) => {
      const sent = calls.length;
      const error = await rejection(call(), type);
      assert.ok(error instanceof TprmApiError && error instanceof TprmError);
      assert.equal(error.name, type.name);
      assert.equal(error.status, status);
      assert.equal(error.code, code);
      assert.match(error.request_id ?? '', UUID);
      assert.equal(error.request_id, error.headers.get('x-request-id'));
      assert.equal(calls.length - sent, 1, `${code}: sent once, not retried`);
      return error;
    };

    const stranger = createClient({ baseUrl, apiKey: 'tprm_00000000_unknown', fetch: recordingFetch(calls) });
    await expectOne(() => stranger.suppliers.listPage(), InvalidApiKeyError, 401, 'invalid_api_key');

    const business = await h.workspace({ plan: 'business' });
    const downgraded = createClient({ baseUrl, apiKey: business.key, fetch: recordingFetch(calls) });
    await expectOne(
      () => downgraded.suppliers.listPage(),
      PlanUpgradeRequiredError,
      403,
      'plan_upgrade_required',
    );

    const reader = await h.key(ws.id, ws.userId, ['assets:read']);
    const readOnly = createClient({ baseUrl, apiKey: reader.secret, fetch: recordingFetch(calls) });
    const scope = await expectOne(
      () => readOnly.assets.upsert({ source: 'manual', assets: [] }),
      InsufficientScopeError,
      403,
      'insufficient_scope',
    );
    assert.deepEqual(scope.details, { required_scope: 'assets:write' });

    await expectOne(
      () => client.suppliers.get(randomUUID()),
      ResourceNotFoundError,
      404,
      'resource_not_found',
    );

    const domain = `sdk-${randomUUID().slice(0, 8)}.example`;
    const original = await client.suppliers.create({ name: 'Original', domain });
    const conflict = await expectOne(
      () => client.suppliers.create({ name: 'Copy', domain }),
      ConflictError,
      409,
      'conflict',
    );
    assert.deepEqual(conflict.details, { existing_supplier_id: original.id, domain });

    const invalid = await expectOne(
      () => client.suppliers.create({ name: '' }),
      ValidationFailedError,
      422,
      'validation_failed',
    );
    assert.ok((invalid.details?.fields as Record<string, string> | undefined)?.name);

    await expectOne(
      () => client.suppliers.listPage({ limit: 201 }),
      InvalidRequestError,
      400,
      'invalid_request',
    );

    const pending = seed.reports?.[1]?.id as string;
    const notReady = await expectOne(() => client.reports.pdf(pending), ConflictError, 409, 'conflict');
    assert.equal(notReady.details?.reason, 'pdf_not_ready', 'decision 33');

    // A malformed id never leaves the client as a different path.
    await assert.rejects(client.suppliers.get('../assets'), TypeError);
  });

  test('the PDF helper follows the 302 to /files/… without the API key and returns the bytes', async () => {
    const report = seed.reports?.[2]?.id as string;
    assert.equal((await h.admin('POST', `/admin/reports/${report}/render`, {})).status, 200);
    calls.length = 0;
    const bytes = await client.reports.pdf(report);
    assert.ok(bytes instanceof Uint8Array && bytes.length > 1000);
    assert.equal(Buffer.from(bytes.subarray(0, 5)).toString('latin1'), '%PDF-');
    assert.deepEqual(
      calls.map((call) => [call.path.replace(/\/files\/.*/, '/files/…'), call.authorization !== null]),
      [
        [`/v1/reports/${report}/pdf`, true],
        ['/files/…', false],
      ],
    );
  });

  describe('webhooks', () => {
    let receiver: Receiver;
    let secret: string;

    before(async () => {
      receiver = await Receiver.start();
      const endpoint = await h.admin('POST', `/admin/workspaces/${ws.id}/webhook-endpoints`, {
        url: receiver.url(),
        // The contract's four types: the opt-in ones (P177) would arrive too, and make the count below
        // depend on timing.
        events: ContractEventTypes,
      });
      assert.equal(endpoint.status, 201);
      secret = endpoint.json.signing_secret;
      await h.worker();
    });
    after(() => receiver.close());

    test('real deliveries of each event type verify and become typed events that match the document', async () => {
      const start = receiver.received.length;
      const assessment = seed.assessments?.find((a) => a.status === 'sent')?.id as string;
      assert.equal(
        (await h.admin('POST', `/admin/assessments/${assessment}/status`, { status: 'completed' })).status,
        200,
      );
      const report = seed.reports?.[3]?.id as string;
      assert.equal((await h.admin('POST', `/admin/reports/${report}/render`, {})).status, 200);
      const alert = await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
        scope: 'org',
        severity: 'low',
        title: 'SDK',
        body: 'raised for the SDK test',
      });
      assert.equal(alert.status, 201);
      const plan = (await client.actionPlans.listPage()).data[0]?.id as string;
      const item = (await client.actionPlans.items(plan)).data.find((i) => i.status !== 'completed');
      assert.ok(item);
      await client.actionPlanItems.update(item.id, { status: 'completed' });

      await eventually(async () => {
        const types = new Set(receiver.received.slice(start).map((r) => r.json?.type));
        return types.size === 4;
      });
      const seen = new Set<string>();
      for (const request of receiver.received.slice(start)) {
        const header = request.headers['service-signature'];
        assert.equal(webhooks.verify(request.raw, header, secret), true);
        const event: WebhookEvent = webhooks.constructEvent(request.raw, header, secret);
        contract().checkEvent(event);
        // The union is discriminated by `type`: each branch sees its own `data`.
        switch (event.type) {
          case 'assessment.completed':
            assert.equal(event.data.assessment_id, assessment);
            break;
          case 'report.ready':
            assert.equal(event.data.report_id, report);
            break;
          case 'alert.created':
            assert.equal(event.data.supplier_id, null);
            assert.equal(event.data.scope, 'org');
            break;
          case 'action_plan_item.status_changed':
            assert.deepEqual([event.data.previous_status, event.data.status], [item.status, 'completed']);
            break;
        }
        seen.add(event.type);
      }
      assert.equal(seen.size, 4);
      // Webhook deliveries are also read through the API.
      const delivered = await client.webhookDeliveries.list({ status: 'delivered' }).toArray();
      assert.ok(delivered.length >= 4);
    });

    test('a forged, re-signed, stale or missing signature is refused with its reason', () => {
      const body = JSON.stringify({ event_id: randomUUID(), type: 'alert.created', data: {} });
      const now = Math.floor(Date.now() / 1000);
      const good = webhooks.signatureHeader(body, secret, now);
      assert.equal(webhooks.constructEvent(body, good, secret).type, 'alert.created');
      const reason = (raw: string | Uint8Array, header: string | undefined, tolerance?: number) => {
        try {
          webhooks.constructEvent(raw, header, secret, tolerance);
        } catch (error) {
          assert.ok(error instanceof WebhookSignatureError && error instanceof TprmError);
          assert.equal(webhooks.verify(raw, header, secret, tolerance), false);
          return error.reason;
        }
        assert.fail('constructEvent accepted it');
      };
      assert.equal(reason(body.replace('alert', 'alarm'), good), 'mismatch', 'a body changed in transit');
      assert.equal(reason(body, webhooks.signatureHeader(body, 'whsec_forged', now)), 'mismatch');
      // A minute past the tolerance either way, so that the clock's next second cannot bring it back inside.
      const stale = webhooks.signatureHeader(body, secret, now - 360);
      assert.equal(reason(body, stale), 'timestamp_out_of_tolerance', 'older than 5 minutes');
      assert.equal(webhooks.verify(body, stale, secret, 600), true, 'the tolerance is the caller’s');
      assert.equal(
        reason(body, webhooks.signatureHeader(body, secret, now + 360)),
        'timestamp_out_of_tolerance',
      );
      assert.equal(reason(body, undefined), 'malformed_input');
      assert.equal(reason(body, `t=${now}`), 'no_signature');
      // The raw body may be a string, a Buffer or any Uint8Array (a fetch-style Request's bytes).
      const bytes = new TextEncoder().encode(body);
      for (const raw of [body, Buffer.from(body), bytes, new Uint8Array(bytes.buffer.slice(0))]) {
        assert.equal(webhooks.verify(raw, good, secret), true, raw.constructor.name);
        assert.equal(webhooks.constructEvent(raw, good, secret).type, 'alert.created', raw.constructor.name);
        assert.equal(webhooks.check(raw, webhooks.signatureHeader(raw, secret, now), secret).ok, true);
      }
      assert.equal(reason(new TextEncoder().encode(body.replace('alert', 'alarm')), good), 'mismatch');
    });
  });

  describe('the retry policy, through a proxy that fails on cue', () => {
    let empty: TestWorkspace;
    let proxy: FlakyProxy;

    before(async () => {
      empty = await h.workspace();
      proxy = await FlakyProxy.start(baseUrl.replace(/\/v1$/, ''));
    });
    after(() => proxy.close());

    const through = (retry: object = {}) =>
      createClient({ baseUrl: proxy.url('/v1'), apiKey: empty.key, retry: { ...FAST, ...retry } });
    const gaps = () => proxy.seen.slice(1).map((seen, i) => seen.at - (proxy.seen[i]?.at ?? 0));

    test('5xx: retried with exponential backoff, then the last error is thrown after maxRetries', async () => {
      proxy.plan('internal-error', 'bad-gateway', 'forward');
      const page = await through({ initialDelayMs: 40 }).suppliers.listPage();
      assert.deepEqual(page.data, []);
      assert.equal(proxy.seen.length, 3);
      const [first, second] = gaps();
      // Equal jitter: the n-th retry waits between half and all of initialDelayMs * 2^n.
      assert.ok((first ?? 0) >= 20 && (second ?? 0) >= 40, `backoff ${gaps().join(', ')} ms`);

      proxy.plan('internal-error', 'internal-error', 'internal-error', 'forward');
      const internal = await rejection(through({ maxRetries: 2 }).suppliers.listPage(), InternalError);
      assert.equal(proxy.seen.length, 3, 'the first attempt and 2 retries');
      assert.equal(internal.status, 500);
      assert.equal(internal.code, 'internal_error');

      proxy.plan('bad-gateway', 'bad-gateway');
      const unexpected = await rejection(
        through({ maxRetries: 1 }).suppliers.listPage(),
        UnexpectedResponseError,
      );
      assert.equal(unexpected.status, 502);
      assert.equal(unexpected.code, 'unexpected_response');
    });

    test('the backoff is jittered: the same retry waits a different time', async () => {
      const waits: number[] = [];
      for (let run = 0; run < 8; run++) {
        proxy.plan('internal-error', 'forward');
        await through({ initialDelayMs: 100 }).suppliers.listPage();
        waits.push(gaps()[0] ?? 0);
      }
      assert.ok(Math.min(...waits) >= 50, `waits ${waits.join(', ')}`);
      assert.ok(Math.max(...waits) - Math.min(...waits) > 10, `waits ${waits.map(Math.round).join(', ')} ms`);
    });

    test('a lost connection is retried; when it persists, a TprmConnectionError is thrown', async () => {
      proxy.plan('drop', 'drop', 'forward');
      assert.deepEqual((await through().suppliers.listPage()).data, []);
      assert.equal(proxy.seen.length, 3);

      proxy.plan('drop', 'drop', 'drop');
      const lost = await rejection(through({ maxRetries: 2 }).suppliers.listPage(), TprmConnectionError);
      assert.equal(proxy.seen.length, 3);
      assert.ok(lost.cause instanceof Error);

      const port = await freePort();
      const refused = createClient({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        apiKey: empty.key,
        retry: FAST,
      });
      const error = await rejection(refused.suppliers.listPage(), TprmConnectionError);
      assert.match(error.message, /ECONNREFUSED/);
    });

    test('a POST keeps one Idempotency-Key across its retries: the write whose answer was lost is applied once', async () => {
      const name = `Retried ${randomUUID()}`;
      proxy.plan('forward-then-drop', 'internal-error', 'forward');
      const created = await through().suppliers.create({ name });
      assert.deepEqual(
        proxy.seen.map((seen) => [seen.behaviour, seen.status]),
        [
          ['forward-then-drop', 201],
          ['internal-error', undefined],
          ['forward', 201],
        ],
      );
      const keys = new Set(proxy.seen.map((seen) => seen.headers['idempotency-key']));
      assert.equal(keys.size, 1);
      assert.match(String([...keys][0]), UUID);
      const rows = (await through().suppliers.list({ limit: 200 }).toArray()).filter((s) => s.name === name);
      assert.deepEqual(
        rows.map((s) => s.id),
        [created.id],
        'one row: the retry got the stored response',
      );

      // Each call has its own key; a caller's own key is sent as given.
      proxy.plan();
      await through().suppliers.create({ name: `${name} 2` });
      await through().suppliers.create({ name: `${name} 3` }, { idempotencyKey: 'caller-chosen-key' });
      const sent = proxy.seen.map((seen) => seen.headers['idempotency-key']);
      assert.equal(sent.length, 2);
      assert.ok(!keys.has(sent[0] as string));
      assert.equal(sent[1], 'caller-chosen-key');
    });

    test('other 4xx are never retried, whatever the retry budget', async () => {
      proxy.plan();
      await rejection(through({ maxRetries: 5 }).suppliers.get(randomUUID()), ResourceNotFoundError);
      await rejection(through({ maxRetries: 5 }).suppliers.create({ name: '' }), ValidationFailedError);
      assert.equal(proxy.seen.length, 2);
    });

    describe('per-call options, lastResponse, User-Agent and hooks (stripe-node’s shape; P86, P87)', () => {
      // The proxy and workspace of the enclosing suite; each test plans the proxy afresh.
      const through = (options: Partial<ClientOptions> = {}) =>
        createClient({ baseUrl: proxy.url('/v1'), apiKey: empty.key, retry: FAST, ...options });

      test('every method takes the options as its last argument: an aborted signal stops each before it sends', async () => {
        proxy.plan();
        const aborted = AbortSignal.abort(new Error('the caller gave up'));
        const sdk = through() as unknown as Record<string, Record<string, unknown>>;
        let methods = 0;
        for (const [namespace, members] of Object.entries(sdk)) {
          if (namespace === 'webhooks' || typeof members !== 'object') continue;
          for (const [name, method] of Object.entries(members)) {
            if (typeof method !== 'function') continue;
            // Leading arguments (id, query, body) are placeholders: the call must end before any is used.
            const args = [...Array(method.length - 1).fill(randomUUID()), { signal: aborted }];
            const result = method(...args) as Promise<unknown> | Paginated<unknown> | Export<unknown>;
            const error = await rejection(
              result instanceof Paginated || result instanceof Export ? result.toArray() : result,
              TprmAbortError,
            );
            assert.equal((error.cause as Error).message, 'the caller gave up', `${namespace}.${name}`);
            methods++;
          }
        }
        assert.ok(methods >= 40, `${methods} methods`);
        assert.equal(proxy.seen.length, 0, 'nothing was sent');
      });

      test('timeoutMs and maxRetries of one call override the client’s', async () => {
        // The client waits 30 s and retries twice; this call waits 150 ms, once.
        proxy.plan('stall', 'forward');
        const started = performance.now();
        const timedOut = await rejection(
          through().suppliers.listPage(undefined, { timeoutMs: 150, maxRetries: 0 }),
          TprmConnectionError,
        );
        assert.match(timedOut.message, /timed out/);
        assert.ok(performance.now() - started < 5000);
        assert.equal(proxy.seen.length, 1);

        // The per-call timeout holds for each attempt: a stalled attempt is retried like a lost connection.
        proxy.plan('stall', 'forward');
        const page = await through().suppliers.listPage(undefined, { timeoutMs: 300 });
        assert.equal(page.lastResponse.statusCode, 200);
        assert.equal(proxy.seen.length, 2);

        proxy.plan('internal-error', 'internal-error', 'internal-error', 'forward');
        await rejection(through().suppliers.listPage(undefined, { maxRetries: 0 }), InternalError);
        assert.equal(proxy.seen.length, 1, 'maxRetries 0: one attempt');
        proxy.plan('internal-error', 'internal-error', 'internal-error', 'forward');
        const retried = await through({ retry: { ...FAST, maxRetries: 0 } }).suppliers.listPage(undefined, {
          maxRetries: 3,
        });
        assert.equal(retried.lastResponse.statusCode, 200);
        assert.equal(proxy.seen.length, 4, 'the call’s maxRetries 3 over the client’s 0');
      });

      test('a signal aborts the attempt in flight or the wait before a retry; neither is retried', async () => {
        proxy.plan('stall', 'forward');
        const inFlight = new AbortController();
        setTimeout(() => inFlight.abort(), 100);
        await rejection(through().suppliers.listPage(undefined, { signal: inFlight.signal }), TprmAbortError);
        assert.equal(proxy.seen.length, 1);

        proxy.plan('internal-error', 'forward');
        const waiting = new AbortController();
        const started = performance.now();
        setTimeout(() => waiting.abort(), 100);
        const slow = through({ retry: { initialDelayMs: 20_000, maxDelayMs: 20_000 } });
        const error = await rejection(
          slow.suppliers.listPage(undefined, { signal: waiting.signal }),
          TprmAbortError,
        );
        assert.ok(error instanceof TprmError && !(error instanceof TprmConnectionError));
        assert.ok(performance.now() - started < 5000, 'the backoff was cut short');
        assert.equal(proxy.seen.length, 1);

        // A signal that never fires changes nothing.
        proxy.plan();
        const idle = new AbortController();
        const unaborted = await through().suppliers.listPage(undefined, { signal: idle.signal });
        assert.equal(unaborted.lastResponse.statusCode, 200);
      });

      test('every POST takes an idempotencyKey: the same key replays the stored answer, shown on lastResponse', async () => {
        proxy.plan();
        const sdk = through();
        const key = randomUUID();
        const name = `Keyed ${key}`;
        const first = await sdk.suppliers.create({ name }, { idempotencyKey: key });
        const again = await sdk.suppliers.create({ name }, { idempotencyKey: key });
        assert.equal(again.id, first.id);
        assert.deepEqual(
          [first.lastResponse.idempotentReplayed, again.lastResponse.idempotentReplayed],
          [false, true],
        );
        assert.equal(again.lastResponse.idempotencyKey, key);
        const assessmentKey = randomUUID();
        const draft = await sdk.assessments.create(
          { supplier_id: first.id, assessment_type: 'self' },
          { idempotencyKey: assessmentKey },
        );
        assert.equal(draft.lastResponse.idempotencyKey, assessmentKey);
        assert.deepEqual(
          proxy.seen.map((seen) => seen.headers['idempotency-key']),
          [key, key, assessmentKey],
        );
      });

      test('lastResponse: status, request id and rate-limit headers of a success, not enumerable', async () => {
        proxy.plan();
        const page = await through().suppliers.listPage({ limit: 1 });
        const last = page.lastResponse;
        assert.equal(last.statusCode, 200);
        assert.match(last.requestId ?? '', UUID);
        assert.equal(last.requestId, last.headers.get('x-request-id'));
        assert.deepEqual(last.rateLimit, {
          limit: Number(last.headers.get('x-ratelimit-limit')),
          remaining: Number(last.headers.get('x-ratelimit-remaining')),
          resetSeconds: Number(last.headers.get('x-ratelimit-reset')),
        });
        assert.ok(last.rateLimit && last.rateLimit.remaining < last.rateLimit.limit);
        assert.equal(last.idempotencyKey, undefined, 'a GET sends no key');
        assert.ok(!Object.keys(page).includes('lastResponse'));
        assert.ok(!JSON.stringify(page).includes('lastResponse'), 'the result serializes as the API sent it');

        // Each page of an iteration has its own.
        const ids = new Set<string | undefined>();
        for await (const each of client.suppliers.list({ limit: 3 }).pages())
          ids.add(each.lastResponse.requestId);
        assert.ok(ids.size > 1);

        // The PDF's is the API's 302, not the file host's answer.
        const report = seed.reports?.[2]?.id as string;
        assert.equal((await h.admin('POST', `/admin/reports/${report}/render`, {})).status, 200);
        const pdf = await client.reports.pdf(report);
        assert.equal(pdf.lastResponse.statusCode, 302);
        assert.match(pdf.lastResponse.requestId ?? '', UUID);
        assert.ok(pdf.lastResponse.rateLimit);
      });

      test('User-Agent: tprm-sdk/<version of the package> node/<version>', async () => {
        proxy.plan();
        await through().suppliers.listPage();
        const { version } = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8'));
        assert.equal(SDK_VERSION, version);
        const expected = `tprm-sdk/${version} node/${process.versions.node}`;
        assert.equal(USER_AGENT, expected);
        assert.equal(proxy.seen[0]?.headers['user-agent'], expected);
      });

      test('hooks: request before each attempt, response for each answer; off() detaches; a throwing hook fails the call', async () => {
        const sdk = through();
        const events: (RequestEvent | ResponseEvent)[] = [];
        const onRequest = (event: RequestEvent) => events.push(event);
        const onResponse = (event: ResponseEvent) => events.push(event);
        sdk.on('request', onRequest);
        sdk.on('response', onResponse);
        proxy.plan('internal-error', 'forward');
        const created = await sdk.suppliers.create({ name: `Hooked ${randomUUID()}` });
        const key = created.lastResponse.idempotencyKey;
        assert.deepEqual(
          events.map((event) => [
            'status' in event ? 'response' : 'request',
            event.attempt,
            'status' in event ? event.status : null,
          ]),
          [
            ['request', 1, null],
            ['response', 1, 500],
            ['request', 2, null],
            ['response', 2, 201],
          ],
        );
        for (const event of events) {
          assert.equal(event.method, 'POST');
          assert.equal(event.path, '/v1/suppliers');
          assert.equal(event.idempotencyKey, key);
        }
        const last = events.at(-1) as ResponseEvent;
        assert.equal(last.requestId, created.lastResponse.requestId);
        assert.ok(last.elapsedMs >= 0 && last.requestEndTime >= last.requestStartTime);

        // The signed PDF URL is a credential: hooks see it as /files/….
        const paths: string[] = [];
        client.on('request', (event) => paths.push(event.path));
        await client.reports.pdf(seed.reports?.[2]?.id as string);
        assert.deepEqual(paths.slice(-1), ['/files/…']);

        sdk.off('request', onRequest);
        sdk.off('response', onResponse);
        events.length = 0;
        proxy.plan();
        await sdk.suppliers.listPage();
        assert.deepEqual(events, []);

        const failing = through();
        failing.on('request', () => {
          throw new Error('hook failed');
        });
        await assert.rejects(failing.suppliers.listPage(), /hook failed/);
        assert.throws(() => failing.on('sent' as 'request', () => {}), TypeError);
      });
    });
  });
});

describe('the SDK and 429', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let baseUrl: string;

  before(async () => {
    h = await Harness.start({ buckets: { workspace: [{ name: 'second', limit: 2, windowMs: 1000 }] } });
    baseUrl = await listen(h);
    ws = await h.workspace();
  });
  after(() => h.close());

  // The windows are aligned to the clock, so a run of requests may straddle a reset: five quick requests
  // against a limit of 2 per second always overrun one window, wherever the reset falls.
  const QUICK_REQUESTS = 5;

  test('a 429 is retried after Retry-After seconds, then succeeds', async () => {
    const seen: { status: number; at: number; retryAfter: string | null }[] = [];
    const observing: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      seen.push({
        status: response.status,
        at: performance.now(),
        retryAfter: response.headers.get('retry-after'),
      });
      return response;
    };
    const client = createClient({ baseUrl, apiKey: ws.key, retry: FAST, fetch: observing });
    for (let i = 0; i < QUICK_REQUESTS; i++) await client.suppliers.listPage();
    const limited = seen.flatMap((response, index) => (response.status === 429 ? [index] : []));
    assert.ok(limited.length > 0, `statuses ${seen.map((response) => response.status).join(', ')}`);
    for (const index of limited) {
      const retryAfter = Number(seen[index]?.retryAfter);
      assert.ok(retryAfter >= 1);
      const next = seen[index + 1];
      assert.equal(next?.status, 200);
      // The retry's answer came at least Retry-After after the 429 (timers may fire a millisecond early).
      assert.ok((next?.at ?? 0) - (seen[index]?.at ?? 0) >= retryAfter * 1000 - 2);
    }
  });

  test('a 429 is thrown at once when retries are off or Retry-After is longer than allowed', async () => {
    let sent = 0;
    const counting: typeof fetch = (input, init) => {
      sent++;
      return fetch(input, init);
    };
    for (const retry of [{ maxRetries: 0 }, { ...FAST, maxRetries: 5, maxRetryAfterSeconds: 0 }]) {
      const client = createClient({ baseUrl, apiKey: ws.key, retry, fetch: counting });
      sent = 0;
      let error: unknown;
      for (let i = 0; i < QUICK_REQUESTS && !error; i++)
        error = await client.suppliers.listPage().then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      assert.ok(error instanceof RateLimitExceededError, String(error));
      assert.ok(sent <= QUICK_REQUESTS, 'each call was one request');
      assert.equal(error.status, 429);
      assert.equal(error.code, 'rate_limit_exceeded');
      assert.ok((error.retryAfter ?? 0) >= 1);
      assert.match(error.request_id ?? '', UUID);
    }
  });
});

describe('the built package', () => {
  test('imports from an ES module and requires from CommonJS through its exports, with no dependency', async () => {
    const manifest = JSON.parse(readFileSync(join(SDK_DIR, 'package.json'), 'utf8'));
    assert.equal(manifest.dependencies, undefined, 'no runtime dependency');
    // Every import of the built files is relative or a Node built-in.
    for (const flavour of ['esm', 'cjs']) {
      const dir = join(SDK_DIR, 'dist', flavour);
      for (const file of readdirSync(dir, { recursive: true }) as string[]) {
        if (!file.endsWith('.js')) continue;
        const text = readFileSync(join(dir, file), 'utf8');
        for (const [, specifier] of text.matchAll(/(?:from |require\()["']([^"']+)["']/g))
          assert.match(specifier ?? '', /^(\.\.?\/|node:)/, `${flavour}/${file} imports ${specifier}`);
      }
    }

    // A consumer project with the package in its node_modules, as `npm install <path to sdk>` makes it.
    const consumer = mkdtempSync(join(tmpdir(), 'tprm-sdk-consumer-'));
    mkdirSync(join(consumer, 'node_modules', '@tprm'), { recursive: true });
    symlinkSync(SDK_DIR, join(consumer, 'node_modules', '@tprm', 'client'), 'dir');
    const probe = (load: string) => `
      ${load}
      const client = sdk.createClient({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k', retry: { maxRetries: 0 } });
      const body = '{"type":"alert.created"}';
      const header = sdk.webhooks.signatureHeader(body, 'whsec_x');
      client.suppliers.listPage().catch((error) => {
        console.log(JSON.stringify({
          connection: error instanceof sdk.TprmConnectionError,
          event: sdk.webhooks.constructEvent(body, header, 'whsec_x').type,
          namespaces: Object.keys(client).length,
        }));
      });`;
    writeFileSync(join(consumer, 'esm.mjs'), probe("import * as sdk from '@tprm/client';"));
    writeFileSync(join(consumer, 'cjs.cjs'), probe("const sdk = require('@tprm/client');"));
    for (const file of ['esm.mjs', 'cjs.cjs']) {
      const out = JSON.parse(execFileSync(process.execPath, [join(consumer, file)], { encoding: 'utf8' }));
      assert.deepEqual(out, { connection: true, event: 'alert.created', namespaces: 25 }, file);
    }
    // The two builds are what the exports map names.
    const esm = await import(join(SDK_DIR, 'dist/esm/index.js'));
    assert.equal(typeof esm.createClient, 'function');
    assert.deepEqual(manifest.exports['.'].import.default, './dist/esm/index.js');
    assert.deepEqual(manifest.exports['.'].require.default, './dist/cjs/index.js');
    // The Web Crypto webhook entry point (P163), through the exports map, in both flavours.
    writeFileSync(
      join(consumer, 'web.mjs'),
      "import * as w from '@tprm/client/webhooks'; console.log(typeof w.constructEventAsync);",
    );
    writeFileSync(
      join(consumer, 'web.cjs'),
      "const w = require('@tprm/client/webhooks'); console.log(typeof w.constructEventAsync);",
    );
    for (const file of ['web.mjs', 'web.cjs'])
      assert.equal(
        execFileSync(process.execPath, [join(consumer, file)], { encoding: 'utf8' }).trim(),
        'function',
      );
  });
});

describe('the generated namespaces (sdk/scripts/client-methods.mjs, P155)', () => {
  const script = join(SDK_DIR, 'scripts/client-methods.mjs');
  const committed = readFileSync(join(SDK_DIR, 'src/generated/client.ts'), 'utf8');

  test('are what openapi.json gives (no drift), and the check fails when they differ', () => {
    const ok = spawnSync(process.execPath, [script, '--check'], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    const stale = join(mkdtempSync(join(tmpdir(), 'sdk-methods-')), 'client.ts');
    writeFileSync(stale, committed.replace("    gaps: m.readOf('/assessments/{id}/gaps'),\n", ''));
    const drift = spawnSync(process.execPath, [script, '--check', stale], { encoding: 'utf8' });
    assert.equal(drift.status, 1);
    assert.match(drift.stderr, /client\.ts is out of date/);
  });

  test('give every operation called with a key one method, named by the rules', () => {
    const document = JSON.parse(apiDocumentText()) as {
      paths: Record<string, Record<string, { operationId?: string; security?: object[] }>>;
    };
    const keyed = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.operationId && (operation.security ?? []).length > 0)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    const generated = [...committed.matchAll(/\(`(\w+ [^`]+)`\)/g)].map((match) => match[1]);
    // list and listPage share their operation.
    assert.deepEqual([...new Set(generated)].sort(), keyed.sort());
    const methods = [...committed.matchAll(/^ {4}(\w+): m\.(\w+)\('([^']+)'\)/gm)].map(
      ([, name, kind, path]) => `${name} ${kind} ${path}`,
    );
    for (const expected of [
      'list list /suppliers',
      'listPage listPage /suppliers',
      'export export /suppliers',
      'get retrieve /suppliers/{id}',
      'create create /suppliers',
      'gaps readOf /assessments/{id}/gaps',
      'pdf download /reports/{id}/pdf',
      'upsert put /assets',
      'get read /risk-scores',
      'update patch /action-plan-items/{id}',
    ])
      assert.ok(methods.includes(expected), expected);
  });
});
