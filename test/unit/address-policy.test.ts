import assert from 'node:assert/strict';
import type { LookupAddress, LookupOptions } from 'node:dns';
import dns from 'node:dns/promises';
import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  checkTargetHost,
  checkWebhookUrl,
  guardedLookup,
  isForbiddenAddress,
  normalizeWebhookUrl,
} from '../../src/events/address-policy.js';

const FORBIDDEN = [
  // IPv4
  '0.0.0.0',
  '0.1.2.3',
  '10.0.0.1',
  '10.255.255.255',
  '100.64.0.1',
  '100.127.255.254',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254',
  '172.16.0.1',
  '172.31.255.255',
  '192.0.0.8',
  '192.0.2.1',
  '192.88.99.1',
  '192.168.1.1',
  '198.18.0.1',
  '198.19.255.255',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  // IPv6
  '::',
  '::1',
  '0:0:0:0:0:0:0:1',
  'fe80::1',
  'fe80::1%eth0',
  'febf:ffff::1',
  'fc00::1',
  'fd12:3456:789a::1',
  'fec0::1',
  'ff02::1',
  'ff0e::1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:8.8.8.8', // mapped forms are refused wholesale: write the v4 address instead
  '0:0:0:0:0:ffff:a9fe:a9fe',
  '::127.0.0.1',
  '::8.8.8.8',
  '::a00:1',
  '64:ff9b::127.0.0.1',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b:1::8.8.8.8',
  '2002:7f00:1::1',
  '2002:c0a8:101::',
  '2002:a9fe:a9fe::1',
  '2001::1',
  '2001:0:4136:e378:8000:63bf:3fff:fdd2',
  '2001:2::1',
  '2001:db8::1',
  '2001:DB8:ffff::1',
  '3fff::1',
  '100::1',
  '100::ffff:ffff:ffff:ffff',
  '::2',
  // not an IP literal at all: fail closed
  '',
  'localhost',
  'example.com',
  '0177.0.0.1',
  '2130706433',
  '[::1]',
];

const ALLOWED = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.216.34',
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.1',
  '192.0.1.1',
  '192.169.0.1',
  '198.17.255.255',
  '198.20.0.1',
  '223.255.255.254',
  '2606:4700:4700::1111',
  '2a00:1450:4007:80b::200e',
  '2001:4860:4860::8888',
  '2001:200::1',
  '64:ff9b::8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
  '2400:cb00::1',
];

describe('isForbiddenAddress', () => {
  for (const ip of FORBIDDEN)
    it(`forbids ${JSON.stringify(ip)}`, () => assert.equal(isForbiddenAddress(ip), true));
  for (const ip of ALLOWED) it(`allows ${ip}`, () => assert.equal(isForbiddenAddress(ip), false));
});

