// The audit trail: one entry per change, written by the same transaction as the change (decision 26).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../../sdk/src/audit-chain.js';
import type { Queryable } from './db.js';

export type ActorType = 'user' | 'api_key' | 'system';

/**
 * Every action the service writes (decision 26, P14). An entry is served to any key with audit:read, so its
 * metadata holds only ids, enumerated values, counts, instants and field names: never a URL, a secret, free
 * text or a personal value, which that scope may not see elsewhere (P72; test/audit-logs.test.ts writes each).
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
// head's lock works on the head as the writer before it committed it. The metadata travels as its canonical
// JSON (JSON.stringify's view of it, keys in code point order): stored as jsonb and hashed as sent, so the
// database does not canonicalize on the write path.
const APPEND_AUDIT_ENTRY = `
with entry as (
  select $1::uuid as workspace_id, $2::uuid as id, $3::text as action, $4::text as actor_type,
         $5::uuid as actor_id, $6::text as target_type, $7::uuid as target_id, $8::text as request_id,
         $9::text as metadata, now() as created_at, clock_timestamp() as asked_at
), head as (
  update audit_heads h
     set occurred_at = greatest(e.asked_at, h.occurred_at + interval '1 microsecond'),
         previous_hash = h.hash,
         hash = audit_entry_hash(e.id, greatest(e.asked_at, h.occurred_at + interval '1 microsecond'), e.action,
                                 e.actor_type, e.actor_id, e.target_type, e.target_id, e.request_id, e.metadata,
                                 e.created_at, h.hash)
    from entry e
   where h.workspace_id = e.workspace_id
  returning h.occurred_at, h.hash, h.previous_hash
)
insert into audit_logs (workspace_id, id, action, actor_type, actor_id, target_type, target_id, request_id,
                        metadata, occurred_at, created_at, hash, previous_hash)
select e.workspace_id, e.id, e.action, e.actor_type, e.actor_id, e.target_type, e.target_id, e.request_id,
       e.metadata::jsonb, head.occurred_at, e.created_at, head.hash, head.previous_hash
  from entry e, head
returning 1`;

export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  const written = await tx.query(APPEND_AUDIT_ENTRY, [
    entry.workspaceId,
    randomUUID(),
    entry.action,
    entry.actorType,
    entry.actorId,
    entry.targetType,
    entry.targetId,
    entry.requestId,
    canonicalJson(JSON.parse(JSON.stringify(entry.metadata ?? {}))),
  ]);
  // Every workspace gets its head when it is created (migration 0014): none means the write must not commit.
  if (written.length !== 1) throw new Error(`Workspace ${entry.workspaceId} has no audit chain head`);
}

/**
 * Chains the workspace's entries again from the earliest of `instants` on, in feed order: an import writes
 * entries with their own instants, possibly among stored ones (P98).
 */
export async function rechainAudit(tx: Queryable, workspaceId: string, instants: string[]): Promise<void> {
  await tx.query('select audit_rechain($1::uuid, (select min(at) from unnest($2::timestamptz[]) as at))', [
    workspaceId,
    instants,
  ]);
}
