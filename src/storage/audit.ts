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
// the later one before the earlier one becomes visible and never see it. Writers of one workspace therefore
// take a transaction-scoped lock before stamping their entry, so occurred_at order is commit order. Under the
// same lock each entry is chained to the one before it: `hash` covers the entry and `previous_hash`
// (docs/decisions.md P97). audit_append (migration 0012) does both in one round trip. The metadata travels as
// its canonical JSON (JSON.stringify's view of it, keys in code point order): stored as jsonb and hashed as
// sent, so the database does not canonicalize on the write path.
export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  await tx.query(
    'select audit_append($1::uuid, $2::uuid, $3::text, $4::text, $5::uuid, $6::text, $7::uuid, $8::text, $9::text)',
    [
      entry.workspaceId,
      randomUUID(),
      entry.action,
      entry.actorType,
      entry.actorId,
      entry.targetType,
      entry.targetId,
      entry.requestId,
      canonicalJson(JSON.parse(JSON.stringify(entry.metadata ?? {}))),
    ],
  );
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
