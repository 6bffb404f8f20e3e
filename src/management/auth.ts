// The operator's authentication on the management listener: a bearer token compared, as a SHA-256 digest, in
// constant time with the one the process holds (only its hash is kept), and wrong guesses throttled.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../contract/errors.js';
import { Authenticator } from '../http/auth.js';
import { rateLimited } from '../http/route.js';
import { constantTimeEqual, sha256 } from '../security/secrets.js';
import type { Services } from '../services.js';

export const invalidAdminToken = () =>
  new ApiError('invalid_api_key', 'The admin token is missing or wrong.');

/**
 * Wrong and missing tokens are counted per client address (P68). Once an address is over its limit, every
 * request from it is a 429 before the token is compared, a right one included: otherwise the answer would
 * still tell a right guess from a wrong one. A right token counts nothing.
 */
export async function authenticateOperator(
  services: Pick<Services, 'adminTokenHash' | 'limiter' | 'buckets'>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const token = Authenticator.bearer(request.raw.rawHeaders);
  const valid = token !== null && constantTimeEqual(sha256(token), services.adminTokenHash);
  const failures = `admin-failures:${request.ip}`;
  const { limiter, buckets } = services;
  const decision = valid
    ? await limiter.peek(failures, buckets.adminFailures)
    : await limiter.consume(failures, buckets.adminFailures);
  if (!decision.allowed) throw rateLimited(request, reply, decision);
  if (!valid) throw invalidAdminToken();
}
