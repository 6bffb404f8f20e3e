// SSRF protection for webhook targets (decision 30): never a loopback, private, link-local or otherwise
// reserved address, checked on the URL at registration (checkWebhookUrl) and on the resolved addresses
// at each connection (guardedLookup). WEBHOOK_ALLOW_INSECURE_URLS turns both off for local testing.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { CONTROLS_REFUSED, hasControlCharacter, WEBHOOK_URL_MAX_LENGTH } from '../schema/fields.js';

const V4_BLOCKED: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast 255.255.255.255
];

// Only applied inside global unicast 2000::/3: everything outside it is refused wholesale (below).
const V6_BLOCKED: ReadonlyArray<[string, number]> = [
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID...
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
];

const v4List = new BlockList();
for (const [net, prefix] of V4_BLOCKED) v4List.addSubnet(net, prefix, 'ipv4');
const v6List = new BlockList();
for (const [net, prefix] of V6_BLOCKED) v6List.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of a valid IPv6 literal (validated by isIP beforehand), zone id stripped. */
function v6Groups(ip: string): number[] {
  let text = ip.replace(/%.*$/, '');
  // A trailing dotted quad (::ffff:1.2.3.4) is the last two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const v4FromGroups = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * True when an IP literal (v4 or v6, v6 optionally with a zone id) must not be a webhook target. Anything
 * that is not an IP literal also returns true: fail closed.
 *
 * IPv6 is allow-listed: only global unicast (2000::/3, minus the reserved blocks above) and the NAT64
 * prefix 64:ff9b::/96 can pass. That refuses ::, ::1, IPv4-mapped (::ffff:0:0/96, which connects to the
 * embedded v4) and IPv4-compatible (::/96) forms, 64:ff9b:1::/48, discard 100::/64, unique-local,
 * link-local, site-local and multicast without listing each. 6to4 (2002::/16) and NAT64 are judged on the
 * IPv4 address they embed, since that is where the packets end up.
 */
export function isForbiddenAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return v4List.check(ip, 'ipv4');
  if (family !== 6) return true;
  const g = v6Groups(ip);
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isForbiddenAddress(v4FromGroups(g6, g7));
  }
  if (g0 === 0x2002) return isForbiddenAddress(v4FromGroups(g1, g2));
  if ((g0 & 0xe000) !== 0x2000) return true;
  return v6List.check(g.map((n) => n.toString(16)).join(':'), 'ipv6');
}

/**
 * Why `url` cannot be registered as a webhook target, or null when it can. Catches IP literals in every
 * numeric form (the WHATWG parser has already normalised `2130706433`, `0x7f.1`, `0177.0.0.1` to
 * 127.0.0.1 and `[::ffff:127.0.0.1]` to `[::ffff:7f00:1]`) and localhost names. Other names are only
 * known at connect time: see guardedLookup.
 */
export function checkWebhookUrl(url: string, opts: { allowInsecure: boolean }): string | null {
  // The URL parser drops tabs and line breaks anywhere and other controls at either end: what it would call
  // is not what was written (checked at each send too, for URLs stored before registration refused them).
  if (hasControlCharacter(url)) return `URL ${CONTROLS_REFUSED}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'URL is not a valid absolute URL';
  }
  const schemes = opts.allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(parsed.protocol)) {
    return opts.allowInsecure ? 'URL must use https:// or http://' : 'URL must use https://';
  }
  // Credentials in a URL end up stored and shown in plain text, and sent to whoever the host is.
  if (parsed.username !== '' || parsed.password !== '') return 'URL must not contain a user name or password';
  const problem = checkTargetHost(parsed.hostname.replace(/^\[(.*)\]$/, '$1'), opts);
  return problem && `URL ${problem}`;
}

/**
 * Why a target's host (a name or an IP literal, without brackets) cannot be registered, or null when it can:
 * the URL's host of a webhook or http sink, the address of a syslog sink (P211). Names are judged again at
 * connect time (guardedLookup).
 */
export function checkTargetHost(host: string, opts: { allowInsecure: boolean }): string | null {
  if (opts.allowInsecure) return null;
  // A name in one of IPv4's numeric shorthands (`127.1`, `2130706433`, `0x7f.1`) is that address to the
  // resolver as to the URL parser: judged as the address it is, here rather than only at connect time.
  const address = isIP(host) !== 0 ? host : ipv4Shorthand(host);
  if (address !== null) {
    return isForbiddenAddress(address) ? `host ${host} is a loopback, private or reserved address` : null;
  }
  // `localhost.` with a trailing dot is the same name.
  const name = host.replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return 'host must not be localhost';
  return null;
}

/** The IPv4 address a host in a numeric shorthand stands for (WHATWG URL's reading), or null for a name. */
function ipv4Shorthand(host: string): string | null {
  try {
    const { hostname } = new URL(`https://${host}/`);
    return isIP(hostname) === 4 ? hostname : null;
  } catch {
    return null;
  }
}

