// The plan of a unit: how many records of each kind it has, drawn from a stream of its own so that
// `countSeedRecords` can walk the plans without building a record.
import type { AssessmentStatus } from '../resources/assessments/schema.js';
import type { RiskStatus } from '../resources/risks/schema.js';
import { PLAN_STREAM_SALT, Rng } from './random.js';
import { SETUP_KEYS } from './setup.js';
import type { SeedContext } from './unit.js';
import { assessmentWeights, pickWeighted, riskWeights } from './weights.js';

/** Workspace-wide collections as [base, ratio, cap]: unit i holds the indices [f(i), f(i+1)) with
 * f(k) = min(cap, base + k·ratio), so they grow with the number of suppliers up to a cap. */
const SHARES = {
  assets: [0, 2, 100_000],
  threats: [2, 0.5, 25_000],
  business_processes: [4, 0.1, 500],
  products_services: [3, 0.06, 300],
  processing_activities: [4, 0.1, 400],
  insights: [6, 0.1, 2_000],
  org_alerts: [4, 0.05, 2_000],
} as const;
export type Share = keyof typeof SHARES;
const shareEnd = (s: Share, k: number): number => {
  const [base, ratio, cap] = SHARES[s];
  return k === 0 ? 0 : Math.min(cap, Math.floor(base + k * ratio));
};

export interface AssessmentPlan {
  status: (typeof AssessmentStatus)[number];
  done: boolean; // has completed_at
  gaps: number;
  report: boolean;
  items: number; // action plan items; 0 = no action plan
}
export interface RiskPlan {
  status: (typeof RiskStatus)[number];
  supplier: boolean;
  treatments: number;
  acceptance: boolean;
}
export interface UnitPlan {
  i: number;
  assessments: AssessmentPlan[];
  summary: boolean;
  alerts: number;
  risks: RiskPlan[];
  range: Record<Share, [number, number]>;
  /** Per product or service of the unit: whether it has a business impact analysis. */
  bia: boolean[];
  /** Points of the risk score history. */
  points: number;
  /** Whether the unit records an asset upsert in the audit trail. */
  assetAudit: boolean;
  audits: number;
  total: number;
}
/** Running counts across units (they choose which values the first records cover). */
export interface PlanState {
  assessments: number;
  risks: number;
}

/** Assessments per supplier after the first units: one draw of this list (mostly 1 or 2, a few 0 or 3). */
const ASSESSMENT_COUNTS = [0, 1, 1, 1, 2, 2, 2, 3, 1, 2];
/** Treatments per risk status: [min, max]. */
const TREATMENTS = {
  open: [0, 2],
  treated: [1, 3],
  accepted: [0, 0],
  closed: [1, 2],
} satisfies Record<(typeof RiskStatus)[number], [number, number]>;
/** Weekly points of the risk score history (unit 0 holds them): a year and the current week. */
const SCORE_HISTORY_WEEKS = 53;
/** Every this many units, one audit entry records an asset upsert. */
const ASSET_AUDIT_EVERY = 10;
/** Audit entries of the API key and webhook endpoint set-up, written once by unit 0 (see buildShared): each
 * key's creation and revocation, and the endpoint's creation. */
const SETUP_AUDIT_ENTRIES =
  SETUP_KEYS.length + SETUP_KEYS.filter((key) => key.revokedDay !== undefined).length + 1;

export function planUnit(ctx: SeedContext, st: PlanState, i: number): UnitPlan {
  const rng = new Rng(ctx.seed, PLAN_STREAM_SALT, i);
  // The first units always have assessments, risks and action plans, so that small data sets show them.
  const nA = i < 6 ? rng.int(1, 3) : (ASSESSMENT_COUNTS[rng.int(0, ASSESSMENT_COUNTS.length - 1)] ?? 1);
  const assessments: AssessmentPlan[] = [];
  for (let k = 0; k < nA; k++) {
    const status = pickWeighted(rng, assessmentWeights.status, st.assessments++);
    const done = status === 'completed' || (status === 'expired' && rng.chance(0.6));
    const gaps = !done ? 0 : status === 'completed' ? rng.int(5, 20) : rng.int(3, 12);
    const items = done && (i < 8 || rng.chance(status === 'completed' ? 0.55 : 0.2)) ? rng.int(2, 6) : 0;
    assessments.push({ status, done, gaps, report: done && rng.chance(0.9), items });
  }
  const risks: RiskPlan[] = [];
  const addRisk = (supplier: boolean) => {
    const index = st.risks++;
    const status = pickWeighted(rng, riskWeights.status, index);
    const [lo, hi] = TREATMENTS[status];
    const treatments = rng.int(lo, hi);
    const acceptance = status === 'accepted' || index < 3 || rng.chance(0.04);
    risks.push({ status, supplier, treatments, acceptance });
  };
  if (i < 6 || rng.chance(0.35)) addRisk(true);
  if (i < 3 || rng.chance(0.15)) addRisk(false);
  const range = {} as Record<Share, [number, number]>;
  let shared = 0;
  for (const s of Object.keys(SHARES) as Share[]) {
    range[s] = [shareEnd(s, i), shareEnd(s, i + 1)];
    shared += range[s][1] - range[s][0];
  }
  const [psFrom, psTo] = range.products_services;
  const bia: boolean[] = [];
  for (let j = psFrom; j < psTo; j++) bia.push(j < 4 || rng.chance(0.85));
  const completed = assessments.filter((a) => a.status === 'completed').length;
  const assetAudit = i % ASSET_AUDIT_EVERY === 0 && range.assets[1] > range.assets[0];
  const plan: UnitPlan = {
    i,
    assessments,
    summary: rng.chance(0.25),
    alerts: i === 0 ? 2 : rng.chance(0.25) ? rng.int(1, 2) : 0,
    risks,
    range,
    bia,
    points: i === 0 ? SCORE_HISTORY_WEEKS : 0,
    assetAudit,
    audits: 1 + nA + completed + (assetAudit ? 1 : 0) + (i === 0 ? SETUP_AUDIT_ENTRIES : 0),
    total: 0,
  };
  let total = 1 + shared + plan.points + plan.audits + plan.alerts + (plan.summary ? 1 : 0);
  for (const a of assessments) total += 1 + a.gaps + (a.report ? 1 : 0) + (a.items ? 1 + a.items : 0);
  for (const r of risks) total += 1 + r.treatments + (r.acceptance ? 1 : 0);
  plan.total = total + bia.filter(Boolean).length;
  return plan;
}
