// Single-valued request headers the service reads. Node keeps the first Content-Type of several and joins
// repeated unknown headers with ", " (two Idempotency-Keys would become one key "a, b"): either way the
// request means two things, so it is refused (decision P64). Authorization has its own rule (P46: 401).
// Also what the headers say of the request as a whole: its Host (P67) and whether it carries a body (P114).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { IncomingHttpHeaders } from 'node:http';
import { isIPv6 } from 'node:net';
import { invalidRequest } from '../contract/errors.js';

const SINGLE_VALUED = new Map([
  ['content-type', 'Content-Type'],
  ['idempotency-key', 'Idempotency-Key'],
]);

/** Throws 400 invalid_request naming the first single-valued header sent more than once. */
export function assertSingleValuedHeaders(rawHeaders: readonly string[]): void {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = SINGLE_VALUED.get((rawHeaders[i] as string).toLowerCase());
    if (name === undefined) continue;
    if (seen.has(name)) throw invalidRequest(`The ${name} header must be sent once.`, { header: name });
    seen.add(name);
  }
}

// RFC 3986 host [ ":" port ]: a registered name (unreserved, sub-delims, %XX) or IPv4 address, or an IPv6
// address in brackets. An http URI's host is never empty (RFC 9110 4.2.1).
const HOST = /^(?:\[([0-9A-Fa-f:.]+)\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+)(?::[0-9]*)?$/;

/**
 * Throws 400 invalid_request unless the request has exactly one valid Host header (RFC 9112 3.2: "more than
 * one Host header field line or a Host header field with an invalid field value"; decision P67). HTTP/1.0 may
 * omit it. Read from the raw header lines: Node keeps only the first of several.
 */
export function assertHost(httpVersion: string, rawHeaders: readonly string[]): void {
  const hosts: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2)
    if ((rawHeaders[i] as string).toLowerCase() === 'host') hosts.push(rawHeaders[i + 1] as string);
  if (hosts.length === 0) {
    if (httpVersion === '1.0') return;
    throw invalidRequest('The request is not valid HTTP: HTTP/1.1 requires a Host header.');
  }
  if (hosts.length > 1) throw invalidRequest('The Host header must be sent once.', { header: 'Host' });
  const match = HOST.exec(hosts[0] as string);
  if (!match || (match[1] !== undefined && !isIPv6(match[1])))
    throw invalidRequest('The Host header is not a valid host name or address.', { header: 'Host' });
}

/**
 * Throws 400 invalid_request when a request to a route that takes no body carries one (P114): a
 * Content-Length other than 0, or a Transfer-Encoding. An empty JSON object says nothing and passes, when the
 * route read it (`sent`, its bytes): a GET's body is never read, so any is refused.
 */
export function assertNoBody(headers: IncomingHttpHeaders, sent?: Buffer): void {
  const length = headers['content-length'];
  const carried =
    headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) !== 0);
  if (carried && !(sent && EMPTY_OBJECT.test(sent.toString('latin1'))))
    throw invalidRequest('This endpoint takes no request body.');
}

// JSON's own whitespace only (RFC 8259 2).
const EMPTY_OBJECT = /^[ \t\n\r]*\{[ \t\n\r]*\}[ \t\n\r]*$/;
