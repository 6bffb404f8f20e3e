// Suppliers and what their assessments produce: the assessment, its gaps, its report (and its action plan,
// built in action-plans.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { AssessmentDecision } from '../resources/assessments/schema.js';
import { Criticality, type RiskGroup, VendorProfile } from '../schema/fields.js';
import { buildActionPlan } from './action-plans.js';
import { ascii, DAY, date, HOUR, iso } from './format.js';
import type { AssessmentPlan } from './plan.js';
import { audit, recordId, type SupplierInfo, type Unit } from './unit.js';
import {
  CONTROLS,
  COUNTRIES,
  type CountryCode,
  EVIDENCE_FILES,
  GAP_FINDINGS,
  NAME_CORES,
  NAME_PAIRS,
  NAME_PREFIXES,
  NAME_QUALIFIERS,
  NON_ASCII_SUPPLIERS,
  SUPPLIER_TAGS,
} from './vocabulary.js';
import {
  assessmentWeights,
  criticalityWeights,
  gapWeights,
  pickWeighted,
  supplierWeights,
} from './weights.js';

/** Suppliers walk the name pairs with this stride, which is prime to their count, so that a round visits
 * each pair once (from a per-seed offset). */
const NAME_PAIR_STRIDE = 7919;
/** Units 2, 9, 16, ... take the next supplier with a non-ASCII name while there is one. */
const NON_ASCII_FIRST_UNIT = 2;
const NON_ASCII_EVERY = 7;
const MIN_SUPPLIER_AGE_DAYS = 60;
const MAX_SUPPLIER_AGE_DAYS = 730;

export function buildSupplier(u: Unit, i: number): SupplierInfo {
  const { ctx, rng } = u;
  const [, id] = u.next('suppliers');
  const nonAscii =
    (i - NON_ASCII_FIRST_UNIT) % NON_ASCII_EVERY === 0
      ? NON_ASCII_SUPPLIERS[(i - NON_ASCII_FIRST_UNIT) / NON_ASCII_EVERY]
      : undefined;
  let name: string;
  let domain: string;
  let country: CountryCode;
  let industry: string;
  if (nonAscii) [name, domain, country, industry] = nonAscii;
  else {
    const round = Math.floor(i / NAME_PAIRS);
    const pair = ((i % NAME_PAIRS) * NAME_PAIR_STRIDE + ctx.pairOffset) % NAME_PAIRS;
    const prefix = NAME_PREFIXES[pair % NAME_PREFIXES.length] as string;
    const [core, coreIndustry] = NAME_CORES[Math.floor(pair / NAME_PREFIXES.length)] as [string, string];
    country = pickWeighted(rng, supplierWeights.country);
    const [tld, legalForm] = COUNTRIES[country];
    const qualifier = round ? ` ${NAME_QUALIFIERS[(round - 1) % NAME_QUALIFIERS.length]}` : '';
    name = `${prefix} ${core}${qualifier} ${legalForm}`;
    domain = `${prefix.toLowerCase()}-${core.toLowerCase()}${round ? `-${round}` : ''}${tld}`;
    industry = coreIndustry;
  }
  const status = pickWeighted(rng, supplierWeights.status, i);
  const criticality = pickWeighted(rng, criticalityWeights, i);
  // The profile and risk group follow the criticality (P0/G3 for low ... P3/G1 for critical), mostly.
  const level = Criticality.indexOf(criticality);
  const profile =
    i < 4 || rng.chance(0.8)
      ? (VendorProfile[level] as SupplierInfo['profile'])
      : (VendorProfile[rng.int(0, VendorProfile.length - 1)] as SupplierInfo['profile']);
  const riskGroup: (typeof RiskGroup)[number] = level >= 2 ? 'G1' : level === 1 ? 'G2' : 'G3';
  const created = ctx.now - rng.time(MIN_SUPPLIER_AGE_DAYS, MAX_SUPPLIER_AGE_DAYS) * DAY;
  const contacts = Array.from({ length: rng.int(1, 3) }, () => {
    const person = u.person();
    const [first, last] = person.split(' ') as [string, string];
    return { name: person, email: `${ascii(first)}.${ascii(last)}@${domain}` };
  });
  u.emit('suppliers', created, u.after(created, 400 * DAY), {
    id,
    name,
    domain,
    industry,
    size: pickWeighted(rng, supplierWeights.size, i),
    country,
    status,
    is_active: status === 'active',
    criticality,
    risk_group: riskGroup,
    vendor_profile: profile,
    tags: rng.sample(SUPPLIER_TAGS, rng.int(0, 3)),
    source: pickWeighted(rng, supplierWeights.source, i),
    email: `${rng.pick(['vendor-risk', 'security', 'compliance', 'privacy'])}@${domain}`,
    contacts,
    onboarding_data: {
      questionnaire: rng.pick(['SIG Lite 2024', 'CAIQ v4', 'Custom baseline v3']),
      data_access: rng.pick(['none', 'internal', 'customer_pii', 'payment_data']),
      hosting_regions: rng.sample(['eu', 'us', 'uk', 'apac'], rng.int(1, 2)),
      sso_supported: rng.chance(0.7),
      subprocessor_count: rng.int(0, 25),
      ai_data_usage: pickWeighted(rng, supplierWeights.aiDataUsage),
    },
    annual_spend: rng.chance(0.2) ? null : rng.money(5_000, 5_000_000),
  });
  audit(u, 'supplier.created', rng.chance(0.7) ? 'user' : 'api_key', ['supplier', id], {
    source: 'import',
    api_key_id: recordId(ctx, 'api_keys', 0),
  });
  return { id, name, domain, profile, created };
}

