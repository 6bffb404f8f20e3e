// Import collections of this area (management-api.md "Import document"), parents first:
// action_plans (supplier_id → suppliers, assessment_id → assessments; `item_count` is computed and
// ignored, decision 42), then action_plan_items (action_plan_id → action_plans).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { ImportCollection } from '../../storage/import-collection.js';
import { ActionPlan, ActionPlanItem } from './schema.js';

const INSTANT = /^(\d{4}-\d\d-\d\d)[Tt ](\d\d:\d\d:\d\d)(?:\.(\d+))?([Zz]|[+-]\d\d(?::?\d\d)?)$/;

/**
 * An RFC 3339 instant in the form every instant leaves the service in (`iso()` in SQL: UTC, microseconds),
 * e.g. `2024-05-01T11:30:00+02:00` → `2024-05-01T09:30:00.000000Z`. History entries live in a jsonb column,
 * so PostgreSQL does not format them on the way out: they are made canonical on the way in. Offsets are
 * whole minutes, so the fraction of a second carries over unchanged.
 */
export function canonicalInstant(value: string): string {
  const match = INSTANT.exec(value);
  if (!match) return value;
  const [, day, time, fraction = '', zone = 'Z'] = match;
  const offset =
    zone.toUpperCase() === 'Z'
      ? 'Z'
      : zone.length === 3
        ? `${zone}:00`
        : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const ms = Date.parse(`${day}T${time}${offset}`);
  if (Number.isNaN(ms)) return value;
  return `${new Date(ms).toISOString().slice(0, 19)}.${fraction.padEnd(6, '0').slice(0, 6)}Z`;
}

interface HistoryRecord {
  at: string;
  [key: string]: unknown;
}

/** Canonical instants, oldest first (resources.md "Action plan item": history oldest first; stable sort). */
function canonicalHistory(history: unknown): HistoryRecord[] {
  if (!Array.isArray(history)) return [];
  return (history as HistoryRecord[])
    .map((entry) => ({ ...entry, at: canonicalInstant(entry.at) }))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}

export const actionPlansImports: readonly ImportCollection[] = [
  {
    name: 'action_plans',
    resource: ActionPlan,
    refs: { supplier_id: 'suppliers', assessment_id: 'assessments' },
    defaults: { status: 'open' },
  },
  {
    name: 'action_plan_items',
    resource: ActionPlanItem,
    refs: { action_plan_id: 'action_plans' },
    defaults: { status: 'pending', history: [] },
    normalize(record) {
      record.history = canonicalHistory(record.history);
    },
  },
];
