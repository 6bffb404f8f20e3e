// The operator's authentication on the management listener: a bearer token compared, as a SHA-256 digest, in
// constant time with the one the process holds (only its hash is kept).
import type { FastifyRequest } from 'fastify';
import { Authenticator } from '../http/auth.js';
import { ApiError } from '../http/errors.js';
import { constantTimeEqual, sha256 } from '../security/secrets.js';

export const invalidAdminToken = () =>
  new ApiError('invalid_api_key', 'The admin token is missing or wrong.');

export function checkAdminToken(request: FastifyRequest, adminTokenHash: Buffer): void {
  const token = Authenticator.bearer(request.raw.rawHeaders);
  if (!token || !constantTimeEqual(sha256(token), adminTokenHash)) throw invalidAdminToken();
}
