import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import Stripe from 'stripe';
import {
  checkSignature,
  generateSigningSecret,
  signatureHeader,
  verifySignature,
} from '../../sdk/src/signing.js';

const stripe = new Stripe('sk_test_x');
const secret = 'whsec_test_secret_0123456789abcdef';
const otherSecret = 'whsec_other_secret_fedcba9876543210';
const raw = JSON.stringify({
  event_id: '0b7d6a3e-4c1f-4f61-9a55-2f3f0d1c9e11',
  type: 'assessment.completed',
  occurred_at: '2025-01-02T03:04:05.000Z',
  organization_id: '6f1f7a0e-1c2b-4d3e-8f90-123456789abc',
  data: { assessment_id: 'a1', supplier_id: 's1', status: 'completed', note: 'é ✓ 🙂' },
});
const now = () => Math.floor(Date.now() / 1000);

// The payment processor's library, both as instance and static, so either call style is proven to verify.
const stripeVerifiers = [
  ['instance', stripe.webhooks],
  ['static', Stripe.webhooks],
] as const;

function stripeAccepts(body: string | Buffer, header: string, key: string): boolean {
  const results = stripeVerifiers.map(([, webhooks]) => {
    try {
      webhooks.constructEvent(body, header, key, 300);
      return true;
    } catch (err) {
      assert.equal((err as { type?: string }).type, 'StripeSignatureVerificationError');
      return false;
    }
  });
  assert.equal(results[0], results[1], 'instance and static verifiers disagree');
  return results[0] === true;
}

describe('signatureHeader', () => {
  it('has the form t=<t>,v1=<64 lowercase hex>, no spaces', () => {
    assert.match(signatureHeader([secret], raw, 1_700_000_000), /^t=1700000000,v1=[0-9a-f]{64}$/);
  });

  it('is HMAC-SHA256 over "<t>.<body>" keyed with the whole whsec_ string', () => {
    const t = 1_700_000_000;
    const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex');
    assert.equal(signatureHeader([secret], raw, t), `t=${t},v1=${expected}`);
  });

  it("matches the payment processor's own test header byte for byte", () => {
    const t = 1_700_000_123;
    assert.equal(
      signatureHeader([secret], raw, t),
      stripe.webhooks.generateTestHeaderString({ payload: raw, secret, timestamp: t }),
    );
  });

  it('signs a Buffer body exactly like the same string', () => {
    assert.equal(signatureHeader([secret], Buffer.from(raw), 42), signatureHeader([secret], raw, 42));
  });

  it('puts one v1 per secret, in order (new first during rotation)', () => {
    const header = signatureHeader([secret, otherSecret], raw, 42);
    const [t, first, second, ...rest] = header.split(',');
    assert.equal(t, 't=42');
    assert.equal(first, signatureHeader([secret], raw, 42).split(',')[1]);
    assert.equal(second, signatureHeader([otherSecret], raw, 42).split(',')[1]);
    assert.deepEqual(rest, []);
  });

  it('refuses no secret and a bad timestamp', () => {
    assert.throws(() => signatureHeader([], raw, 42), /at least one signing secret/);
    for (const t of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => signatureHeader([secret], raw, t), /timestamp/);
    }
  });
});

