// The audit trail: one entry per change, written by the same transaction as the change (decision 26).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { auditCanonicalJson, auditEntryCanonicalText } from '../../sdk/src/audit-chain.js';
import type { Queryable } from './db.js';

export type ActorType = 'user' | 'api_key' | 'system';

/**
 * Every action the service writes (decision 26, P14). An entry is served to any key with audit:read, so its
 * metadata holds only ids, enumerated values, counts, instants, field names and the chain's own hashes
 * (workspace.data_imported, P102): never a URL, a secret, free text or a personal value, which that scope may
 * not see elsewhere (P72; test/slices/audit-logs.test.ts writes each).
 */
export const AUDIT_ACTIONS = [
  'workspace.created',
  'workspace.updated',
  'workspace.data_imported',
  'user.created',
  'api_key.created',
  'api_key.revoked',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
  'webhook_endpoint.secret_rotated',
  'webhook_endpoint.deliveries_replayed',
  'webhook_endpoint.test_sent',
  'webhook_endpoint.disabled',
  'webhook_delivery.replayed',
  'sink.created',
  'sink.updated',
  'sink.deleted',
  'sink.disabled',
  'supplier.created',
  'assessment.created',
  'assessment.status_changed',
  'assessment.completed',
  'report.rendered',
  'assets.upserted',
  'asset.confirmed',
  'action_plan_item.status_changed',
  'action_plan_item.note_added',
  'alert.created',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  workspaceId: string;
  action: AuditAction;
  actorType: ActorType;
  actorId: string | null;
  targetType: string | null;
  targetId: string | null;
  requestId: string | null;
  metadata?: Record<string, unknown>;
}

// The audit log is a feed that SIEMs poll with a stored cursor ordered by occurred_at (decision 13). If two
// transactions of one workspace could commit in an order other than their timestamps, a poller could pass
// the later one before the earlier one becomes visible and never see it. Each entry is therefore appended
// through its workspace's head row (migration 0014, P99), locked until commit: the entry is stamped after the
// head's instant and chained to its hash (`hash` covers the entry and `previous_hash`, P97), so feed order is
// commit order and chain order. One statement does it all: under READ COMMITTED, an update that waited for the
// head's lock works on the head as the writer before it committed it. The writer sends the entry's canonical
// text in four parts, cut where the three values only the database knows go (P100): `created_at` (the
// transaction's start), `occurred_at` (the stamp) and `previous_hash` (the head's hash). statement_timestamp()
// is fixed for the statement, so the stamp stored and the stamp hashed are one instant.
const APPEND_AUDIT_ENTRY = `
with head as (
  update audit_heads h
     set occurred_at = greatest(statement_timestamp(), h.occurred_at + interval '1 microsecond'),
         previous_hash = h.hash,
         hash = encode(sha256(convert_to(concat(
                  $10::text, iso(now()),
                  $11::text, iso(greatest(statement_timestamp(), h.occurred_at + interval '1 microsecond')),
                  $12::text, coalesce('"' || h.hash || '"', 'null'),
                  $13::text), 'UTF8')), 'hex')
   where h.workspace_id = $1
  returning h.occurred_at, h.hash, h.previous_hash
)
insert into audit_logs (workspace_id, id, action, actor_type, actor_id, target_type, target_id, request_id,
                        metadata, occurred_at, created_at, hash, previous_hash)
select $1, $2, $3, $4, $5, $6, $7, $8, $9::text::jsonb, head.occurred_at, now(), head.hash, head.previous_hash
  from head
returning 1`;

/** Stands for the values the database fills in; random, so that no field of an entry can contain it. */
const FILLED_IN = randomUUID();

/**
 * The entry's canonical text (the SDK's auditEntryCanonicalText: one definition for the writer and the
 * verifiers) cut around the values of `created_at`, `occurred_at` and `previous_hash`. The instants' quotes
 * stay in the parts; `previous_hash`'s go, since its value may be null.
 */
export function auditTextParts(
  entry: AuditEntry,
  id: string,
  metadata: Record<string, unknown>,
): [string, string, string, string] {
  const parts = auditEntryCanonicalText({
    action: entry.action,
    actor_id: entry.actorId,
    actor_type: entry.actorType,
    created_at: FILLED_IN,
    id,
    metadata,
    occurred_at: FILLED_IN,
    previous_hash: FILLED_IN,
    request_id: entry.requestId,
    target_id: entry.targetId,
    target_type: entry.targetType,
  }).split(FILLED_IN);
  const [beforeCreated, beforeOccurred, beforePrevious, afterPrevious] = parts;
  if (parts.length !== 4 || !beforePrevious?.endsWith('"') || !afterPrevious?.startsWith('"'))
    throw new Error("The audit entry's canonical text does not have the expected shape");
  return [
    beforeCreated as string,
    beforeOccurred as string,
    beforePrevious.slice(0, -1),
    afterPrevious.slice(1),
  ];
}

export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  const id = randomUUID();
  // What JSON would make of the metadata (a Date as its ISO text, no undefined members): stored and hashed.
  const metadata = JSON.parse(JSON.stringify(entry.metadata ?? {})) as Record<string, unknown>;
  const written = await tx.query(APPEND_AUDIT_ENTRY, [
    entry.workspaceId,
    id,
    entry.action,
    entry.actorType,
    entry.actorId,
    entry.targetType,
    entry.targetId,
    entry.requestId,
    auditCanonicalJson(metadata),
    ...auditTextParts(entry, id, metadata),
  ]);
  // Every workspace gets its head when it is created (migration 0014): none means the write must not commit.
  if (written.length !== 1) throw new Error(`Workspace ${entry.workspaceId} has no audit chain head`);
}

/** What workspace.data_imported records of the chain (P102): its head before and after, the instants appended. */
export interface ImportedAuditChain {
  head_before: string | null;
  head_after: string | null;
  imported_from: string | null;
  imported_to: string | null;
}

/** Entries an import may not append: their indexes, and the trail's last entry they would have to follow. */
export interface RefusedAuditEntries {
  refused: number[];
  last_occurred_at: string | null;
  last_id: string | null;
}

/**
 * Appends entries from outside (an import's `audit_logs`, with the public field names) to the workspace's chain
 * after its head, or refuses them all when one is dated before the trail's last entry (P102; migration 0018's
 * audit_append_imported). Nothing chained is hashed again.
 */
export async function appendImportedAudit(
  tx: Queryable,
  workspaceId: string,
  entries: Record<string, unknown>[],
): Promise<ImportedAuditChain | RefusedAuditEntries> {
  const [row] = await tx.query<{ appended: ImportedAuditChain | RefusedAuditEntries }>(
    'select audit_append_imported($1::uuid, $2::json) as appended',
    [workspaceId, JSON.stringify(entries)],
  );
  if (!row) throw new Error(`Workspace ${workspaceId}: the audit entries were not appended`);
  return row.appended;
}