/**
 * The form in which a webhook URL is stored, shown and called: its WHATWG serialisation (`new URL(url).href`,
 * which parses back to itself, so the sender requests exactly the stored string), or why it cannot be
 * registered: checkWebhookUrl's reasons, a fragment (never sent in a request), or a normalised form longer
 * than WEBHOOK_URL_MAX_LENGTH.
 */
export function normalizeWebhookUrl(
  url: string,
  opts: { allowInsecure: boolean },
): { href: string; problem?: undefined } | { problem: string } {
  const problem = checkWebhookUrl(url, opts);
  if (problem) return { problem };
  const { href } = new URL(url);
  // Only a fragment puts a `#` in the serialisation of an http(s) URL (elsewhere it is percent-encoded).
  if (href.includes('#')) return { problem: 'URL must not contain a fragment (#…): it is never sent' };
  if (href.length > WEBHOOK_URL_MAX_LENGTH)
    return { problem: `URL must be at most ${WEBHOOK_URL_MAX_LENGTH} characters once normalised` };
  return { href };
}

type LookupCallback = Parameters<LookupFunction>[2];

/**
 * The failure of a target whose address is refused at connect time. It names neither the address nor its
 * kind: a delivery's `error` is read through the API, whose readers must not learn what the service's own
 * resolver answers for a name (P73).
 */
export function refusedTarget(): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(
    'the target is refused: webhooks reach public addresses only',
  );
  error.code = 'EFORBIDDENADDRESS';
  return error;
}

/**
 * A drop-in for node:dns `lookup`, for the `lookup` option of http(s).request / net.connect: resolves
 * every address of the name and fails with refusedTarget() (code EFORBIDDENADDRESS) when any is forbidden (all of them, so a
 * name cannot mix a public and a private record and let the happy-eyeballs race pick), unless
 * allowInsecure. Answers in the form asked for: an array when options.all is true (what Node 20+ uses
 * with autoSelectFamily), else one address and its family.
 *
 * Node does not call `lookup` for a host that is already an IP literal, so the sender must also run
 * checkWebhookUrl on the URL before each send.
 */
export function guardedLookup(allowInsecure: boolean): LookupFunction {
  return (hostname, options, callback) => {
    // Older call shapes: lookup(host, cb) and lookup(host, family, cb).
    let cb = callback as LookupCallback;
    let opts: dns.LookupOptions = {};
    if (typeof options === 'function') cb = options as LookupCallback;
    else if (typeof options === 'number') opts = { family: options };
    else if (options) opts = options;
    dns.lookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return cb(err, []);
      if (!allowInsecure && addresses.some((a) => isForbiddenAddress(a.address))) {
        return cb(refusedTarget(), []);
      }
      if (opts.all === true) return cb(null, addresses);
      const first = addresses[0];
      if (!first) {
        const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        error.code = 'ENOTFOUND';
        return cb(error, []);
      }
      cb(null, first.address, first.family);
    });
  };
}
