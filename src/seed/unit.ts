// A "unit" is one supplier with everything hanging off it, plus its share of the workspace-wide collections.
// This module holds what every builder of a unit uses: the options resolved into a context, record ids,
// and the Unit that numbers, stamps and collects the records.
import type { AuditActorType } from '../resources/audit-logs/schema.js';
import type { VendorProfile } from '../schema/fields.js';
import type { AuditAction } from '../storage/audit.js';
import { DAY, iso } from './format.js';
import { finalizeHash, hex32, mixWord, type Rng } from './random.js';
import { FIRST_NAMES, LAST_NAMES } from './vocabulary.js';

export type SeedRecord = Record<string, unknown>;

/** The options of one generation, resolved. */
export interface SeedContext {
  seed: number;
  /** Epoch milliseconds the data is "as of". */
  now: number;
  suppliers: number;
  /** Where the walk through the supplier name combinations starts (see buildSupplier). */
  pairOffset: number;
}

/** What the records hanging off a supplier need to know of it. */
export interface SupplierInfo {
  id: string;
  name: string;
  domain: string;
  profile: (typeof VendorProfile)[number];
  created: number;
}

/** Collections whose ids the seed computes; the position is hashed into the ids, so entries are only ever
 * appended. The last eight are referenced by the seed records but not imported: the set-up (setup.ts). */
const COLLECTIONS = [
  'suppliers',
  'assessments',
  'gaps',
  'reports',
  'assets',
  'business_processes',
  'products_services',
  'processing_activities',
  'bia',
  'threats',
  'risks',
  'risk_treatments',
  'risk_acceptances',
  'action_plans',
  'action_plan_items',
  'alerts',
  'insights',
  'audit_logs',
  'areas',
  'users',
  'api_keys',
  'webhook_endpoints',
  'subscriptions',
  'workspaces',
  'events',
  'webhook_deliveries',
  'sinks',
  'sink_deliveries',
] as const;
export type Collection = (typeof COLLECTIONS)[number];
/** Collections the seed writes: those with ids, and the risk score history (points have no id). */
type WrittenCollection = Collection | 'risk_score_points';
const COLLECTION_NUMBER = new Map(COLLECTIONS.map((name, n) => [name, n + 1]));

// uuid v4 layout: the version nibble (third group) is 4, the variant bits (fourth group) are 10.
const CLEAR_VERSION = 0xffff0fff;
const VERSION_4 = 0x4000;
const CLEAR_VARIANT = 0x3fffffff;
const VARIANT_RFC_4122 = 0x80000000;

/** uuid v4 for the index-th record of a collection; for a fixed (seed, collection) each word is a bijection
 * of `index`, so ids never repeat within a collection. */
export const recordId = (ctx: SeedContext, collection: Collection, index: number): string => {
  const base = mixWord(ctx.seed, COLLECTION_NUMBER.get(collection) ?? 0);
  const word = (j: number) => finalizeHash(mixWord(mixWord(base, j), index));
  const a = hex32(word(0));
  const b = hex32((word(1) & CLEAR_VERSION) | VERSION_4);
  const c = hex32((word(2) & CLEAR_VARIANT) | VARIANT_RFC_4122);
  return `${a}-${b.slice(0, 4)}-${b.slice(4)}-${c.slice(0, 4)}-${c.slice(4)}${hex32(word(3))}`;
};

/** How far back `recent()` reaches. */
const RECENT_SPAN_DAYS = 720;
/** Users of the workspace that act in the audit trail (setup.ts makes them; the first is the demo admin). */
export const WORKSPACE_USERS = 6;

export class Unit {
  readonly out: [WrittenCollection, SeedRecord][] = [];
  constructor(
    readonly ctx: SeedContext,
    readonly counters: Map<string, number>,
    readonly rng: Rng,
  ) {}
  /** Running counter (per collection, or a '#name' used to cover an enumeration early). */
  tick(key: string): number {
    const n = this.counters.get(key) ?? 0;
    this.counters.set(key, n + 1);
    return n;
  }
  /** Next index and id of a collection. */
  next(collection: Collection): [number, string] {
    const n = this.tick(collection);
    return [n, recordId(this.ctx, collection, n)];
  }
  /** Adds created_at/updated_at to a record that has an id (updated_at: null for append-only records). */
  emit(collection: WrittenCollection, created: number, updated: number | null, rec: SeedRecord): void {
    if (rec.id !== undefined) rec.created_at = iso(created);
    if (updated !== null) rec.updated_at = iso(Math.max(created, updated));
    this.out.push([collection, rec]);
  }
  person(): string {
    return `${this.rng.pick(FIRST_NAMES)} ${this.rng.pick(LAST_NAMES)}`;
  }
  /** A later instant in [from, now], biased towards `from`. */
  after(from: number, maxSpan = 30 * DAY): number {
    return Math.min(this.ctx.now, from + this.rng.next() ** 2 * maxSpan);
  }
  /** An instant of the last RECENT_SPAN_DAYS, biased towards now. */
  recent(): number {
    return this.ctx.now - this.rng.next() ** 1.5 * RECENT_SPAN_DAYS * DAY;
  }
}

/**
 * An audit log entry; `target` is [target_type, target_id]. It has no instants: an import appends entries to the
 * trail after its last one, never among them (docs/decisions.md P102), so the service stamps each as it appends
 * it, like its own. Dated entries would be refused in any workspace whose trail has begun.
 */
export function audit(
  u: Unit,
  action: AuditAction,
  actor: (typeof AuditActorType)[number],
  target: [string, string | null],
  meta: SeedRecord,
) {
  const [, id] = u.next('audit_logs');
  const actorId =
    actor === 'user'
      ? recordId(u.ctx, 'users', u.rng.int(0, WORKSPACE_USERS - 1))
      : actor === 'api_key'
        ? recordId(u.ctx, 'api_keys', 0)
        : null;
  u.out.push([
    'audit_logs',
    {
      id,
      action,
      actor_type: actor,
      actor_id: actorId,
      target_type: target[0],
      target_id: target[1],
      request_id: actor === 'system' ? null : `req_${u.rng.hex(3)}`,
      metadata: meta,
    },
  ]);
}
