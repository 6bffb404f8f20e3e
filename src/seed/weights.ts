// How often each value of an enumerated field occurs in the seed data.
//
// A draw walks the values in the order they are written here, so the order is part of the output: reordering
// two entries changes the data even with the same weights. Keys are never integer-like, so JavaScript keeps
// a record's keys in the order they are written.
import { ActionPlanItemStatus, FINISHED_ITEM_STATUSES } from '../resources/action-plans/schema.js';
import { AlertSeverity, InsightCategory } from '../resources/alerts/schema.js';
import {
  AssessmentDecision,
  AssessmentStatus,
  AssessmentType,
  GapSeverity,
} from '../resources/assessments/schema.js';
import { AssetType, CloudProvider, Exposure } from '../resources/assets/schema.js';
import { ThreatSeverity, ThreatSource, ThreatStatus } from '../resources/context/schema.js';
import {
  RiskAcceptanceStatus,
  RiskCategory,
  type RiskSourceDomain,
  RiskStatus,
  RiskType,
  TreatmentStatus,
  TreatmentStrategy,
} from '../resources/risks/schema.js';
import { Criticality, SupplierSize, SupplierStatus } from '../schema/fields.js';
import type { Rng } from './random.js';
import type { CountryCode } from './vocabulary.js';

export interface Weighted<V extends string> {
  values: readonly V[];
  /** Running totals of the weights, in the order of `values`. */
  cumulative: readonly number[];
}

/** Weights for some values: all of `V` (TypeScript rejects a missing or unknown value), in written order. */
export function weightsOf<V extends string>(byValue: Record<V, number>): Weighted<V> {
  const values: V[] = [];
  const cumulative: number[] = [];
  let total = 0;
  for (const [value, weight] of Object.entries(byValue) as [V, number][]) {
    values.push(value);
    total += weight;
    cumulative.push(total);
  }
  return { values, cumulative };
}

/** Weights for every value of an enumeration of the contract. The array only types the record: draws follow
 * the record's order, which need not be the enumeration's. */
export const weights = <const T extends readonly string[]>(
  _enumeration: T,
  byValue: Record<T[number], number>,
): Weighted<T[number]> => weightsOf(byValue);

/** A weighted draw; with `cover` >= 0, values[cover] while in range and no draw, so that the first records
 * of a collection show every value. */
export function pickWeighted<V extends string>(rng: Rng, weighted: Weighted<V>, cover = -1): V {
  const { values, cumulative } = weighted;
  if (cover >= 0 && cover < values.length) return values[cover] as V;
  const r = rng.next() * (cumulative[cumulative.length - 1] as number);
  const k = cumulative.findIndex((c) => r < c);
  return values[k < 0 ? values.length - 1 : k] as V;
}

type ItemStatus = (typeof ActionPlanItemStatus)[number];
type SourceDomain = (typeof RiskSourceDomain)[number];

export const criticalityWeights = weights(Criticality, { low: 30, medium: 40, high: 22, critical: 8 });

export const supplierWeights = {
  status: weights(SupplierStatus, { active: 70, inactive: 12, pending: 18 }),
  size: weights(SupplierSize, { small: 30, medium: 35, large: 25, enterprise: 10 }),
  // `source` is a free string in the contract.
  source: weightsOf({ import: 85, manual: 15 }),
  country: weightsOf<CountryCode>({
    US: 30,
    GB: 10,
    DE: 10,
    FR: 8,
    NL: 5,
    IE: 4,
    CA: 4,
    IN: 5,
    SE: 3,
    ES: 3,
    IT: 3,
    CH: 3,
    AU: 3,
    JP: 3,
    SG: 2,
    BR: 2,
    PL: 2,
    DK: 1,
    GR: 1,
  }),
  // onboarding_data.ai_data_usage: onboarding data is free-form.
  aiDataUsage: weightsOf({ none: 55, inference_only: 25, training: 5, unknown: 15 }),
};

export const assessmentWeights = {
  status: weights(AssessmentStatus, {
    draft: 8,
    sent: 12,
    in_progress: 15,
    paused: 5,
    completed: 45,
    expired: 15,
  }),
  type: weights(AssessmentType, { supplier: 70, self: 30 }),
  decision: weights(AssessmentDecision, { approved: 55, approved_with_caveats: 30, rejected: 15 }),
  /** The decision when the assessment found many gaps. */
  decisionManyGaps: weights(AssessmentDecision, { approved: 15, approved_with_caveats: 45, rejected: 40 }),
};

