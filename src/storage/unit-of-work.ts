// The one way a change reaches a workspace, public or operator alike: a unit of work binds one write
// transaction to one workspace and one actor. Its tenant queries are scoped to the workspace (tenant.ts), and
// its audit entries (decision 26) and events (decision 23) go into the same transaction, attributed to the
// same actor: the change, its entry and its events commit together or not at all. Only this module and
// src/events/ call recordAudit and recordEvent (test/cross-cutting/architecture.test.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { EventData, EventType } from '../contract/events.js';
import { type EventRecorder, recordEvent, storeEvent } from '../events/outbox.js';
import {
  type ActorType,
  type AuditAction,
  appendImportedAudit,
  type ImportedAuditChain,
  type RefusedAuditEntries,
  recordAudit,
} from './audit.js';
import type { Queryable } from './db.js';
import { TenantDb } from './tenant.js';

/** Who a change is attributed to in the audit trail. */
export interface Actor {
  type: ActorType;
  /** The user (an API write: the key's creator, decision 26), or null for the service itself. */
  id: string | null;
  /** The API key that made the request, recorded in each entry's metadata. */
  apiKeyId?: string;
}

/** The service itself: the operator's lifecycle actions and the worker. */
export const SYSTEM_ACTOR: Actor = { type: 'system', id: null };

export interface UnitOfWork {
  /** The workspace's data, inside the write transaction. */
  tenant: TenantDb;
  actor: Actor;
  /** Records an event of the workspace in the write transaction. */
  events: EventRecorder;
  /** Writes an audit entry of the workspace, by the unit's actor, in the write transaction. */
  audit(
    action: AuditAction,
    target: { type: string; id: string },
    metadata?: Record<string, unknown>,
  ): Promise<void>;
  /** Stores a test event (P81) for the one delivery the caller schedules: never fanned out. */
  testEvent<T extends EventType>(type: T, data: EventData<T>): Promise<{ id: string }>;
  /** Appends an import's audit entries to the workspace's chain, or refuses them all (P102). */
  importAudit(entries: Record<string, unknown>[]): Promise<ImportedAuditChain | RefusedAuditEntries>;
}

/** A unit of work on `workspaceId` in the transaction `tx`; `requestId` is recorded in each audit entry. */
export function unitOfWork(
  tx: Queryable,
  workspaceId: string,
  actor: Actor,
  requestId: string | null,
  tenant: TenantDb = TenantDb.forOperator(tx, workspaceId),
): UnitOfWork {
  return {
    tenant,
    actor,
    events: (type, data) => recordEvent(tx, workspaceId, type, data),
    audit: (action, target, metadata) =>
      recordAudit(tx, {
        workspaceId,
        action,
        actorType: actor.type,
        actorId: actor.id,
        targetType: target.type,
        targetId: target.id,
        requestId,
        metadata: actor.apiKeyId === undefined ? metadata : { ...metadata, api_key_id: actor.apiKeyId },
      }),
    testEvent: (type, data) => storeEvent(tx, workspaceId, type, data, { test: true }),
    importAudit: (entries) => appendImportedAudit(tx, workspaceId, entries),
  };
}