describe('verifySignature and the stripe package agree', () => {
  it('accepts a fresh header we produce (string and Buffer bodies)', () => {
    const header = signatureHeader([secret], raw, now());
    assert.equal(verifySignature(raw, header, secret), true);
    assert.equal(verifySignature(Buffer.from(raw), header, secret), true);
    assert.equal(stripeAccepts(raw, header, secret), true);
    assert.equal(stripeAccepts(Buffer.from(raw), header, secret), true);
    const event = stripe.webhooks.constructEvent(raw, header, secret, 300) as unknown as { event_id: string };
    assert.equal(event.event_id, '0b7d6a3e-4c1f-4f61-9a55-2f3f0d1c9e11');
  });

  it('rejects a tampered body', () => {
    const header = signatureHeader([secret], raw, now());
    const tampered = raw.replace('"completed"', '"in_progress"');
    assert.notEqual(tampered, raw);
    assert.equal(verifySignature(tampered, header, secret), false);
    assert.equal(stripeAccepts(tampered, header, secret), false);
  });

  it('rejects the wrong secret', () => {
    const header = signatureHeader([secret], raw, now());
    assert.equal(verifySignature(raw, header, otherSecret), false);
    assert.equal(stripeAccepts(raw, header, otherSecret), false);
  });

  it('rejects a t older than 5 minutes', () => {
    const header = signatureHeader([secret], raw, now() - 301);
    assert.equal(verifySignature(raw, header, secret), false);
    assert.equal(stripeAccepts(raw, header, secret), false);
    assert.deepEqual(checkSignature(raw, header, secret), {
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('accepts with either secret during rotation (two v1)', () => {
    const header = signatureHeader([otherSecret, secret], raw, now());
    for (const key of [secret, otherSecret]) {
      assert.equal(verifySignature(raw, header, key), true);
      assert.equal(stripeAccepts(raw, header, key), true);
    }
    assert.equal(verifySignature(raw, header, 'whsec_third'), false);
    assert.equal(stripeAccepts(raw, header, 'whsec_third'), false);
  });

  it('verifies headers made by the stripe package', () => {
    const t = now();
    const header = stripe.webhooks.generateTestHeaderString({ payload: raw, secret, timestamp: t });
    assert.equal(verifySignature(raw, header, secret), true);
  });
});

describe('verifySignature tolerance', () => {
  const t = 1_700_000_000;
  const header = signatureHeader([secret], raw, t);

  it('accepts exactly at the tolerance and rejects one second beyond, in the past and the future', () => {
    assert.equal(verifySignature(raw, header, secret, 300, t + 300), true);
    assert.equal(verifySignature(raw, header, secret, 300, t + 301), false);
    assert.equal(verifySignature(raw, header, secret, 300, t - 300), true);
    assert.equal(verifySignature(raw, header, secret, 300, t - 301), false);
  });

  it('honours a custom tolerance, and Infinity disables the age check', () => {
    assert.equal(verifySignature(raw, header, secret, 10, t + 11), false);
    assert.equal(verifySignature(raw, header, secret, Number.POSITIVE_INFINITY, t + 10 ** 9), true);
  });

  it('defaults to the current clock', () => {
    assert.equal(verifySignature(raw, header, secret), false);
    assert.equal(verifySignature(raw, signatureHeader([secret], raw, now() + 60), secret), true);
    assert.equal(verifySignature(raw, signatureHeader([secret], raw, now() + 301), secret), false);
  });
});

describe('verifySignature header parsing', () => {
  const t = 1_700_000_000;
  const sig = (key = secret) => signatureHeader([key], raw, t).split(',')[1]?.slice(3) ?? '';
  const ok = (header: string) => verifySignature(raw, header, secret, 300, t);

  it('tolerates spaces, unknown schemes and several v1 in any order', () => {
    assert.equal(ok(` t = ${t} , v1 = ${sig()} `), true);
    assert.equal(ok(`v0=deadbeef,t=${t},v1=${sig(otherSecret)},v1=${sig()},x=1,novalue`), true);
    assert.equal(ok(`v1=${sig()},t=${t}`), true);
    assert.equal(ok(`t=${t},v1=${sig().toUpperCase()}`), true);
  });

  it('says why it rejects', () => {
    const check = (header: string) => checkSignature(raw, header, secret, 300, t);
    assert.deepEqual(check(`t=${t},v1=${sig()}`), { ok: true, timestamp: t });
    assert.deepEqual(check(`v1=${sig()}`), { ok: false, reason: 'bad_timestamp' });
    assert.deepEqual(check(`t=${t},v0=${sig()}`), { ok: false, reason: 'no_signature' });
    assert.deepEqual(check(`t=${t},v1=${sig(otherSecret)}`), { ok: false, reason: 'mismatch' });
    assert.deepEqual(checkSignature(raw, `t=${t},v1=${sig()}`, ''), { ok: false, reason: 'malformed_input' });
  });

  it('rejects a missing, non-numeric or duplicated t', () => {
    for (const tv of ['', 'abc', '12a', '-5', '1e9', '0x10', '1700000000.0', ' ', '99999999999999999999']) {
      assert.equal(ok(`t=${tv},v1=${sig()}`), false, `t=${tv}`);
    }
    assert.equal(ok(`t=${t},t=${t},v1=${sig()}`), false);
    assert.equal(ok(`t=${t + 1},t=${t},v1=${sig()}`), false);
  });

  it('rejects signatures of the wrong length or alphabet without throwing', () => {
    for (const bad of [
      '',
      'abc',
      sig().slice(0, 63),
      `${sig()}0`,
      'z'.repeat(64),
      'é'.repeat(32),
      `${sig()} x`,
    ]) {
      assert.equal(ok(`t=${t},v1=${bad}`), false, bad);
    }
  });

  it('never throws on malformed input', () => {
    const samples: unknown[] = ['', ',', '=', ',,,', 't', 't=', 'v1=', '==,==', '\u0000', 'x'.repeat(10_000)];
    for (let i = 0; i < 500; i++) samples.push(randomBytes(i % 80).toString('latin1'));
    const weird: unknown[] = [null, undefined, 42, {}, [], Buffer.from('t=1')];
    for (const header of [...samples, ...weird]) {
      assert.equal(verifySignature(raw, header as string, secret, 300, t), false);
    }
    for (const body of weird) {
      assert.equal(verifySignature(body as string, `t=${t},v1=${sig()}`, secret, 300, t), false);
    }
    assert.equal(verifySignature(raw, `t=${t},v1=${sig()}`, undefined as unknown as string, 300, t), false);
    assert.equal(verifySignature(raw, `t=${t},v1=${sig()}`, secret, Number.NaN, t), false);
    assert.equal(verifySignature(raw, `t=${t},v1=${sig()}`, secret, 300, Number.NaN), false);
  });
});

describe('generateSigningSecret', () => {
  it('is whsec_ followed by 32 random bytes in base64url', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const s = generateSigningSecret();
      assert.match(s, /^whsec_[A-Za-z0-9_-]{43}$/);
      assert.equal(Buffer.from(s.slice(6), 'base64url').length, 32);
      seen.add(s);
    }
    assert.equal(seen.size, 50);
  });

  it('works as a key for both verifiers', () => {
    const s = generateSigningSecret();
    const header = signatureHeader([s], raw, now());
    assert.equal(verifySignature(raw, header, s), true);
    assert.equal(stripeAccepts(raw, header, s), true);
  });
});
