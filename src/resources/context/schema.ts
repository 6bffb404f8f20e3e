// The business context: risk-data-api.md "Context" and "Other resources", resources.md "Business process",
// "Product or service", "Processing activity", "Business impact analysis (bia)", "Threat".
import { Type } from 'typebox';
import { Criticality, DateTime, Nullable, StringEnum, Uuid } from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

export const ThreatSeverity = ['none', 'low', 'medium', 'high', 'critical'] as const;
export const ThreatStatus = ['open', 'mitigated', 'accepted'] as const;
export const ThreatSource = ['manual', 'external_feed', 'derived'] as const;

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Text = Type.String({ maxLength: 5000 });
/** A free-string value that is also a filter (`type`, `legal_basis`, `data_category`). */
const label = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 100, ...(description ? { description } : {}) });
const Label = label();
// Bounded so that a stored amount always fits its column (numeric(16, 2)): a bad import is a 422, not a 500.
const Money = Type.Number({
  description: 'Amount in US dollars (see `currency`).',
  minimum: 0,
  maximum: 1e13,
});
const Hours = Type.Number({ minimum: 0, maximum: 1e9 });
const timestamps = {
  created_at: field(DateTime, { keptText: true }),
  updated_at: field(DateTime, { keptText: true }),
};

export const BusinessProcess = defineResource({
  name: 'BusinessProcess',
  table: 'business_processes',
  fields: {
    id: field(Uuid),
    name: field(Name, { required: true }),
    description: field(Nullable(Text)),
    area_id: field(Nullable(Uuid)),
    area_name: field(Nullable(Name)),
    criticality: field(Nullable(StringEnum(Criticality))),
    ...timestamps,
  },
});

export const ProductService = defineResource({
  name: 'ProductService',
  table: 'products_services',
  fields: {
    id: field(Uuid),
    name: field(Name, { required: true }),
    type: field(Nullable(label('For instance `product` or `service`.'))),
    description: field(Nullable(Text)),
    criticality: field(Nullable(StringEnum(Criticality))),
    annual_revenue: field(Nullable(Money)),
    ...timestamps,
  },
});

export const ProcessingActivity = defineResource({
  name: 'ProcessingActivity',
  table: 'processing_activities',
  description: 'Describes categories and legal bases, not data subjects. `owner_name` needs pii:read.',
  fields: {
    id: field(Uuid),
    name: field(Name, { required: true }),
    purpose: field(Nullable(Text)),
    legal_basis: field(Nullable(Label)),
    data_categories: field(Type.Array(Label, { maxItems: 50, uniqueItems: true }), { keptText: true }),
    is_sensitive_data: field(Type.Boolean()),
    retention_period: field(Nullable(Type.String({ maxLength: 100 }))),
    owner_name: field(Nullable(Name), { pii: true }),
    ...timestamps,
  },
});

export const Bia = defineResource({
  name: 'BusinessImpactAnalysis',
  table: 'bia',
  fields: {
    id: field(Uuid),
    product_service_id: field(Uuid, { required: true }),
    rto_hours: field(Nullable(Hours)),
    rpo_hours: field(Nullable(Hours)),
    mtpd_hours: field(Nullable(Hours)),
    financial_impact_per_day: field(Nullable(Money)),
    resulting_criticality: field(Nullable(StringEnum(Criticality))),
    ...timestamps,
  },
});

export const Threat = defineResource({
  name: 'Threat',
  table: 'threats',
  fields: {
    id: field(Uuid),
    title: field(Name, { required: true }),
    description: field(Nullable(Text)),
    severity: field(StringEnum(ThreatSeverity), { required: true }),
    status: field(StringEnum(ThreatStatus)),
    source: field(StringEnum(ThreatSource)),
    cve_id: field(Nullable(Type.String({ minLength: 1, maxLength: 50, description: 'e.g. CVE-2024-3094' }))),
    mitre_technique_id: field(
      Nullable(Type.String({ minLength: 1, maxLength: 50, description: 'e.g. T1190' })),
    ),
    asset_id: field(Nullable(Uuid)),
    ...timestamps,
  },
});
