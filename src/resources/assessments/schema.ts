// Assessment: risk-data-api.md "Assessment", resources.md "Assessment", decisions 6 and 11.
// Gap: risk-data-api.md "Gap (element of an assessment's gap list)", resources.md "Gap".
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import {
  AssessmentStatus,
  AssessmentType,
  DateTime,
  Nullable,
  StringEnum,
  Usd,
  Uuid,
  VendorProfile,
} from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

// The event catalogue names these two too (src/schema/fields.ts).
export { AssessmentStatus, AssessmentType };
export const AssessmentDecision = ['approved', 'approved_with_caveats', 'rejected'] as const;
export const GapSeverity = ['low', 'medium', 'high'] as const;

const ValidityDays = Type.Integer({
  minimum: 1,
  maximum: 3650,
  description: 'Days the result stays valid after completion (default 365).',
});

/** SQL of the validity end, shared by the field and the `expires_before` filter (resources.md). */
export const expiresAtSql = (alias: string) =>
  `(${alias}.completed_at + make_interval(days => ${alias}.validity_days))`;

export const Assessment = defineResource({
  name: 'Assessment',
  table: 'assessments',
  fields: {
    id: field(Uuid),
    supplier_id: field(Uuid, { required: true }),
    assessment_type: field(StringEnum(AssessmentType), { required: true }),
    // A new assessment starts in draft: the supplier is not invited yet.
    status: field(StringEnum(AssessmentStatus), { initial: 'draft' }),
    decision: field(Nullable(StringEnum(AssessmentDecision)), {}),
    vendor_profile: field(Nullable(StringEnum(VendorProfile))),
    score: field(Nullable(Type.Number({ minimum: 0, maximum: 100 }))),
    deadline: field(Nullable(DateTime), { keptText: true }),
    validity_days: field(ValidityDays, { initial: 365 }),
    sent_at: field(Nullable(DateTime), { keptText: true }),
    completed_at: field(Nullable(DateTime), { keptText: true }),
    expires_at: field(Nullable(DateTime), { sql: `iso(${expiresAtSql('$t')})` }),
    gap_count: field(Type.Integer({ minimum: 0 }), {
      sql: '(select count(*)::int from gaps g where g.workspace_id = $t.workspace_id and g.assessment_id = $t.id)',
    }),
    contract_value: field(Nullable(Usd)),
    created_at: field(DateTime, { keptText: true }),
    updated_at: field(DateTime, { keptText: true }),
  },
});

/** POST /assessments body (risk-data-api.md "AssessmentCreate"; required fields per decision 6). */
export const AssessmentCreate = Type.Object(
  {
    supplier_id: Type.String({ format: 'uuid', description: 'A supplier of the workspace.' }),
    assessment_type: StringEnum(AssessmentType),
    deadline: Type.Optional(
      Nullable(Type.String({ format: 'date-time', description: 'When given, must be in the future.' })),
    ),
    validity_days: Type.Optional(ValidityDays),
  },
  { additionalProperties: false, title: 'AssessmentCreate' },
);

/** POST /admin/assessments/{id}/status body (management-api.md). */
export const AssessmentStatusChange = Type.Object(
  {
    status: StringEnum(AssessmentStatus),
    decision: Type.Optional(Nullable(StringEnum(AssessmentDecision))),
    workspace_id: Type.Optional(
      Type.String({
        format: 'uuid',
        description: 'Only needed when imported records of several workspaces share this id.',
      }),
    ),
  },
  { additionalProperties: false },
);

// Evidence metadata only: the file contents are never stored nor returned (risk-data-api.md "Gap").
const EvidenceEntry = Type.Object(
  {
    file_name: Type.String({ minLength: 1, maxLength: 255 }),
    mime_type: Type.String({ minLength: 1, maxLength: 255 }),
    sha256: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: '^[0-9a-fA-F]+$',
      examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
    }),
    review_status: Type.String({ minLength: 1, maxLength: 50 }),
    score: Nullable(Type.Number({ minimum: 0, maximum: 100 })),
  },
  { additionalProperties: false },
);

// The record holds no answer column, and import rejects unknown fields: the supplier's raw answer text can
// be neither stored nor returned (risk-data-api.md "Gap").
export const Gap = defineResource({
  name: 'Gap',
  table: 'gaps',
  description: 'A control of the assessment that was not fully met.',
  fields: {
    id: field(Uuid),
    assessment_id: field(Uuid, { required: true }),
    control_code: field(Type.String({ minLength: 1, maxLength: 64 }), { required: true }),
    control_title: field(Type.String({ minLength: 1, maxLength: 500 }), { required: true }),
    gap_description: field(Nullable(Type.String({ maxLength: 5000 }))),
    domain: field(Nullable(Type.String({ maxLength: 100 }))),
    status: field(
      Type.String({ minLength: 1, maxLength: 50, description: 'For instance `partially_met`.' }),
      {
        required: true,
      },
    ),
    severity: field(StringEnum(GapSeverity), { required: true }),
    evidence_status: field(
      Type.String({ minLength: 1, maxLength: 50, description: 'For instance `missing`.' }),
    ),
    // Redacted like a personal field, but by evidence:read: the gaps route passes `pii: hasScope('evidence:read')`
    // to Gap.json, so the array is absent (never null) without that scope.
    evidence: field(
      Type.Array(EvidenceEntry, { maxItems: 100, description: 'Only with the evidence:read scope.' }),
      // An assessment's gaps are one aggregate that PostgreSQL builds, which reads the document itself.
      { pii: true, keptText: false },
    ),
    created_at: field(DateTime),
    updated_at: field(DateTime),
  },
});
