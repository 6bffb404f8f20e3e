// Stripe-style idempotency (decisions 7-10): keys are scoped to workspace and endpoint, the body is compared
// after canonicalisation, and the response is stored in the same transaction as the write it describes, so
// a replay returns exactly what the first request did and a crash leaves neither half.
import { createHash } from 'node:crypto';
import type { Db, Queryable } from '../storage/db.js';
import { ApiError, conflict, errorBody, invalidRequest } from './errors.js';

export interface StoredReply {
  status: number;
  body: string;
}

/** JSON with object keys sorted at every level: equal documents give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function readIdempotencyKey(header: string | string[] | undefined): string {
  if (header === undefined)
    throw invalidRequest('The Idempotency-Key header is required on POST.', { header: 'Idempotency-Key' });
  if (Array.isArray(header) || header.length === 0 || header.length > 255 || !/^[\x20-\x7e]+$/.test(header)) {
    throw invalidRequest('Idempotency-Key must be 1 to 255 printable ASCII characters.', {
      header: 'Idempotency-Key',
    });
  }
  return header;
}

export async function runIdempotent(
  db: Db,
  scope: { workspaceId: string; endpoint: string; key: string; body: unknown; requestId: string },
  work: (tx: Queryable) => Promise<StoredReply>,
): Promise<StoredReply & { replayed: boolean }> {
  const requestHash = createHash('sha256').update(canonicalJson(scope.body)).digest('base64');
  return db.transaction(async (tx) => {
    // A second request with the same key while the first is executing must not wait for it: it gets a 409.
    const [lock] = await tx.query<{ acquired: boolean }>(
      'select pg_try_advisory_xact_lock(hashtextextended($1, 7349)) as acquired',
      [`${scope.workspaceId}|${scope.endpoint}|${scope.key}`],
    );
    if (!lock?.acquired) {
      throw conflict('A request with this Idempotency-Key is still being processed.', {
        reason: 'idempotency_key_in_use',
      });
    }
    const [stored] = await tx.query<{ request_hash: string; response_status: number; response_body: string }>(
      `select request_hash, response_status, response_body from idempotency_keys
        where workspace_id = $1 and endpoint = $2 and key = $3 and created_at > now() - interval '24 hours'`,
      [scope.workspaceId, scope.endpoint, scope.key],
    );
    if (stored) {
      if (stored.request_hash !== requestHash) {
        throw conflict('This Idempotency-Key was already used with a different request body.', {
          reason: 'idempotency_key_reused',
        });
      }
      return { status: stored.response_status, body: stored.response_body, replayed: true };
    }

    // A client error is a completed response and is stored too, but the writes that led to it are undone.
    await tx.query('savepoint idempotent_work');
    let reply: StoredReply;
    try {
      reply = await work(tx);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500 || error.status === 429) throw error;
      await tx.query('rollback to savepoint idempotent_work');
      reply = { status: error.status, body: errorBody(error, scope.requestId) };
    }
    await tx.query(
      `insert into idempotency_keys (workspace_id, endpoint, key, request_hash, response_status, response_body)
       values ($1, $2, $3, $4, $5, $6)
       on conflict (workspace_id, endpoint, key) do update
         set request_hash = excluded.request_hash, response_status = excluded.response_status,
             response_body = excluded.response_body, created_at = now()`,
      [scope.workspaceId, scope.endpoint, scope.key, requestHash, reply.status, reply.body],
    );
    return { ...reply, replayed: false };
  });
}

/** Keys are retained 24 hours. */
export async function purgeIdempotencyKeys(db: Queryable): Promise<number> {
  const rows = await db.query(
    "delete from idempotency_keys where created_at < now() - interval '24 hours' returning 1",
  );
  return rows.length;
}
