// Stripe-style idempotency (decisions 7-10): keys are scoped to workspace and endpoint, the body is compared
// after canonicalisation, and the response is stored in the same transaction as the write it describes, so
// a replay returns exactly what the first request did and a crash leaves neither half. Any key of the
// workspace may replay: the response is stored with and without its personal fields, and each replaying key
// is sent the one its scopes allow (docs/decisions.md P76).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { createHash } from 'node:crypto';
import { Type } from 'typebox';
import { ApiError, conflict, errorBody, invalidRequest } from '../contract/errors.js';
import type { Db, Queryable } from '../storage/db.js';

export interface StoredReply {
  status: number;
  /** With personal fields, if any. */
  body: string;
  /** Without them, when the body has some. */
  withoutPii?: string;
}

/**
 * The text a request body's fingerprint (`request_hash`) is taken of: JSON with object keys sorted at every
 * level, so that the same body sent again with its keys in another order is the same request. A fingerprint is
 * only ever compared with another made by this function, so any stable rule would do; it is stored for 24 hours,
 * so this one must not change (a retry across an upgrade would be refused as a different body). It is not the
 * audit chain's rule (`auditCanonicalJson`, sdk/src/audit-chain.ts), which must give PostgreSQL's text of the
 * stored metadata: keys in code point order, numbers without exponent. The two differ (on numbers such as 1e21,
 * on keys mixing astral and private-use characters), so moving this one to that rule would change stored
 * fingerprints for nothing.
 */
function idempotencyFingerprintJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(idempotencyFingerprintJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map(
        (key) =>
          `${JSON.stringify(key)}:${idempotencyFingerprintJson((value as Record<string, unknown>)[key])}`,
      );
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const MAX_KEY_CHARS = 255;
const PRINTABLE_ASCII = '^[\\x20-\\x7e]+$';

/** The Idempotency-Key header (risk-data-api.md "Shared parameters"), as readIdempotencyKey accepts it. */
export const IdempotencyKeyHeader = Type.String({
  minLength: 1,
  maxLength: MAX_KEY_CHARS,
  pattern: PRINTABLE_ASCII,
  description: 'Required on every POST: 1 to 255 printable ASCII characters, retained 24 hours.',
  examples: ['5f0c6d2e-7a1b-4d8e-9c3f-2b4a6e8d0f12'],
});
const printable = new RegExp(PRINTABLE_ASCII);

export function readIdempotencyKey(header: string | string[] | undefined): string {
  if (header === undefined)
    throw invalidRequest('The Idempotency-Key header is required on POST.', { header: 'Idempotency-Key' });
  if (
    Array.isArray(header) ||
    header.length === 0 ||
    header.length > MAX_KEY_CHARS ||
    !printable.test(header)
  ) {
    throw invalidRequest('Idempotency-Key must be 1 to 255 printable ASCII characters.', {
      header: 'Idempotency-Key',
    });
  }
  return header;
}

export const idempotencyKeyInUse = () =>
  conflict('A request with this Idempotency-Key is still being processed.', {
    reason: 'idempotency_key_in_use',
  });
export const idempotencyKeyReused = () =>
  conflict('This Idempotency-Key was already used with a different request body.', {
    reason: 'idempotency_key_reused',
  });

export async function runIdempotent(
  db: Db,
  scope: { workspaceId: string; endpoint: string; key: string; body: unknown; requestId: string },
  run: (tx: Queryable) => Promise<StoredReply>,
  /** Checks the caller may write (its key), in the first round trip; its error is never stored. */
  confirm: (tx: Queryable) => Promise<void> = async () => undefined,
): Promise<StoredReply & { replayed: boolean }> {
  const requestHash = createHash('sha256').update(idempotencyFingerprintJson(scope.body)).digest('base64');
  // The stored response travels with the COMMIT (pipeline mode): the transaction does not wait for it alone.
  // If it fails, the COMMIT rolls back and its own error is the one reported.
  let storing: Promise<unknown> | undefined;
  try {
    return await db.transaction((tx) => work(tx));
  } catch (error) {
    await storing;
    throw error;
  }

  async function work(tx: Queryable): Promise<StoredReply & { replayed: boolean }> {
    // One round trip (pipeline mode): the caller's check, the lock, then the stored response read by a
    // statement of its own, so that its snapshot is taken after the lock (a first request that just released
    // it has committed), then the savepoint that undoes the work of a client error.
    const [, [lock], [stored]] = await Promise.all([
      confirm(tx),
      // A second request with the same key while the first is executing must not wait for it: it gets a 409.
      tx.query<{ acquired: boolean }>(
        'select pg_try_advisory_xact_lock(hashtextextended($1, 7349)) as acquired',
        [`${scope.workspaceId}|${scope.endpoint}|${scope.key}`],
      ),
      tx.query<{
        request_hash: string;
        response_status: number;
        response_body: string;
        response_body_without_pii: string | null;
      }>(
        `select request_hash, response_status, response_body, response_body_without_pii from idempotency_keys
          where workspace_id = $1 and endpoint = $2 and key = $3 and created_at > now() - interval '24 hours'`,
        [scope.workspaceId, scope.endpoint, scope.key],
      ),
      tx.query('savepoint idempotent_work'),
    ]);
    if (!lock?.acquired) throw idempotencyKeyInUse();
    if (stored) {
      if (stored.request_hash !== requestHash) throw idempotencyKeyReused();
      return {
        status: stored.response_status,
        body: stored.response_body,
        withoutPii: stored.response_body_without_pii ?? undefined,
        replayed: true,
      };
    }

    // A client error is a completed response and is stored too, but the writes that led to it are undone.
    let reply: StoredReply;
    try {
      reply = await run(tx);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500 || error.status === 429) throw error;
      await tx.query('rollback to savepoint idempotent_work');
      reply = { status: error.status, body: errorBody(error, scope.requestId) };
    }
    storing = tx.query(
      `insert into idempotency_keys (workspace_id, endpoint, key, request_hash, response_status, response_body,
                                     response_body_without_pii)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (workspace_id, endpoint, key) do update
         set request_hash = excluded.request_hash, response_status = excluded.response_status,
             response_body = excluded.response_body,
             response_body_without_pii = excluded.response_body_without_pii, created_at = now()`,
      [
        scope.workspaceId,
        scope.endpoint,
        scope.key,
        requestHash,
        reply.status,
        reply.body,
        reply.withoutPii ?? null,
      ],
    );
    storing.catch(() => undefined);
    return { ...reply, replayed: false };
  }
}

/** Keys are retained 24 hours. */
export async function purgeIdempotencyKeys(db: Queryable): Promise<number> {
  const rows = await db.query(
    "delete from idempotency_keys where created_at < now() - interval '24 hours' returning 1",
  );
  return rows.length;
}
