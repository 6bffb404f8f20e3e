// Risks: resources.md "Risk", "Risk treatment", "Risk scores", "Risk matrix row", "Risk acceptance letter";
// risk-data-api.md "Risks"; decisions 36, 37, 40, 42.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { DateOnly, DateTime, Nullable, StringEnum, Uuid } from '../../schema/fields.js';
import { defineResource, type FieldSpec, field } from '../../schema/resource.js';

// Enumerations of risk-data-api.md "Enumerations" and resources.md.
export const RiskType = ['organizational', 'operational'] as const;
export const RiskStatus = ['open', 'treated', 'accepted', 'closed'] as const;
export const RiskCategory = ['human', 'biological', 'technological', 'legal', 'brand'] as const;
export const RiskSourceDomain = ['vendor', 'cyber', 'privacy', 'human'] as const;
export const RiskBand = ['low', 'medium', 'high', 'critical'] as const;
export const RiskMatrixScope = ['cyber', 'organizational'] as const;
export const RiskAcceptanceStatus = ['active', 'expired', 'revoked'] as const;
export const TreatmentStrategy = ['mitigate', 'transfer', 'avoid', 'accept'] as const;
export const TreatmentStatus = ['planned', 'in_progress', 'done'] as const;

/** USD amount (resources.md: USD fields), bounded to what numeric(16, 2) stores. */
const Money = Type.Number({
  minimum: 0,
  maximum: 10_000_000_000_000,
  description: 'Amount in US dollars (see `currency`).',
});
const Name = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const Prose = Type.String({ maxLength: 5000 });
const Level = Type.Integer({ minimum: 1, maximum: 5 });

/** SQL of a risk's computed score and band over the table alias `$t` (never stored, never imported). */
const SCORE_SQL = '($t.likelihood * $t.impact)';
const BAND_SQL = 'risk_band($t.likelihood * $t.impact)';

const BAND_RULE = 'low ≤ 4 < medium ≤ 9 < high ≤ 16 < critical';

// The fields a risk shares with its matrix rows.
const riskCore = {
  code: field(Name(50), { required: true }),
  title: field(Name(300), { required: true }),
  likelihood: field(Level, { required: true }),
  impact: field(Level, { required: true }),
  score: field(Type.Integer({ minimum: 1, maximum: 25, description: 'likelihood × impact.' }), {
    sql: SCORE_SQL,
  }),
  band: field(StringEnum(RiskBand, `From score: ${BAND_RULE}.`), { sql: BAND_SQL }),
  asset_id: field(Nullable(Uuid)),
  threat_id: field(Nullable(Uuid)),
  category: field(StringEnum(RiskCategory), { required: true }),
  financial_exposure: field(Nullable(Money)),
};

export const Risk = defineResource({
  name: 'Risk',
  table: 'risks',
  description: '`score` and `band` are computed from likelihood and impact.',
  fields: {
    id: field(Uuid),
    code: riskCore.code,
    title: riskCore.title,
    description: field(Nullable(Prose)),
    risk_type: field(StringEnum(RiskType), { required: true }),
    status: field(StringEnum(RiskStatus)),
    category: riskCore.category,
    source_domain: field(StringEnum(RiskSourceDomain), { required: true }),
    supplier_id: field(Nullable(Uuid)),
    asset_id: riskCore.asset_id,
    threat_id: riskCore.threat_id,
    likelihood: riskCore.likelihood,
    impact: riskCore.impact,
    score: riskCore.score,
    band: riskCore.band,
    financial_exposure: riskCore.financial_exposure,
    created_at: field(DateTime, { keptText: true }),
    updated_at: field(DateTime, { keptText: true }),
  },
});

export const RiskTreatment = defineResource({
  name: 'RiskTreatment',
  table: 'risk_treatments',
  fields: {
    id: field(Uuid),
    risk_id: field(Uuid, { required: true }),
    strategy: field(StringEnum(TreatmentStrategy), { required: true }),
    description: field(Nullable(Prose)),
    status: field(StringEnum(TreatmentStatus)),
    cost: field(Nullable(Money)),
    due_date: field(Nullable(DateOnly)),
    created_at: field(DateTime),
    updated_at: field(DateTime),
  },
});

