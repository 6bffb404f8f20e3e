// The vocabulary of field types shared by every resource schema.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { type TSchema, type TUnsafe, Type } from 'typebox';

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });
export const DateOnly = Type.String({ format: 'date' });
export const Usd = Type.Number({ description: 'Amount in US dollars (see `currency`).' });

export function StringEnum<const T extends readonly string[]>(
  values: T,
  description?: string,
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({
    type: 'string',
    enum: [...values],
    ...(description ? { description } : {}),
  });
}

export function Nullable<S extends TSchema>(schema: S) {
  return Type.Union([schema, Type.Null()]);
}

export const FreeObject = Type.Record(Type.String(), Type.Unknown());

// C0 controls, DEL and C1 controls (U+0000-U+001F, U+007F-U+009F): characters that a terminal, a log viewer or
// a URL parser acts on (moves the cursor, strips, ends a line) rather than shows.
const CONTROL_RANGES = '\\u0000-\\u001f\\u007f-\\u009f';
const CONTROL_CHARACTER = new RegExp(`[${CONTROL_RANGES}]`);
export const hasControlCharacter = (text: string): boolean => CONTROL_CHARACTER.test(text);
/** Every control character, for `replace`. */
export const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, 'g');
/** The JSON Schema `pattern` of a string without control characters; validation says it in words. */
export const WITHOUT_CONTROLS = `^[^${CONTROL_RANGES}]*$`;
export const CONTROLS_REFUSED = 'must not contain control characters (U+0000 to U+001F, U+007F to U+009F)';

/** The top-level `currency` of the responses listed in risk-data-api.md "Conventions". */
export const Currency = Type.Unsafe<'USD'>({
  type: 'string',
  enum: ['USD'],
  title: 'Currency',
  description: 'Applies to every monetary field of the response.',
});

// Enumerations of risk-data-api.md.
export const Criticality = ['low', 'medium', 'high', 'critical'] as const;
export const SupplierStatus = ['active', 'inactive', 'pending'] as const;
export const SupplierSize = ['small', 'medium', 'large', 'enterprise'] as const;
export const RiskGroup = ['G1', 'G2', 'G3'] as const;
export const VendorProfile = ['P0', 'P1', 'P2', 'P3'] as const;
export const Plans = ['enterprise', 'business', 'starter'] as const;
export type Plan = (typeof Plans)[number];
// Here rather than in their slices because the event catalogue (src/contract/events.ts) names them too.
export const AlertSeverity = ['critical', 'high', 'medium', 'low'] as const;
export const AlertScope = ['supplier', 'org'] as const;
export const ActionPlanItemStatus = [
  'pending',
  'in_progress',
  'completed',
  'overdue',
  'not_applicable',
  'rejected',
] as const;
export const AssessmentStatus = ['draft', 'sent', 'in_progress', 'paused', 'completed', 'expired'] as const;
export const AssessmentType = ['self', 'supplier'] as const;
export const AssetSource = ['manual', 'cloud'] as const;
export const CloudProvider = ['aws', 'gcp', 'azure', 'oci'] as const;
/** The longest webhook URL registered, in its stored (normalised) form (events/address-policy.ts checks it). */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
// The states of one delivery attempt, which the dispatcher moves attempts through; the public delivery
// resource serves and filters on the same list.
export const DeliveryStatuses = ['pending', 'delivering', 'delivered', 'failed', 'exhausted'] as const;
export type DeliveryStatus = (typeof DeliveryStatuses)[number];

// Sinks (P203-P219): what a sink is, reads and writes, and what came of a batch's send.
export const SinkKinds = ['http', 'syslog'] as const;
export const SinkSources = ['audit', 'events'] as const;
export type SinkSource = (typeof SinkSources)[number];
export const SinkFormats = ['native', 'ocsf'] as const;
export const SinkOutcomes = ['delivered', 'failed'] as const;

export const SCOPES = [
  'suppliers:read',
  'suppliers:write',
  'assessments:read',
  'assessments:write',
  'reports:read',
  'assets:read',
  'assets:write',
  'risks:read',
  'action-plans:read',
  'action-plans:write',
  'alerts:read',
  'context:read',
  'evidence:read',
  'audit:read',
  'webhooks:read',
  'pii:read',
] as const;
export type Scope = (typeof SCOPES)[number];