/** Timeline of an assessment consistent with its status. */
function assessmentTimes(u: Unit, a: AssessmentPlan, t0: number) {
  const { now } = u.ctx;
  const rng = u.rng;
  let validity = rng.pick([365, 365, 365, 180, 730]);
  let completed: number | null = null;
  let sent: number | null;
  let created: number;
  if (a.done) {
    if (a.status === 'expired') {
      validity = [365, 180, 90, 30].find((v) => now - v * DAY - 2 * DAY > t0 + 10 * DAY) ?? 30;
      completed = rng.time(t0 + 10 * DAY, now - validity * DAY - DAY);
    } else completed = rng.time(Math.max(t0 + 10 * DAY, now - (validity - 1) * DAY), now - HOUR);
    sent = Math.max(t0, completed - rng.time(7, 45) * DAY);
    created = Math.max(t0, sent - rng.time(0, 5) * DAY);
  } else if (a.status === 'expired') {
    created = rng.time(t0, now - 40 * DAY);
    sent = created + DAY;
  } else {
    const window = a.status === 'draft' ? 60 : 120;
    created = rng.time(Math.max(t0, now - window * DAY), now - 2 * DAY);
    sent = a.status === 'draft' ? null : rng.time(created, Math.min(created + 3 * DAY, now - HOUR));
  }
  const deadline =
    sent === null ? (rng.chance(0.5) ? created + 45 * DAY : null) : sent + rng.int(30, 60) * DAY;
  return { created, sent, completed, deadline, validity };
}

/** Above this many gaps, a completed assessment's decision is drawn from the "many gaps" weights. */
const MANY_GAPS = 14;

export function buildAssessment(u: Unit, s: SupplierInfo, a: AssessmentPlan) {
  const { rng } = u;
  const [aIndex, id] = u.next('assessments');
  const t = assessmentTimes(u, a, s.created);
  const completed = a.status === 'completed';
  const decision = completed
    ? pickWeighted(
        rng,
        a.gaps > MANY_GAPS ? assessmentWeights.decisionManyGaps : assessmentWeights.decision,
        u.tick('#decision'),
      )
    : null;
  const score =
    t.completed === null
      ? null
      : decision === 'rejected'
        ? rng.int(15, 55)
        : decision === 'approved_with_caveats'
          ? rng.int(50, 80)
          : rng.int(70, 98);
  u.emit('assessments', t.created, t.completed ?? u.after(t.sent ?? t.created), {
    id,
    supplier_id: s.id,
    assessment_type: pickWeighted(rng, assessmentWeights.type, aIndex),
    status: a.status,
    decision,
    vendor_profile: rng.chance(0.8) ? s.profile : VendorProfile[rng.int(0, VendorProfile.length - 1)],
    score,
    deadline: t.deadline === null ? null : iso(t.deadline),
    validity_days: t.validity,
    sent_at: t.sent === null ? null : iso(t.sent),
    completed_at: t.completed === null ? null : iso(t.completed),
    contract_value: rng.chance(0.3) ? null : rng.money(10_000, 2_000_000),
  });
  audit(u, 'assessment.created', 'user', ['assessment', id], { supplier_id: s.id });
  const gaps = buildGaps(u, id, a.gaps, t.sent ?? t.created, t.completed ?? t.created);
  if (t.completed === null) return;
  if (completed) audit(u, 'assessment.completed', 'system', ['assessment', id], { decision, score });
  if (a.report) {
    const [, rid] = u.next('reports');
    const at = u.after(t.completed, 2 * DAY);
    u.emit('reports', at, at, {
      id: rid,
      supplier_id: s.id,
      assessment_id: id,
      title: `${s.name}: assessment report ${date(t.completed).slice(0, 7)}`,
      report_type: 'assessment',
      narrative: narrative(u, s, score ?? 0, gaps.length, decision),
      generated_at: iso(at),
    });
  }
  if (a.items) buildActionPlan(u, s, id, t.completed, a.items, gaps);
}

