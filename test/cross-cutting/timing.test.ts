// Timing of key rejection (risk-data-api.md "Authentication" 4, decision 27; OWASP API2): a well-formed key
// whose prefix exists but whose secret is wrong must cost what a key with an unknown prefix costs, or the
// response time would tell which prefixes (keys) exist. Both look the secret's SHA-256 up by index
// (src/http/auth.ts): the prefix is never consulted, so neither path can skip the database round trip.
//
// Measured in-process over thousands of interleaved requests. The bound is calibrated on this machine: a
// malformed key is refused without any query, so "unknown" minus "malformed" is what one round trip costs
// here; the two paths must differ by well under half of that, and neither may be the slower one in most
// pairs. Busy machines add noise to both sides alike, which the medians and the pairing absorb.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { useHarness } from '../support/harness.js';

const PAIRS = 2000;

const { h, ws } = useHarness({ workspaces: ['ws'] });

// A fresh secret every time, so that no cache can remember a rejected key.
const secret = () => randomBytes(32).toString('base64url');
const unknownKey = () => `tprm_${randomBytes(4).toString('hex')}_${secret()}`;
const wrongSecret = () => `${ws.key.slice(0, 'tprm_12345678_'.length)}${secret()}`;

async function rejectionTime(key: string): Promise<number> {
  const start = process.hrtime.bigint();
  const res = await h.api('GET', '/suppliers', { key });
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  assert.equal(res.status, 401, res.body);
  return elapsed;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

test('an unknown key and a known prefix with a wrong secret are refused in the same time', async (t) => {
  assert.ok(wrongSecret().startsWith(ws.key.slice(0, 14)) && wrongSecret() !== ws.key);
  for (let i = 0; i < 200; i++) {
    await rejectionTime(unknownKey());
    await rejectionTime(wrongSecret());
  }
  const unknown: number[] = [];
  const wrong: number[] = [];
  const malformed: number[] = [];
  const differences: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    // Alternate which goes first, so that whatever the first request of a pair pays is paid by both.
    const [first, second] = i % 2 ? [unknownKey, wrongSecret] : [wrongSecret, unknownKey];
    const a = await rejectionTime(first());
    const b = await rejectionTime(second());
    const [u, w] = i % 2 ? [a, b] : [b, a];
    unknown.push(u);
    wrong.push(w);
    differences.push(w - u);
    if (i % 4 === 0) malformed.push(await rejectionTime(`not-a-key-${secret()}`));
  }
  const roundTrip = median(unknown) - median(malformed);
  const skew = median(differences);
  const wrongSlower = differences.filter((d) => d > 0).length / PAIRS;
  t.diagnostic(
    `median ms: unknown ${median(unknown).toFixed(3)}, wrong secret ${median(wrong).toFixed(3)}, ` +
      `malformed (no query) ${median(malformed).toFixed(3)}; paired difference ${skew.toFixed(3)}; ` +
      `wrong secret slower in ${(wrongSlower * 100).toFixed(1)}% of pairs`,
  );
  assert.ok(
    roundTrip > 0,
    `a key lookup costs nothing measurable here (${roundTrip} ms): the test proves nothing`,
  );
  assert.ok(
    Math.abs(skew) < roundTrip / 2,
    `the two rejections differ by ${skew.toFixed(3)} ms, a round trip costs ${roundTrip.toFixed(3)} ms`,
  );
  assert.ok(wrongSlower > 0.3 && wrongSlower < 0.7, `one path is the slower in ${wrongSlower} of pairs`);
});
