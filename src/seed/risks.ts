// Risks with their treatments and acceptance letters.
import { type RiskAcceptanceStatus, RiskSourceDomain } from '../resources/risks/schema.js';
import { DAY, date, HOUR, iso } from './format.js';
import type { RiskPlan } from './plan.js';
import type { SupplierInfo, Unit } from './unit.js';
import { ACCEPTANCE_JUSTIFICATIONS, RISK_CATEGORY_BY_DOMAIN, RISK_TITLES } from './vocabulary.js';
import { pickWeighted, riskWeights } from './weights.js';

type AcceptanceStatus = (typeof RiskAcceptanceStatus)[number];

/** Statuses of the first acceptance letters, which belong to the first risks (open, treated, accepted):
 * one letter of each status. */
const FIRST_ACCEPTANCE_STATUSES: AcceptanceStatus[] = ['expired', 'revoked', 'active'];
/** A letter of a risk that is not (or no longer) accepted is no longer in force. */
const LAPSED_ACCEPTANCE_STATUSES: AcceptanceStatus[] = ['expired', 'revoked'];

/** A risk of the supplier `s` (or an organizational one, per the plan). */
export function buildRisk(u: Unit, r: RiskPlan, s: SupplierInfo) {
  const { rng, ctx } = u;
  const [index, id] = u.next('risks');
  // The first risks cover every source domain, then every category.
  const domain =
    index < RiskSourceDomain.length
      ? (RiskSourceDomain[index] as (typeof RiskSourceDomain)[number])
      : pickWeighted(rng, r.supplier ? riskWeights.supplierDomain : riskWeights.orgDomain);
  const category =
    index < riskWeights.category.values.length
      ? pickWeighted(rng, riskWeights.category, index)
      : domain === 'vendor'
        ? pickWeighted(rng, riskWeights.category)
        : RISK_CATEGORY_BY_DOMAIN[domain];
  const created = rng.time(r.supplier ? s.created : ctx.now - 700 * DAY, ctx.now - 5 * DAY);
  const exposure = rng.chance(0.2) ? null : rng.money(10_000, 10_000_000);
  const base =
    domain === 'vendor' ? `${s.name}: ${rng.pick(RISK_TITLES.vendor)}` : rng.pick(RISK_TITLES[domain]);
  u.emit('risks', created, u.after(created, 200 * DAY), {
    id,
    code: `R-${String(index + 1).padStart(4, '0')}`,
    title: base,
    description: `${base}. Identified during the ${rng.pick(['annual', 'quarterly', 'ad hoc'])} risk review.`,
    risk_type: pickWeighted(rng, riskWeights.type, index),
    status: r.status,
    category,
    source_domain: domain,
    supplier_id: r.supplier ? s.id : null,
    likelihood: rng.int(1, 5),
    impact: rng.int(1, 5),
    financial_exposure: exposure,
  });
  for (let k = 0; k < r.treatments; k++) {
    const [tIndex, tid] = u.next('risk_treatments');
    const tStatus = r.status === 'closed' ? 'done' : pickWeighted(rng, riskWeights.treatmentStatus, tIndex);
    const tCreated = u.after(created, 60 * DAY);
    u.emit('risk_treatments', tCreated, u.after(tCreated, 90 * DAY), {
      id: tid,
      risk_id: id,
      strategy: pickWeighted(rng, riskWeights.treatmentStrategy, tIndex),
      description: rng.pick([
        'Enforce MFA and quarterly access reviews.',
        'Negotiate contractual breach notification within 24 hours.',
        'Purchase cyber insurance covering third-party outages.',
        'Migrate the workload to a second provider.',
        'Run a tabletop exercise with the supplier.',
      ]),
      status: tStatus,
      cost: rng.money(1_000, 500_000),
      due_date: date(tStatus === 'done' ? tCreated + rng.int(10, 90) * DAY : ctx.now + rng.int(7, 180) * DAY),
    });
  }
  if (r.acceptance) {
    const [aIndex, aid] = u.next('risk_acceptances');
    const st =
      aIndex < FIRST_ACCEPTANCE_STATUSES.length
        ? (FIRST_ACCEPTANCE_STATUSES[aIndex] as AcceptanceStatus)
        : r.status === 'accepted'
          ? pickWeighted(rng, riskWeights.acceptanceStatus)
          : rng.pick(LAPSED_ACCEPTANCE_STATUSES);
    const validFrom = rng.time(Math.max(created, ctx.now - 400 * DAY), ctx.now - 3 * DAY);
    const validUntil =
      st === 'expired'
        ? rng.time(validFrom + DAY, ctx.now - HOUR)
        : Math.max(validFrom, ctx.now) + rng.int(30, 365) * DAY;
    u.emit('risk_acceptances', validFrom, st === 'active' ? validFrom : u.after(validFrom, 90 * DAY), {
      id: aid,
      risk_id: id,
      status: st,
      justification: `Residual risk within appetite; ${rng.pick(ACCEPTANCE_JUSTIFICATIONS)}.`,
      accepted_exposure: exposure ?? rng.money(10_000, 1_000_000),
      valid_from: iso(validFrom),
      valid_until: iso(validUntil),
    });
  }
}