export const RiskAcceptance = defineResource({
  name: 'RiskAcceptance',
  table: 'risk_acceptances',
  description:
    'A risk acceptance letter, in force from `valid_from` (inclusive) to `valid_until` (exclusive).',
  fields: {
    id: field(Uuid),
    risk_id: field(Uuid, { required: true }),
    status: field(StringEnum(RiskAcceptanceStatus)),
    justification: field(Nullable(Prose)),
    accepted_exposure: field(Nullable(Money)),
    valid_from: field(DateTime, { required: true, keptText: true }),
    valid_until: field(DateTime, { required: true, keptText: true }),
    created_at: field(DateTime, { keptText: true }),
    updated_at: field(DateTime, { keptText: true }),
  },
});

/** The workspace's overall risk score, 0 to 100. */
const WorkspaceScore = Type.Integer({ minimum: 0, maximum: 100 });

/** A point of the score history: exactly `{at, score}` (no id, no timestamps: the import takes it as is). */
export const RiskScorePoint = defineResource({
  name: 'RiskScorePoint',
  table: 'risk_score_points',
  fields: {
    at: field(DateTime, { required: true }),
    score: field(WorkspaceScore, { required: true }),
  },
});

/**
 * The workspace score is on a 0–100 scale; its band applies the risk thresholds to the same fraction of the
 * maximum (score ÷ 4 against 25): low ≤ 16 < medium ≤ 36 < high ≤ 64 < critical.
 */
export const WORKSPACE_BAND_SQL = (alias: string) => `risk_band(${alias}.score / 4.0)`;

export const RiskScores = Type.Unsafe({
  type: 'object',
  title: 'RiskScores',
  required: ['current', 'history'],
  additionalProperties: false,
  properties: {
    current: {
      description:
        'The latest point at or before the time of the request, whatever `from`, `to` and `limit` say; ' +
        'null when there is none (then `meta.feature_status` is `not_configured`).',
      anyOf: [
        {
          type: 'object',
          required: ['score', 'band', 'as_of'],
          additionalProperties: false,
          properties: {
            score: WorkspaceScore,
            band: StringEnum(RiskBand, 'low ≤ 16 < medium ≤ 36 < high ≤ 64 < critical (0–100 scale).'),
            as_of: DateTime,
          },
        },
        { type: 'null' },
      ],
    },
    history: Type.Array(RiskScorePoint.schema, {
      description: 'Points with `from` ≤ at ≤ `to`; at most `limit`, the most recent ones, oldest first.',
    }),
  },
});

// Risk matrix rows (resources.md "Risk matrix row"): a risk seen through its scope. Both shapes share the
// first fields; `scope` discriminates the rest.
function matrixRow<E extends Record<string, FieldSpec>>(scope: (typeof RiskMatrixScope)[number], extra: E) {
  const title = scope === 'cyber' ? 'RiskMatrixCyberRow' : 'RiskMatrixOrganizationalRow';
  return defineResource({
    name: title,
    table: 'risks',
    fields: {
      scope: field(StringEnum([scope] as const), { sql: `'${scope}'` }),
      risk_id: field(Uuid, { sql: '$t.id' }),
      code: riskCore.code,
      title: riskCore.title,
      likelihood: riskCore.likelihood,
      impact: riskCore.impact,
      score: riskCore.score,
      band: riskCore.band,
      ...extra,
    },
  });
}

export const CyberMatrixRow = matrixRow('cyber', {
  asset_id: riskCore.asset_id,
  threat_id: riskCore.threat_id,
});
export const OrganizationalMatrixRow = matrixRow('organizational', {
  category: riskCore.category,
  financial_exposure: riskCore.financial_exposure,
});

export const RiskMatrixRow = Type.Unsafe({
  title: 'RiskMatrixRow',
  description: '`scope` tells the two row shapes apart.',
  oneOf: [CyberMatrixRow.schema, OrganizationalMatrixRow.schema],
  // Each branch pins `scope` to one value (an enum of one), which is what tells them apart.
  discriminator: { propertyName: 'scope' },
});
