// Supplier: risk-data-api.md "Supplier", resources.md "Supplier", decisions 6 and 41.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import {
  Criticality,
  Currency,
  DateTime,
  FreeObject,
  Nullable,
  RiskGroup,
  StringEnum,
  SupplierSize,
  SupplierStatus,
  Usd,
  Uuid,
  VendorProfile,
} from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

const Domain = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern:
    '^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$',
  description: 'Unique within the workspace (compared case-insensitively, stored lowercased).',
  examples: ['acme.example'],
});
const Email = Type.String({ format: 'email', maxLength: 254 });
const Tag = Type.String({ minLength: 1, maxLength: 64 });
const Tags = Type.Array(Tag, { maxItems: 32, uniqueItems: true });
const Contact = Type.Object(
  { name: Nullable(Type.String({ maxLength: 200 })), email: Nullable(Email) },
  {
    additionalProperties: false,
  },
);

export const supplierFields = {
  id: field(Uuid),
  name: field(Type.String({ minLength: 1, maxLength: 200 }), { required: true }),
  domain: field(Nullable(Domain)),
  industry: field(Nullable(Type.String({ maxLength: 100 }))),
  size: field(Nullable(StringEnum(SupplierSize))),
  country: field(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
  status: field(StringEnum(SupplierStatus)),
  is_active: field(Type.Boolean({ description: 'True exactly when status is active.' }), {
    sql: "($t.status = 'active')",
  }),
  criticality: field(Nullable(StringEnum(Criticality))),
  risk_group: field(Nullable(StringEnum(RiskGroup))),
  vendor_profile: field(Nullable(StringEnum(VendorProfile))),
  tags: field(Tags, { keptText: true }),
  source: field(
    Type.String({ maxLength: 50, description: 'Always `import` for suppliers created through the API.' }),
  ),
  annual_spend: field(Nullable(Usd)),
  created_at: field(DateTime, { keptText: true }),
  updated_at: field(DateTime, { keptText: true }),
  email: field(Nullable(Email), { pii: true }),
  contacts: field(Type.Array(Contact, { maxItems: 50 }), { pii: true, keptText: true }),
  onboarding_data: field(Nullable(FreeObject), { pii: true, keptText: true }),
};

export const Supplier = defineResource({ name: 'Supplier', table: 'suppliers', fields: supplierFields });

export const SupplierDetail = defineResource({
  name: 'SupplierDetail',
  table: 'suppliers',
  description: 'A supplier with the number of its assessments; the response also carries `currency`.',
  fields: {
    ...supplierFields,
    assessment_count: field(Type.Integer({ minimum: 0 }), {
      sql: '(select count(*)::int from assessments a where a.workspace_id = $t.workspace_id and a.supplier_id = $t.id)',
    }),
    currency: field(Currency, { sql: "'USD'" }),
  },
});

export const SupplierCreate = Type.Object(
  {
    name: supplierFields.name.schema,
    domain: Type.Optional(supplierFields.domain.schema),
    email: Type.Optional(supplierFields.email.schema),
    industry: Type.Optional(supplierFields.industry.schema),
    size: Type.Optional(supplierFields.size.schema),
    country: Type.Optional(supplierFields.country.schema),
    criticality: Type.Optional(supplierFields.criticality.schema),
    risk_group: Type.Optional(supplierFields.risk_group.schema),
    vendor_profile: Type.Optional(supplierFields.vendor_profile.schema),
    tags: Type.Optional(Tags),
    source: Type.Optional(
      Type.Unknown({ description: 'Accepted and ignored: the source is always `import`.' }),
    ),
  },
  { additionalProperties: false, title: 'SupplierCreate' },
);
