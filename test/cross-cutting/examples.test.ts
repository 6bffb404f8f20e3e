// The runnable examples of examples/, each run as its own process against the real service, through the SDK.
// webhook-receiver.mjs: risk-data-api.md "Signature" and "Delivery" 1 and 4, seen from the receiver's side.
// siem-poller.mjs: "Audit" (the cursor stored and resumed for continuous polling). asset-sync.mjs: "PUT rules"
// 1-3 and decision 34, in batches of the 500-item limit.
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { signatureHeader } from '../../sdk/src/signing.js';
import { type TestWorkspace, useHarness } from '../support/harness.js';
import { eventually } from '../support/receiver.js';

const EXAMPLES = fileURLToPath(new URL('../../../examples/', import.meta.url));

interface Example {
  child: ChildProcess;
  lines: Record<string, unknown>[];
}

/** Runs an example to its end: its exit code and output. */
async function runToEnd(script: string, args: string[], env: Record<string, string>) {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(EXAMPLES, script), ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return { stdout, stderr };
}

function run(script: string, env: Record<string, string>): Promise<Example & { url: string }> {
  const child = spawn(process.execPath, [join(EXAMPLES, script)], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const part of parts) {
        const line = JSON.parse(part) as Record<string, unknown>;
        lines.push(line);
        if (line.msg === 'listening') resolve({ child, lines, url: line.url as string });
      }
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

// One service for every example.
let apiUrl: string;
const { h } = useHarness({ env: { WEBHOOK_ALLOW_INSECURE_URLS: 'true' } }, async () => {
  await h.publicApp.listen({ port: 0, host: '127.0.0.1' });
  apiUrl = `http://127.0.0.1:${(h.publicApp.server.address() as AddressInfo).port}/v1`;
});

describe('examples/webhook-receiver.mjs', () => {
  let ws: TestWorkspace;
  let receiver: Example & { url: string };
  let secret: string;
  let endpointId: string;

  before(async () => {
    ws = await h.workspace();
    // The endpoint's secret is needed to start the receiver, and its URL to register the endpoint: register
    // a placeholder, start the receiver with the secret, then point the endpoint at it.
    const created = await h.admin('POST', `/admin/workspaces/${ws.id}/webhook-endpoints`, {
      url: 'https://placeholder.example/hook',
      events: ['alert.created'],
    });
    secret = created.json.signing_secret;
    endpointId = created.json.id;
    receiver = await run('webhook-receiver.mjs', {
      WEBHOOK_SECRET: secret,
      TPRM_API_KEY: ws.key,
      TPRM_API_URL: apiUrl,
      PORT: '0',
      SEEN_FILE: join(await mkdtemp(join(tmpdir(), 'tprm-receiver-')), 'seen.txt'),
    });
    await h.admin('PATCH', `/admin/webhook-endpoints/${endpointId}`, { url: receiver.url });
    await h.worker();
  });
  after(() => {
    receiver?.child.kill('SIGTERM');
  });

  const post = (body: string, signature: string) =>
    fetch(receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-signature': signature },
      body,
    });

  test('a delivery verifies, is processed once with the full resource fetched; a replay is a duplicate', async () => {
    const supplierId = randomUUID();
    await h.import(ws.id, { suppliers: [{ id: supplierId, name: 'Acme Example', status: 'active' }] });
    const alert = await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
      scope: 'supplier',
      supplier_id: supplierId,
      severity: 'high',
      title: 'Leak',
      body: 'b',
    });
    assert.equal(alert.status, 201);
    const processed = await eventually(async () =>
      receiver.lines.find((line) => line.msg === 'event processed'),
    );
    assert.equal(processed.type, 'alert.created');
    // The full alert, read through the API.
    assert.deepEqual(
      [processed.resource as Record<string, unknown>].map(({ id, supplier_id, title }) => ({
        id,
        supplier_id,
        title,
      })),
      [{ id: alert.json.id, supplier_id: supplierId, title: 'Leak' }],
    );

    // The receiver logs before it answers: wait for the dispatcher to record the answer.
    const delivery = await eventually(
      async () => (await h.api('GET', '/webhook-deliveries?status=delivered', { key: ws.key })).json.data[0],
    );
    const replay = await h.admin('POST', `/admin/webhook-deliveries/${delivery.id}/replay`, {});
    assert.equal(replay.status, 201);
    await eventually(async () => receiver.lines.find((line) => line.msg === 'duplicate'));
    assert.equal(receiver.lines.filter((line) => line.msg === 'event processed').length, 1);
  });

  test('a bad or stale signature gets 400, not 5xx', async () => {
    const body = JSON.stringify({ event_id: randomUUID(), type: 'alert.created', data: {} });
    const now = Math.floor(Date.now() / 1000);
    const forged = await post(body, signatureHeader(['whsec_not_the_secret'], body, now));
    assert.equal(forged.status, 400);
    const stale = await post(body, signatureHeader([secret], body, now - 301));
    assert.equal(stale.status, 400);
    const missing = await post(body, '');
    assert.equal(missing.status, 400);
    const good = await post(body, signatureHeader([secret], body, now));
    assert.equal(good.status, 200);
  });
});

