// The shape of a signed download URL's parts (reports/signed-url.ts makes and verifies them): the schemas of
// the open download operation's parameters, and the patterns the verifier checks first.
import { Type } from 'typebox';

export const MAX_TOKEN_CHARS = 4096;
export const BASE64URL = /^[A-Za-z0-9_-]+$/;
export const UNIX_SECONDS = /^[1-9][0-9]{0,11}$/;

/** The parts of a signed URL, as verifyObjectUrl accepts their shape (for the API description). */
export const SignedUrlParts = {
  token: Type.String({
    maxLength: MAX_TOKEN_CHARS,
    pattern: BASE64URL.source,
    description: 'The encrypted object key.',
    examples: ['q1Zx3n0Jt8dS2mQ7vY4cKp9WbE6hA5rU'],
  }),
  expires: Type.String({
    pattern: UNIX_SECONDS.source,
    description: 'Expiry, in Unix seconds.',
    examples: ['1767225600'],
  }),
  signature: Type.String({
    pattern: BASE64URL.source,
    description: 'HMAC-SHA256 of the token and the expiry, base64url.',
    examples: ['3vQm9sX0aZk2Lr7Tn4Jp8Wc1Yd6Hf5Bg0Ue3Ki9Oq2M'],
  }),
};
