// An audit entry as an OCSF 1.8.0 event (docs/ocsf.md has the table; docs/decisions.md P185-P188): a change to
// a workspace's access or integrations (its users, API keys, webhook endpoints, the workspace itself) is Entity
// Management (3004); every other change is API Activity (6003). The input is the entry exactly as the native
// feed serves it (after its redaction, P72), so nothing the native form withholds can appear here; every field
// the table does not map is kept under `unmapped`. A pure function of one item: a page, a stream or a sink maps
// item by item.
import type { AuditAction } from '../storage/audit.js';
import {
  type Activity,
  classification,
  defined,
  epochMillis,
  metadata,
  type OcsfClass,
  type OcsfContext,
  type OcsfEvent,
  PRODUCT_NAME,
  SERVICE_ACTOR,
  severity,
} from './common.js';

/** An audit entry as the native feed serves it (resources.md "Audit log entry"). */
export interface AuditItem {
  id: string;
  occurred_at: string;
  action: string;
  actor_type: string;
  actor_id: string | null;
  target_type: string | null;
  target_id: string | null;
  request_id: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  previous_hash: string | null;
  hash: string;
}

type Mapping = readonly [OcsfClass, Activity, string?];

/**
 * Each action the service writes: its class and activity (with Other's own name). An action of an imported
 * history that is not listed is API Activity, Other, named after the action.
 */
export const AUDIT_ACTION_CLASSES = {
  'workspace.created': ['entity_management', 'create'],
  'workspace.updated': ['entity_management', 'update'],
  'workspace.data_imported': ['api_activity', 'create'],
  'user.created': ['entity_management', 'create'],
  'api_key.created': ['entity_management', 'create'],
  'api_key.revoked': ['entity_management', 'disable'],
  'webhook_endpoint.created': ['entity_management', 'create'],
  'webhook_endpoint.updated': ['entity_management', 'update'],
  'webhook_endpoint.deleted': ['entity_management', 'delete'],
  'webhook_endpoint.secret_rotated': ['entity_management', 'update'],
  'webhook_endpoint.deliveries_replayed': ['api_activity', 'other', 'Replay'],
  'webhook_endpoint.test_sent': ['api_activity', 'other', 'Test'],
  'webhook_endpoint.disabled': ['entity_management', 'disable'],
  'webhook_delivery.replayed': ['api_activity', 'other', 'Replay'],
  'sink.created': ['entity_management', 'create'],
  'sink.updated': ['entity_management', 'update'],
  'sink.deleted': ['entity_management', 'delete'],
  'sink.disabled': ['entity_management', 'disable'],
  'supplier.created': ['api_activity', 'create'],
  'assessment.created': ['api_activity', 'create'],
  'assessment.status_changed': ['api_activity', 'update'],
  'assessment.completed': ['api_activity', 'update'],
  'report.rendered': ['api_activity', 'update'],
  'assets.upserted': ['api_activity', 'update'],
  'asset.confirmed': ['api_activity', 'update'],
  'action_plan_item.status_changed': ['api_activity', 'update'],
  'action_plan_item.note_added': ['api_activity', 'update'],
  'alert.created': ['api_activity', 'create'],
} as const satisfies Record<AuditAction, Mapping>;

/** Managed entity types OCSF enumerates, by the entry's target type (others carry `type` alone). */
const ENTITY_TYPE_IDS: Readonly<Record<string, [number, string]>> = {
  workspace: [4, 'Organization'],
  user: [2, 'User'],
};

const stringOr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Who made the change: the user a key was created by (decision 26), with the key as the credential used; the
 * service itself for the operator's actions and the worker's.
 */
function actorOf(entry: AuditItem): Record<string, unknown> {
  const credential = stringOr(entry.metadata.api_key_id);
  if (entry.actor_type === 'system')
    return entry.actor_id
      ? { ...SERVICE_ACTOR, user: { uid: entry.actor_id, type_id: 3, type: 'System' } }
      : { ...SERVICE_ACTOR };
  const [typeId, type] = entry.actor_type === 'user' ? [1, 'User'] : [99, entry.actor_type];
  return {
    user: defined({
      // An imported entry may name no actor: OCSF's user needs a uid or a name.
      ...(entry.actor_id ? { uid: entry.actor_id } : { name: 'unknown' }),
      type_id: typeId,
      type,
      credential_uid: credential,
    }),
  };
}

/**
 * Where the change came from: the caller's address is not recorded (an entry holds no personal value, P72),
 * so the endpoint is the interface the change came through.
 */
function sourceOf(entry: AuditItem): { name: string } {
  if (entry.actor_type !== 'system' || entry.metadata.api_key_id !== undefined) return { name: 'public-api' };
  return { name: entry.request_id ? 'management-api' : PRODUCT_NAME };
}

/** The audit entry `entry` of the workspace in `context` as an OCSF 1.8.0 event. */
export function auditEntryToOcsf(entry: AuditItem, context: OcsfContext): OcsfEvent {
  const [cls, activity, otherName]: Mapping = (AUDIT_ACTION_CLASSES as Record<string, Mapping>)[
    entry.action
  ] ?? ['api_activity', 'other', entry.action];
  const tags = [
    { name: 'hash', value: entry.hash },
    ...(entry.previous_hash ? [{ name: 'previous_hash', value: entry.previous_hash }] : []),
  ];
  const target = entry.target_id ?? undefined;
  const common: OcsfEvent = {
    ...classification(cls, activity, otherName),
    time: epochMillis(entry.occurred_at),
    ...severity('informational'),
    // Every entry records a change that was committed (decision 26: the entry and the change commit together).
    status_id: 1,
    status: 'Success',
    message: entry.action,
    metadata: metadata(
      context,
      entry.id,
      'audit_logs',
      defined({ correlation_uid: entry.request_id ?? undefined, tags }),
    ),
    actor: actorOf(entry),
    src_endpoint: sourceOf(entry),
  };
  const unmapped = {
    occurred_at: entry.occurred_at,
    actor_type: entry.actor_type,
    created_at: entry.created_at,
    metadata: entry.metadata,
  };
  if (cls === 'entity_management') {
    const [typeId, typeName] = ENTITY_TYPE_IDS[entry.target_type ?? ''] ?? [];
    return {
      ...common,
      entity: defined({
        ...(target ? { uid: target } : { name: entry.target_type ?? entry.action }),
        type: typeName ?? entry.target_type ?? undefined,
        type_id: typeId,
      }),
      unmapped,
    };
  }
  return {
    ...common,
    api: defined({
      operation: entry.action,
      service: { name: PRODUCT_NAME },
      request: entry.request_id ? { uid: entry.request_id } : undefined,
    }),
    ...(target || entry.target_type
      ? {
          resources: [
            target
              ? defined({ uid: target, type: entry.target_type ?? undefined })
              : { name: entry.target_type, type: entry.target_type },
          ],
        }
      : {}),
    unmapped,
  };
}
