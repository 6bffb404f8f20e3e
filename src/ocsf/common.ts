// What the OCSF 1.8.0 mappings share (docs/ocsf.md; docs/decisions.md P185-P192): the classes the service
// emits, the classification attributes of an event (`type_uid = class_uid * 100 + activity_id`), `metadata`
// and `actor`. Pure functions over plain values: no database, no clock.
import { OCSF_VERSION } from '../schema/ocsf.js';

export type OcsfEvent = Record<string, unknown>;

/** What a mapping needs besides the item: whose it is and which build wrote it. */
export interface OcsfContext {
  /** The workspace (metadata.tenant_uid). */
  workspaceId: string;
  /** The service's version (metadata.product.version). */
  productVersion: string;
}

export const PRODUCT_NAME = 'tprm-api';

/** The classes the service emits: uid, name and category (class_uid = category_uid * 1000 + the class's own). */
export const OCSF_CLASSES = {
  api_activity: { uid: 6003, name: 'API Activity', category: 6, categoryName: 'Application Activity' },
  entity_management: {
    uid: 3004,
    name: 'Entity Management',
    category: 3,
    categoryName: 'Identity & Access Management',
  },
  detection_finding: { uid: 2004, name: 'Detection Finding', category: 2, categoryName: 'Findings' },
} as const;
export type OcsfClass = keyof typeof OCSF_CLASSES;

/**
 * Activities by their ids in API Activity and Entity Management (Create 1, Update 3, Delete 4; Disable 9 in
 * Entity Management only); a finding is only ever created here (Create is 1 there too).
 */
export const ACTIVITY = {
  create: [1, 'Create'],
  update: [3, 'Update'],
  delete: [4, 'Delete'],
  disable: [9, 'Disable'],
  other: [99, 'Other'],
} as const;
export type Activity = keyof typeof ACTIVITY;

export const SEVERITY = {
  informational: [1, 'Informational'],
  low: [2, 'Low'],
  medium: [3, 'Medium'],
  high: [4, 'High'],
  critical: [5, 'Critical'],
} as const;
export type Severity = keyof typeof SEVERITY;

/** The classification attributes of an event of `cls` with this activity (`name`: Other's own name). */
export function classification(
  cls: OcsfClass,
  activity: Activity,
  otherName?: string,
): Record<string, number | string> {
  const { uid, name, category, categoryName } = OCSF_CLASSES[cls];
  const [activityId, caption] = ACTIVITY[activity];
  const activityName = activity === 'other' && otherName ? otherName : caption;
  return {
    class_uid: uid,
    class_name: name,
    category_uid: category,
    category_name: categoryName,
    activity_id: activityId,
    activity_name: activityName,
    type_uid: uid * 100 + activityId,
    type_name: `${name}: ${activityName}`,
  };
}

export function severity(level: Severity): { severity_id: number; severity: string } {
  const [id, caption] = SEVERITY[level];
  return { severity_id: id, severity: caption };
}

/** An OCSF timestamp: milliseconds since the epoch (the exact instant, to the microsecond, stays unmapped). */
export const epochMillis = (instant: string): number => Date.parse(instant);

/** `metadata`: the product, the schema version, the item's id and workspace, and what else the caller adds. */
export function metadata(
  context: OcsfContext,
  uid: string,
  logName: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    product: { name: PRODUCT_NAME, vendor_name: PRODUCT_NAME, version: context.productVersion },
    version: OCSF_VERSION,
    uid,
    tenant_uid: context.workspaceId,
    log_name: logName,
    ...extra,
  };
}

/** The service itself as an actor (the operator's actions, the worker, an event's change). */
export const SERVICE_ACTOR = { app_name: PRODUCT_NAME } as const;

/** An object without the properties whose value is undefined (OCSF attributes are absent, not null). */
export function defined<T extends Record<string, unknown>>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>;
}
