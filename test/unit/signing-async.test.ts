// constructEventAsync on Web Crypto (P163): the same vectors as the synchronous check (signing.ts) give the
// same answers under Node's globalThis.crypto.subtle; and the `@tprm/client/webhooks` entry point verifies in a
// process where node:crypto cannot be loaded at all.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Stripe from 'stripe';
import { WebhookSignatureError, webhooks } from '../../sdk/src/index.js';
import { checkSignature, signatureHeader } from '../../sdk/src/signing.js';
import { checkSignatureAsync, constructEventAsync } from '../../sdk/src/webhooks-web.js';

const SDK_DIR = fileURLToPath(new URL('../../../sdk/', import.meta.url));
const secret = 'whsec_test_secret_0123456789abcdef';
const otherSecret = 'whsec_other_secret_fedcba9876543210';
const raw = JSON.stringify({
  event_id: '0b7d6a3e-4c1f-4f61-9a55-2f3f0d1c9e11',
  type: 'assessment.completed',
  data: { assessment_id: 'a1', note: 'é ✓ 🙂' },
});
const t = 1_700_000_000;
const sig = (key = secret, body: string | Uint8Array = raw) =>
  signatureHeader([key], body, t).split(',')[1]?.slice(3) ?? '';

/** Headers, bodies, secrets and clocks: every case of the synchronous check's tests. */
function vectors(): [string | Uint8Array, string, string, number, number][] {
  const cases: [string | Uint8Array, string, string, number, number][] = [];
  const headers = [
    `t=${t},v1=${sig()}`,
    ` t = ${t} , v1 = ${sig()} `,
    `v0=deadbeef,t=${t},v1=${sig(otherSecret)},v1=${sig()},x=1,novalue`,
    `v1=${sig()},t=${t}`,
    `t=${t},v1=${sig().toUpperCase()}`,
    `v1=${sig()}`,
    `t=${t},v0=${sig()}`,
    `t=${t},v1=${sig(otherSecret)}`,
    `t=${t},t=${t},v1=${sig()}`,
    `t=${t + 1},t=${t},v1=${sig()}`,
    signatureHeader([otherSecret, secret], raw, t),
    new Stripe('sk_test_x').webhooks.generateTestHeaderString({ payload: raw, secret, timestamp: t }),
    ...['', 'abc', '12a', '-5', '1e9', '0x10', '1700000000.0', ' ', '99999999999999999999'].map(
      (tv) => `t=${tv},v1=${sig()}`,
    ),
    ...['', 'abc', sig().slice(0, 63), `${sig()}0`, 'z'.repeat(64), 'é'.repeat(32), `${sig()} x`].map(
      (bad) => `t=${t},v1=${bad}`,
    ),
    ...['', ',', '=', ',,,', 't', 't=', 'v1=', '==,==', '\u0000', 'x'.repeat(10_000)],
  ];
  for (let i = 0; i < 100; i++) headers.push(randomBytes(i % 80).toString('latin1'));
  for (const header of headers) {
    cases.push([raw, header, secret, 300, t]);
    cases.push([Buffer.from(raw), header, secret, 300, t]);
    cases.push([raw.replace('a1', 'a2'), header, secret, 300, t]);
    cases.push([raw, header, otherSecret, 300, t]);
    cases.push([raw, header, '', 300, t]);
  }
  for (const [tolerance, now] of [
    [300, t + 300],
    [300, t + 301],
    [300, t - 300],
    [300, t - 301],
    [10, t + 11],
    [Number.POSITIVE_INFINITY, t + 10 ** 9],
    [Number.NaN, t],
    [300, Number.NaN],
  ] as const)
    cases.push([raw, `t=${t},v1=${sig()}`, secret, tolerance, now]);
  const body = new Uint8Array([0xff, 0x00, 0x7b, 0x80]);
  cases.push([body, `t=${t},v1=${sig(secret, body)}`, secret, 300, t]);
  return cases;
}