describe('examples/siem-poller.mjs and examples/asset-sync.mjs', () => {
  let env: Record<string, string>;
  let ws: TestWorkspace;

  before(async () => {
    ws = await h.workspace();
    env = { TPRM_API_URL: apiUrl, TPRM_API_KEY: ws.key };
  });

  const auditIds = async () =>
    (await h.api('GET', '/audit-logs?limit=200', { key: ws.key })).json.data.map((e: { id: string }) => e.id);
  const createSuppliers = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const created = await h.api('POST', '/suppliers', {
        key: ws.key,
        body: { name: `Polled ${i}` },
        headers: { 'idempotency-key': randomUUID() },
      });
      assert.equal(created.status, 201);
    }
  };

  test('the poller prints the audit log as NDJSON and resumes from its cursor file: no duplicate, no gap', async () => {
    const cursorFile = join(await mkdtemp(join(tmpdir(), 'tprm-siem-')), 'cursor.txt');
    const poll = async () => {
      const { stdout } = await runToEnd('siem-poller.mjs', ['--once', '--cursor-file', cursorFile], env);
      return stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { id: string }).id);
    };
    await createSuppliers(3);
    const first = await poll();
    assert.deepEqual(first, await auditIds(), 'the whole log, oldest first');
    assert.ok(first.length >= 3);

    await createSuppliers(2);
    const second = await poll();
    assert.equal(second.length, 2);
    assert.deepEqual([...first, ...second], await auditIds(), 'only the new entries, in order');

    assert.deepEqual(await poll(), [], 'nothing new: nothing printed');
    await createSuppliers(1);
    assert.deepEqual([...first, ...second, ...(await poll())], await auditIds());
  });

  test('the sync upserts a CSV in batches of 500 and prints the totals; a second run changes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tprm-sync-'));
    const lines = ['external_id,name,asset_type,technical_criticality,exposure,region'];
    for (let i = 0; i < 1200; i++)
      lines.push(`srv-${i},Server ${i},infrastructure,${i % 2 ? 'high' : 'low'},internal,eu-west-${i % 3}`);
    lines.push('bad-type,Odd asset,spaceship,low,internal,eu');
    lines.push('quoted,"Server, quoted",infrastructure,low,internal,eu');
    const file = join(dir, 'assets.csv');
    await writeFile(file, `${lines.join('\n')}\n`);
    const sync = async () => JSON.parse((await runToEnd('asset-sync.mjs', [file], env)).stdout);
    const upserts = async () =>
      (await h.api('GET', '/audit-logs?action=assets.upserted&limit=200', { key: ws.key })).json.data.length;

    // The 1,201 readable rows in 3 requests; the unknown asset_type is skipped by the API, the quoted line
    // by the example itself.
    assert.deepEqual(await sync(), { rows: 1202, batches: 3, created: 1200, updated: 0, skipped: 2 });
    assert.equal(await upserts(), 3, 'three PUT /assets');
    assert.deepEqual(await sync(), { rows: 1202, batches: 3, created: 0, updated: 0, skipped: 2 });

    lines[1] = 'srv-0,Server 0 renamed,infrastructure,low,internal,eu-west-0';
    await writeFile(file, `${lines.join('\n')}\n`);
    assert.deepEqual(await sync(), { rows: 1202, batches: 3, created: 0, updated: 1, skipped: 2 });

    // The sample file shipped with the example is valid.
    const fresh = await h.workspace();
    const sample = JSON.parse(
      (
        await runToEnd('asset-sync.mjs', [join(EXAMPLES, 'assets.sample.csv')], {
          ...env,
          TPRM_API_KEY: fresh.key,
        })
      ).stdout,
    );
    assert.deepEqual(sample, { rows: 8, batches: 1, created: 8, updated: 0, skipped: 0 });
  });
});
