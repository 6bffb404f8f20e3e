// Assessment: risk-data-api.md "Assessment", resources.md "Assessment", decisions 6 and 11.
import { Type } from 'typebox';
import { DateTime, Nullable, StringEnum, Usd, Uuid, VendorProfile } from '../fields.js';
import { defineResource, field } from '../resource.js';

export const AssessmentStatus = ['draft', 'sent', 'in_progress', 'paused', 'completed', 'expired'] as const;
export const AssessmentType = ['self', 'supplier'] as const;
export const AssessmentDecision = ['approved', 'approved_with_caveats', 'rejected'] as const;

export const Assessment = defineResource({
  name: 'Assessment',
  table: 'assessments',
  fields: {
    id: field(Uuid),
    supplier_id: field(Uuid, { required: true }),
    assessment_type: field(StringEnum(AssessmentType), { required: true }),
    status: field(StringEnum(AssessmentStatus)),
    decision: field(Nullable(StringEnum(AssessmentDecision)), {}),
    vendor_profile: field(Nullable(StringEnum(VendorProfile))),
    score: field(Nullable(Type.Number({ minimum: 0, maximum: 100 }))),
    deadline: field(Nullable(DateTime)),
    validity_days: field(Type.Integer({ minimum: 1, maximum: 3650 })),
    sent_at: field(Nullable(DateTime)),
    completed_at: field(Nullable(DateTime)),
    expires_at: field(Nullable(DateTime), {
      sql: 'iso($t.completed_at + make_interval(days => $t.validity_days))',
    }),
    gap_count: field(Type.Integer({ minimum: 0 }), {
      sql: '(select count(*)::int from gaps g where g.workspace_id = $t.workspace_id and g.assessment_id = $t.id)',
    }),
    contract_value: field(Nullable(Usd)),
    created_at: field(DateTime),
    updated_at: field(DateTime),
  },
});