describe('checkWebhookUrl', () => {
  const strict = { allowInsecure: false };
  const insecure = { allowInsecure: true };

  it('accepts ordinary https URLs', () => {
    for (const url of [
      'https://example.com',
      'https://example.com/hooks?x=1#f',
      'https://hooks.example.com:8443/tprm',
      'https://8.8.8.8/hook',
      'https://[2606:4700:4700::1111]/hook',
      'https://localhost.example.com/',
      'https://mylocalhost/',
    ]) {
      assert.equal(checkWebhookUrl(url, strict), null, url);
    }
  });

  it('refuses unparsable URLs and schemes other than https', () => {
    for (const url of ['', 'example.com', '/hook', 'https://', 'https://[::1/', 'https://1.2.3.4.5/']) {
      assert.match(checkWebhookUrl(url, strict) ?? '', /not a valid/, url);
    }
    for (const url of [
      'http://example.com',
      'ftp://example.com',
      'file:///etc/passwd',
      'javascript:alert(1)',
    ]) {
      assert.match(checkWebhookUrl(url, strict) ?? '', /https:\/\//, url);
    }
    assert.match(checkWebhookUrl('ftp://example.com', insecure) ?? '', /https:\/\/ or http:\/\//);
  });

  it('refuses credentials in the URL, even when insecure targets are allowed', () => {
    for (const url of [
      'https://user:pass@example.com/',
      'https://user@example.com/',
      'https://:pw@example.com/',
    ]) {
      assert.match(checkWebhookUrl(url, strict) ?? '', /user name or password/, url);
      assert.match(checkWebhookUrl(url, insecure) ?? '', /user name or password/, url);
    }
  });

  it('catches forbidden IP literals in every numeric form the URL parser normalises', () => {
    for (const url of [
      'https://127.0.0.1/',
      'https://2130706433/',
      'https://0x7f000001/',
      'https://0x7f.1/',
      'https://0177.0.0.1/',
      'https://127.1/',
      'https://0/',
      'https://0x0a.0.0.1/',
      'https://169.254.169.254/latest/meta-data/',
      'https://%31%32%37.0.0.1/',
      'https://[::1]/',
      'https://[::]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:7f00:1]/',
      'https://[0:0:0:0:0:ffff:7f00:1]/',
      'https://[fe80::1]/',
      'https://[fd00::1]:443/',
      'https://[64:ff9b::a00:1]/',
      'https://[2002:7f00:1::]/',
      'https://[2001:db8::1]/',
    ]) {
      assert.match(checkWebhookUrl(url, strict) ?? '', /loopback, private or reserved/, url);
      assert.equal(checkWebhookUrl(url, insecure), null, url);
    }
  });

  it("a syslog host in one of IPv4's numeric shorthands is judged as the address it stands for (P211)", () => {
    for (const host of [
      '127.1',
      '2130706433',
      '0x7f000001',
      '0x7f.1',
      '0177.0.0.1',
      '0',
      '10.1',
      '169.254.43518',
    ]) {
      assert.match(checkTargetHost(host, strict) ?? '', /loopback, private or reserved/, host);
      assert.equal(checkTargetHost(host, insecure), null, host);
    }
    for (const host of ['siem.example', '8.8.8.8', '134744072', 'collector-1.example.com'])
      assert.equal(checkTargetHost(host, strict), null, host);
  });

  it('refuses localhost names unless insecure targets are allowed', () => {
    for (const url of [
      'https://localhost/',
      'https://LOCALHOST:8443/',
      'https://localhost./',
      'https://api.localhost/',
    ]) {
      assert.match(checkWebhookUrl(url, strict) ?? '', /localhost/, url);
      assert.equal(checkWebhookUrl(url, insecure), null, url);
    }
  });

  it('allows http and loopback when insecure targets are allowed', () => {
    assert.equal(checkWebhookUrl('http://127.0.0.1:3000/hook', insecure), null);
    assert.equal(checkWebhookUrl('http://localhost:3000/hook', insecure), null);
  });
});

describe('normalizeWebhookUrl (P105)', () => {
  const strict = { allowInsecure: false };

  it('refuses control characters anywhere, even those the URL parser would silently drop or trim', () => {
    for (const ch of ['\t', '\n', '\r', '\u0000', '\u001b', '\u0007', '\u007f', '\u0085', '\u009b']) {
      for (const url of [
        `https://exa${ch}mple.com/`,
        `https://example.com/a${ch}b`,
        `${ch}https://example.com/`,
      ]) {
        const result = normalizeWebhookUrl(url, strict);
        assert.match(result.problem ?? '', /control characters/, JSON.stringify(url));
        // checkWebhookUrl, which the sender runs before each attempt, says the same.
        assert.equal(checkWebhookUrl(url, strict), result.problem);
      }
    }
  });

  it('answers the WHATWG serialisation, which parses back to itself', () => {
    for (const [url, href] of [
      ['https://Hooks.Example.COM', 'https://hooks.example.com/'],
      ['HTTPS://hooks.example.com:443/a/./b/../c', 'https://hooks.example.com/a/c'],
      ['https://hooks.example.com/a b?q=x y', 'https://hooks.example.com/a%20b?q=x%20y'],
      ['https:\\\\hooks.example.com\\tprm', 'https://hooks.example.com/tprm'],
      ['  https://hooks.example.com/x  ', 'https://hooks.example.com/x'],
      ['https://bücher.example/hook', 'https://xn--bcher-kva.example/hook'],
      ['https://hooks.example.com/x?', 'https://hooks.example.com/x?'],
    ]) {
      const result = normalizeWebhookUrl(url as string, strict);
      assert.equal(result.problem, undefined, url);
      assert.equal(result.href, href, url);
      assert.equal(new URL(href as string).href, href);
    }
  });

  it('refuses a fragment, which is never sent, and a normalised form over 2048 characters', () => {
    for (const url of ['https://example.com/#', 'https://example.com/x#f', 'https://example.com/?q#'])
      assert.match(normalizeWebhookUrl(url, strict).problem ?? '', /fragment/, url);
    // 1000 spaces are 3000 characters once percent-encoded.
    const long = `https://example.com/${' '.repeat(1000)}x`;
    assert.ok(long.length <= 2048);
    assert.match(normalizeWebhookUrl(long, strict).problem ?? '', /2048 characters once normalised/);
  });

  it("keeps checkWebhookUrl's refusals", () => {
    assert.match(normalizeWebhookUrl('http://example.com/', strict).problem ?? '', /https:\/\//);
    assert.match(normalizeWebhookUrl('https://u:p@example.com/', strict).problem ?? '', /user name/);
    assert.match(normalizeWebhookUrl('https://127.1/', strict).problem ?? '', /loopback/);
  });
});

type LookupResult = { err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

function callLookup(lookup: LookupFunction, host: string, options: unknown): Promise<LookupResult> {
  return new Promise((resolve) => {
    const cb = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) =>
      resolve({ err, address, family });
    if (options === undefined) (lookup as unknown as (h: string, c: typeof cb) => void)(host, cb);
    else lookup(host, options as LookupOptions, cb);
  });
}

describe('guardedLookup', () => {
  it('answers in the form asked for: array with all: true, one address otherwise', async () => {
    const lookup = guardedLookup(false);
    assert.deepEqual(await callLookup(lookup, '8.8.8.8', { all: true }), {
      err: null,
      address: [{ address: '8.8.8.8', family: 4 }],
      family: undefined,
    });
    for (const options of [{}, { all: false }, { family: 4 }, 4, 0, undefined]) {
      assert.deepEqual(
        await callLookup(lookup, '8.8.8.8', options),
        { err: null, address: '8.8.8.8', family: 4 },
        JSON.stringify(options),
      );
    }
  });

  it('fails with EFORBIDDENADDRESS saying the target is refused, never what it resolves to (P73), in both forms', async () => {
    const lookup = guardedLookup(false);
    for (const [host, options] of [
      ['localhost', { all: true }],
      ['localhost', {}],
      ['127.0.0.1', { all: false }],
      ['169.254.169.254', { all: true }],
    ] as const) {
      const { err } = await callLookup(lookup, host, options);
      assert.equal(err?.code, 'EFORBIDDENADDRESS', host);
      assert.match(err?.message ?? '', /refused/, host);
      const resolved = await dns.lookup(host, { all: true });
      assert.ok(resolved.length > 0, host);
      for (const { address } of resolved) assert.ok(!err?.message.includes(address), err?.message);
      assert.doesNotMatch(err?.message ?? '', /loopback|private|link-local|reserved/, host);
    }
  });

  it('lets everything through when insecure targets are allowed', async () => {
    const lookup = guardedLookup(true);
    const all = await callLookup(lookup, 'localhost', { all: true });
    assert.equal(all.err, null);
    assert.ok(Array.isArray(all.address) && all.address.length > 0);
    const one = await callLookup(lookup, '127.0.0.1', {});
    assert.deepEqual(one, { err: null, address: '127.0.0.1', family: 4 });
  });

  it('passes resolver errors through', async () => {
    const { err } = await callLookup(guardedLookup(false), 'does-not-exist.invalid', { all: true });
    assert.ok(err);
    assert.notEqual(err.code, 'EFORBIDDENADDRESS');
  });

  describe('plugged into http.request', () => {
    let server: http.Server;
    let port = 0;
    let boundAddress = '';
    let hits = 0;

    before(async () => {
      server = http.createServer((_req, res) => {
        hits++;
        res.end('ok');
      });
      // Bound the way Node connects to the first address of `localhost`, whether that is 127.0.0.1 or ::1.
      await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
      ({ port, address: boundAddress } = server.address() as AddressInfo);
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    // Records the options Node passes, to show both lookup forms are exercised on this Node version.
    const seenAll: boolean[] = [];
    function spy(inner: LookupFunction): LookupFunction {
      return (host, options, cb) => {
        seenAll.push(options?.all === true);
        inner(host, options, cb);
      };
    }

    function get(host: string, lookup: LookupFunction, autoSelectFamily: boolean) {
      return new Promise<{ status?: number; body?: string; err?: NodeJS.ErrnoException }>((resolve) => {
        // autoSelectFamily is handed on to net.connect at runtime; @types/node 20 lacks it on RequestOptions.
        const options: http.RequestOptions & { autoSelectFamily: boolean } = {
          host,
          port,
          path: '/',
          lookup,
          autoSelectFamily,
          agent: false,
        };
        const req = http.request(options, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode, body }));
        });
        req.on('error', (err) => resolve({ err }));
        req.end();
      });
    }

    for (const autoSelectFamily of [true, false]) {
      it(`refuses localhost when not insecure (autoSelectFamily: ${autoSelectFamily})`, async () => {
        const before = hits;
        const { err, status } = await get('localhost', spy(guardedLookup(false)), autoSelectFamily);
        assert.equal(status, undefined);
        assert.equal(err?.code, 'EFORBIDDENADDRESS');
        assert.match(err?.message ?? '', /refused/);
        assert.equal(hits, before, 'the server must not have been reached');
      });

      it(`reaches localhost when insecure (autoSelectFamily: ${autoSelectFamily})`, async () => {
        const result = await get('localhost', spy(guardedLookup(true)), autoSelectFamily);
        assert.deepEqual(result, { status: 200, body: 'ok' });
      });
    }

    it('was called by Node in both the all and the single-address forms', () => {
      assert.ok(seenAll.includes(true), 'all: true form not seen');
      assert.ok(seenAll.includes(false), 'single-address form not seen');
    });

    it('is not consulted by Node for an IP literal host (hence checkWebhookUrl before each send)', async () => {
      let called = false;
      const lookup: LookupFunction = (host, options, cb) => {
        called = true;
        guardedLookup(false)(host, options, cb);
      };
      const result = await get(boundAddress, lookup, true);
      assert.equal(called, false);
      assert.equal(result.status, 200);
    });
  });
});
