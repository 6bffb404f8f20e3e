// Alert and insight: risk-data-api.md "Alert", "Alerts and insights", resources.md "Alert" and "Insight",
// decision 15.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { AlertScope, AlertSeverity, DateTime, Nullable, StringEnum, Uuid } from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

export { AlertScope, AlertSeverity };
export const InsightCategory = [
  'risk_trend',
  'supplier_concentration',
  'compliance_gap',
  'scanner_health',
  'assessment_velocity',
  'other',
] as const;

const Title = Type.String({ minLength: 1, maxLength: 300 });
const Body = Type.String({ minLength: 1, maxLength: 10_000 });

export const Alert = defineResource({
  name: 'Alert',
  table: 'alerts',
  fields: {
    id: field(Uuid),
    scope: field(StringEnum(AlertScope), { required: true }),
    supplier_id: field(Nullable(Uuid)),
    severity: field(StringEnum(AlertSeverity), { required: true }),
    title: field(Title, { required: true }),
    body: field(Body, { required: true }),
    resolved_at: field(Nullable(DateTime)),
    created_at: field(DateTime),
    updated_at: field(DateTime),
  },
});

/**
 * The row of GET /alerts as the OpenAPI document describes it: `scope` discriminates a supplier alert (which
 * names its supplier) from an organizational one (`supplier_id` null). Both carry the message in `body`.
 */
export const AlertRow = (() => {
  const base = Alert.schema as unknown as { properties: Record<string, unknown>; required: string[] };
  const shape = (title: string, scope: string, supplierId: unknown) => ({
    type: 'object',
    title,
    properties: { ...base.properties, scope: { type: 'string', enum: [scope] }, supplier_id: supplierId },
    required: base.required,
    additionalProperties: false,
  });
  return Type.Unsafe({
    title: 'AlertRow',
    description: '`scope` tells the two alert shapes apart.',
    oneOf: [
      shape('SupplierAlert', 'supplier', Uuid),
      shape('OrgAlert', 'org', { type: 'null', description: 'Organizational alerts name no supplier.' }),
    ],
    discriminator: { propertyName: 'scope' },
  });
})();

export const Insight = defineResource({
  name: 'Insight',
  table: 'insights',
  fields: {
    id: field(Uuid),
    category: field(StringEnum(InsightCategory), { required: true }),
    severity: field(StringEnum(AlertSeverity), { required: true }),
    title: field(Title, { required: true }),
    body: field(Body, { required: true }),
    created_at: field(DateTime, { keptText: true }),
    updated_at: field(DateTime, { keptText: true }),
  },
});

export const AlertCreate = Type.Object(
  {
    scope: StringEnum(AlertScope),
    severity: StringEnum(AlertSeverity),
    title: Title,
    body: Body,
    supplier_id: Type.Optional(
      Nullable(
        Type.String({ format: 'uuid', description: 'Required when scope is supplier; null for org.' }),
      ),
    ),
  },
  { additionalProperties: false },
);

/** The rule a database check also holds: a supplier alert names its supplier, an org alert none. */
export function alertScopeProblem(scope: unknown, supplierId: unknown): string | null {
  if (scope === 'supplier' && (supplierId === null || supplierId === undefined))
    return 'is required when scope is supplier';
  if (scope === 'org' && supplierId !== null && supplierId !== undefined)
    return 'must be absent or null when scope is org';
  return null;
}