export const gapWeights = {
  // Gap `status` and `evidence_status` are free strings in the contract.
  status: weightsOf({ not_met: 45, partially_met: 55 }),
  severity: weights(GapSeverity, { low: 30, medium: 45, high: 25 }),
  evidenceStatus: weightsOf({ missing: 30, submitted: 25, accepted: 30, rejected: 15 }),
};

export const assetWeights = {
  type: weights(AssetType, {
    application: 30,
    infrastructure: 30,
    data: 15,
    device: 10,
    facility: 4,
    third_party: 8,
    other: 3,
  }),
  exposure: weights(Exposure, { internal: 70, exposed: 30 }),
  cloudProvider: weights(CloudProvider, { aws: 45, azure: 25, gcp: 20, oci: 10 }),
};

export const contextWeights = {
  // Product `type` and `legal_basis` are free labels in the contract.
  productServiceType: weightsOf({ service: 60, product: 40 }),
  legalBasis: weightsOf({
    contract: 35,
    legitimate_interests: 25,
    consent: 15,
    legal_obligation: 15,
    vital_interests: 3,
    public_task: 7,
  }),
};

export const threatWeights = {
  severity: weights(ThreatSeverity, { none: 3, low: 20, medium: 35, high: 30, critical: 12 }),
  status: weights(ThreatStatus, { open: 55, mitigated: 30, accepted: 15 }),
  source: weights(ThreatSource, { manual: 30, external_feed: 50, derived: 20 }),
};

export const riskWeights = {
  type: weights(RiskType, { organizational: 55, operational: 45 }),
  status: weights(RiskStatus, { open: 45, treated: 30, accepted: 12, closed: 13 }),
  category: weights(RiskCategory, { technological: 40, legal: 20, brand: 15, human: 20, biological: 5 }),
  /** Source domain of a supplier's risk: every domain but human. */
  supplierDomain: weightsOf<Exclude<SourceDomain, 'human'>>({ vendor: 70, cyber: 15, privacy: 15 }),
  /** Source domain of an organizational risk: every domain but vendor. */
  orgDomain: weightsOf<Exclude<SourceDomain, 'vendor'>>({ cyber: 40, privacy: 25, human: 35 }),
  treatmentStrategy: weights(TreatmentStrategy, { mitigate: 65, transfer: 15, avoid: 10, accept: 10 }),
  treatmentStatus: weights(TreatmentStatus, { planned: 35, in_progress: 40, done: 25 }),
  acceptanceStatus: weights(RiskAcceptanceStatus, { active: 70, expired: 20, revoked: 10 }),
};

// An action plan's `status` is a free string in the contract.
const actionPlanStatus = weightsOf({ open: 40, in_progress: 40, closed: 20 });
type ActionPlanStatus = (typeof actionPlanStatus.values)[number];

export const actionPlanWeights = {
  status: actionPlanStatus,
  /** An item's status follows its plan's: an open plan has no finished item, a closed one only those. */
  itemStatusByPlanStatus: {
    open: weightsOf<Extract<ItemStatus, 'pending' | 'overdue'>>({ pending: 70, overdue: 30 }),
    in_progress: weights(ActionPlanItemStatus, {
      pending: 25,
      in_progress: 35,
      completed: 20,
      overdue: 12,
      not_applicable: 4,
      rejected: 4,
    }),
    closed: weights(FINISHED_ITEM_STATUSES, { completed: 80, not_applicable: 12, rejected: 8 }),
  } satisfies Record<ActionPlanStatus, Weighted<ItemStatus>>,
};

export const alertWeights = {
  /** Also the severity of insights, which share the enumeration. */
  severity: weights(AlertSeverity, { critical: 10, high: 25, medium: 40, low: 25 }),
  insightCategory: weights(InsightCategory, {
    risk_trend: 25,
    supplier_concentration: 15,
    compliance_gap: 25,
    scanner_health: 10,
    assessment_velocity: 15,
    other: 10,
  }),
};