/** A supplier's executive summary report (not tied to an assessment). */
export function buildSummaryReport(u: Unit, s: SupplierInfo) {
  const [, id] = u.next('reports');
  const at = u.rng.time(s.created, u.ctx.now);
  const summary = narrative(u, s, u.rng.int(40, 95), u.rng.int(0, 12), null);
  u.emit('reports', at, at, {
    id,
    supplier_id: s.id,
    assessment_id: null,
    title: `${s.name}: executive summary`,
    report_type: 'executive_summary',
    narrative: `${s.name} supports ${u.rng.int(1, 6)} business processes. ${summary}`,
    generated_at: iso(at),
  });
}

function narrative(
  u: Unit,
  s: SupplierInfo,
  score: number,
  gaps: number,
  decision: (typeof AssessmentDecision)[number] | null,
): string {
  const verdict =
    decision === 'rejected'
      ? 'The relationship should not proceed until the high-severity gaps are closed.'
      : decision === 'approved_with_caveats'
        ? 'Approval is conditional on the remediation plan agreed with the supplier.'
        : 'The supplier meets the expected control baseline for its risk tier.';
  const focus = u.rng.pick([
    'access management',
    'business continuity',
    'data protection',
    'vulnerability management',
  ]);
  return (
    `${s.name} (${s.domain}) scored ${score} out of 100 with ${gaps} open gaps. ` +
    `The weakest area was ${focus}, where evidence was incomplete or outdated. ${verdict}`
  );
}

/** The evidence review status that goes with a gap's evidence status (none when evidence is missing). */
const REVIEW_STATUS = { submitted: 'pending', accepted: 'accepted', rejected: 'rejected' } as const;

/** The gaps of an assessment; returns their [control code, control title]. */
function buildGaps(u: Unit, assessmentId: string, n: number, from: number, to: number): [string, string][] {
  const { rng } = u;
  const chosen = rng.sample(CONTROLS, n);
  for (const [code, domain, title] of chosen) {
    const [, id] = u.next('gaps');
    const created = rng.time(from, to);
    const evidenceStatus = pickWeighted(rng, gapWeights.evidenceStatus);
    const evidence =
      evidenceStatus === 'missing'
        ? []
        : rng.sample(EVIDENCE_FILES, rng.int(1, 2)).map(([file, mime]) => ({
            file_name: file,
            mime_type: mime,
            sha256: rng.hex(8),
            review_status: REVIEW_STATUS[evidenceStatus],
            score: rng.int(evidenceStatus === 'rejected' ? 0 : 40, evidenceStatus === 'rejected' ? 45 : 100),
          }));
    const status = pickWeighted(rng, gapWeights.status);
    u.emit('gaps', created, u.after(created, 90 * DAY), {
      id,
      assessment_id: assessmentId,
      control_code: code,
      control_title: title,
      gap_description: `${status === 'not_met' ? 'Not met' : 'Partially met'}: ${rng.pick(GAP_FINDINGS)}.`,
      domain,
      status,
      severity: pickWeighted(rng, gapWeights.severity),
      evidence_status: evidenceStatus,
      evidence,
    });
  }
  return chosen.map(([code, , title]) => [code, title]);
}
