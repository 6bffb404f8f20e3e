// The audit trail: one entry per change, written by the same transaction as the change (decision 26).
import { randomUUID } from 'node:crypto';
import type { Queryable } from './db.js';

export type ActorType = 'user' | 'api_key' | 'system';

export interface AuditEntry {
  workspaceId: string;
  action: string;
  actorType: ActorType;
  actorId: string | null;
  targetType: string | null;
  targetId: string | null;
  requestId: string | null;
  metadata?: Record<string, unknown>;
}

export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  await tx.query(
    `insert into audit_logs (workspace_id, id, action, actor_type, actor_id, target_type, target_id, request_id, metadata, occurred_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, clock_timestamp())`,
    [
      entry.workspaceId,
      randomUUID(),
      entry.action,
      entry.actorType,
      entry.actorId,
      entry.targetType,
      entry.targetId,
      entry.requestId,
      JSON.stringify(entry.metadata ?? {}),
    ],
  );
}
