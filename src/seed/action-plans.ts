// Action plans with their items, and alerts.
import type { ActionPlanItemStatus } from '../resources/action-plans/schema.js';
import type { AlertScope } from '../resources/alerts/schema.js';
import { DAY, date, iso } from './format.js';
import type { SupplierInfo, Unit } from './unit.js';
import { ITEM_NOTES, ORG_ALERT_TITLES, SUPPLIER_ALERT_TITLES } from './vocabulary.js';
import { actionPlanWeights, alertWeights, pickWeighted } from './weights.js';

type ItemStatus = (typeof ActionPlanItemStatus)[number];

/** The status changes an item went through to reach its status, oldest first. */
const HISTORY: Record<ItemStatus, [from: ItemStatus, to: ItemStatus][]> = {
  pending: [],
  in_progress: [['pending', 'in_progress']],
  completed: [
    ['pending', 'in_progress'],
    ['in_progress', 'completed'],
  ],
  overdue: [['pending', 'overdue']],
  not_applicable: [['pending', 'not_applicable']],
  rejected: [
    ['pending', 'in_progress'],
    ['in_progress', 'rejected'],
  ],
};

/** The action plan of a completed assessment; items address its gaps ([control code, title]) mostly. */
export function buildActionPlan(
  u: Unit,
  s: SupplierInfo,
  assessmentId: string,
  from: number,
  n: number,
  gaps: [string, string][],
) {
  const { rng, ctx } = u;
  const [pIndex, id] = u.next('action_plans');
  const created = u.after(from, 5 * DAY);
  const status = pickWeighted(rng, actionPlanWeights.status, pIndex);
  u.emit('action_plans', created, u.after(created, 60 * DAY), {
    id,
    supplier_id: s.id,
    assessment_id: assessmentId,
    title: `Remediation plan: ${s.name}`,
    status,
    due_date: date(created + rng.int(30, 120) * DAY),
  });
  const controls = rng.sample(gaps, Math.min(gaps.length, n));
  for (let k = 0; k < n; k++) {
    const [, iid] = u.next('action_plan_items');
    const itemStatus = pickWeighted(
      rng,
      actionPlanWeights.itemStatusByPlanStatus[status],
      u.tick(`#items-${status}`),
    );
    const due =
      itemStatus === 'overdue'
        ? rng.time(Math.min(created, ctx.now - 10 * DAY), ctx.now - 2 * DAY)
        : itemStatus === 'pending' || itemStatus === 'in_progress'
          ? ctx.now + rng.int(2, 90) * DAY
          : created + rng.int(14, 120) * DAY;
    let at = created;
    const history = HISTORY[itemStatus].map(([fromStatus, toStatus]) => {
      at = u.after(at, 20 * DAY);
      return {
        at: iso(at),
        from_status: fromStatus,
        to_status: toStatus,
        note: toStatus === 'overdue' ? 'Due date passed.' : rng.pick(ITEM_NOTES),
        actor_id: null,
      };
    });
    const control = controls[k] && rng.chance(0.75) ? controls[k] : null;
    const [code, title] = control ?? [null, null];
    u.emit('action_plan_items', created, at, {
      id: iid,
      action_plan_id: id,
      title: control
        ? `Remediate ${code}`
        : rng.pick(['Provide updated SOC 2 report', 'Sign revised DPA', 'Share pentest results']),
      description: control
        ? `Close the gap on "${title}" and upload evidence.`
        : 'Requested by the risk team during review.',
      status: itemStatus,
      due_date: date(due),
      completed_at: itemStatus === 'completed' ? iso(at) : null,
      control_code: code,
      control_title: title,
      history,
    });
  }
}

/** An alert about a supplier, or an organizational one when `supplier` is null. */
export function buildAlert(u: Unit, supplier: SupplierInfo | null) {
  const { rng } = u;
  const [index, id] = u.next('alerts');
  const created = supplier ? rng.time(supplier.created, u.ctx.now) : u.recent();
  const title = rng.pick(supplier ? SUPPLIER_ALERT_TITLES : ORG_ALERT_TITLES);
  const resolved = rng.chance(0.4) ? u.after(created, 20 * DAY) : null;
  const scope: (typeof AlertScope)[number] = supplier ? 'supplier' : 'org';
  u.emit('alerts', created, resolved ?? created, {
    id,
    scope,
    supplier_id: supplier?.id ?? null,
    severity: pickWeighted(rng, alertWeights.severity, index),
    title: supplier ? `${supplier.name}: ${title}` : title,
    body: supplier
      ? `${title} for ${supplier.domain}. Review the supplier record and update the assessment if needed.`
      : `${title}. Raised automatically from workspace monitoring.`,
    resolved_at: resolved === null ? null : iso(resolved),
  });
}