describe('checkSignatureAsync (Web Crypto) answers as checkSignature (node:crypto)', () => {
  it('on every vector: the same ok, timestamp and reason', async () => {
    assert.ok(globalThis.crypto?.subtle, "Node's Web Crypto");
    let accepted = 0;
    for (const [body, header, key, tolerance, now] of vectors()) {
      const expected = checkSignature(body, header, key, tolerance, now);
      assert.deepEqual(await checkSignatureAsync(body, header, key, tolerance, now), expected, header);
      if (expected.ok) accepted++;
    }
    assert.ok(accepted >= 10, `vectors that verify: ${accepted}`);
  });

  it('never rejects on malformed input', async () => {
    for (const weird of [null, undefined, 42, {}, [], Buffer.from('t=1')])
      assert.deepEqual(await checkSignatureAsync(raw, weird as string, secret, 300, t), {
        ok: false,
        reason: 'malformed_input',
      });
    assert.equal(
      (await checkSignatureAsync(42 as unknown as string, `t=${t},v1=${sig()}`, secret)).ok,
      false,
    );
  });
});

describe('webhooks.constructEventAsync', () => {
  const fresh = () => signatureHeader([secret], raw, Math.floor(Date.now() / 1000));

  it('resolves with the same event as constructEvent, for a string and for bytes', async () => {
    const header = fresh();
    const sync = webhooks.constructEvent(raw, header, secret);
    assert.deepEqual(await webhooks.constructEventAsync(raw, header, secret), sync);
    assert.deepEqual(await webhooks.constructEventAsync(new TextEncoder().encode(raw), header, secret), sync);
    assert.deepEqual(await constructEventAsync(raw, header, secret), sync);
  });

  it('rejects with WebhookSignatureError and its reason, like constructEvent throws', async () => {
    const stale = signatureHeader([secret], raw, Math.floor(Date.now() / 1000) - 301);
    for (const [header, key, reason] of [
      [fresh(), otherSecret, 'mismatch'],
      [stale, secret, 'timestamp_out_of_tolerance'],
      [undefined, secret, 'malformed_input'],
      [[fresh(), fresh()], secret, 'malformed_input'],
    ] as const) {
      assert.throws(
        () => webhooks.constructEvent(raw, header as string, key),
        (error) => error instanceof WebhookSignatureError && error.reason === reason,
      );
      await assert.rejects(
        webhooks.constructEventAsync(raw, header as string, key),
        (error) => error instanceof WebhookSignatureError && error.reason === reason,
      );
    }
  });

  it('@tprm/client/webhooks verifies where node:crypto cannot be loaded', () => {
    const exports = JSON.parse(readFileSync(`${SDK_DIR}package.json`, 'utf8')).exports['./webhooks'];
    const entry = new URL(exports.import.default, `file://${SDK_DIR}`).href;
    const header = fresh();
    // A loader that refuses node:crypto (and crypto), and no process.getBuiltinModule: a runtime without it.
    const refuse = `data:text/javascript,${encodeURIComponent(
      'export async function resolve(s, c, n) { if (s === "node:crypto" || s === "crypto") throw new Error("no node:crypto on this runtime"); return n(s, c); }',
    )}`;
    const script = `
      delete process.getBuiltinModule;
      await import('node:crypto').then(() => { throw new Error('node:crypto loaded'); }, () => {});
      const { constructEventAsync, WebhookSignatureError } = await import(${JSON.stringify(entry)});
      const event = await constructEventAsync(process.env.BODY, process.env.HEADER, process.env.SECRET);
      const refused = await constructEventAsync(process.env.BODY, process.env.HEADER, 'whsec_wrong').catch((e) => e);
      console.log(JSON.stringify({ id: event.event_id, refused: refused instanceof WebhookSignatureError && refused.reason }));
    `;
    const child = spawnSync(
      process.execPath,
      [
        '--import',
        `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(refuse)});`)}`,
        '--input-type=module',
        '-e',
        script,
      ],
      { env: { PATH: process.env.PATH, BODY: raw, HEADER: header, SECRET: secret }, encoding: 'utf8' },
    );
    assert.equal(child.status, 0, child.stderr);
    assert.deepEqual(JSON.parse(child.stdout), {
      id: '0b7d6a3e-4c1f-4f61-9a55-2f3f0d1c9e11',
      refused: 'mismatch',
    });
  });
});
