// Deterministic demo data for one workspace, as Import documents (management-api.md, "Import document").
//
// The data set is a stream of "units", one per supplier: the supplier and everything hanging off it
// (assessments, gaps, reports, action plans, alerts, risks, audit entries) plus a share of the
// workspace-wide collections (assets, threats, context, insights, org alerts). Records are emitted in
// dependency order and cut into batches of at most `batchSize` records, so every reference points into the
// same or an earlier batch and each batch can be imported as its own transaction.
//
// Determinism: each unit draws from its own PRNG (sfc32) seeded from (seed, unit index), and every id is a
// uuid v4 hashed from (seed, collection, index in the collection). Because that hash is a bijection of the
// index, ids are unique within a collection by construction, and any earlier record's id can be recomputed
// without keeping it in memory. A unit's shape (how many children of each kind) comes from a separate
// "plan" stream, so `countSeedRecords` walks the plans only.
//
// Modules: random (hashing, PRNG, stream salts), vocabulary (word lists), weights (how often each value of
// an enumeration occurs), format (dates, text), unit (ids and the record collector), plan (a unit's shape),
// and one builder per area: suppliers (with assessments, gaps, reports), action-plans (with alerts), risks,
// shared (the workspace-wide collections); setup makes the records the data set refers to but an import cannot
// write (the workspace, its users, API keys and webhook endpoint), for the OpenAPI examples.
import { buildAlert } from './action-plans.js';
import { DAY } from './format.js';
import { type PlanState, planUnit, type UnitPlan } from './plan.js';
import { BUILD_STREAM_SALT, finalizeHash, mixWord, NAME_OFFSET_SALT, Rng } from './random.js';
import { buildRisk } from './risks.js';
import { buildSetup } from './setup.js';
import { buildShared } from './shared.js';
import { buildAssessment, buildSummaryReport, buildSupplier } from './suppliers.js';
import { type SeedContext, type SeedRecord, Unit } from './unit.js';
import { NAME_PAIRS } from './vocabulary.js';

/** Everything scales from the number of suppliers: ~1.5 assessments and ~0.5 risks per supplier, ~5-20 gaps
 * per completed assessment, 2 assets per supplier (at most 100,000), threats, context and insights capped. */
export interface SeedSize {
  suppliers: number;
}
export interface SeedOptions {
  size: SeedSize;
  /** 32-bit integer; default 1. */
  seed?: number;
  /** Maximum records per yielded document; default 2000. */
  batchSize?: number;
  /** The instant the data is "as of"; default the start of the current UTC day. */
  now?: Date;
}
export type ImportDocument = Record<string, Record<string, unknown>[]>;

function context(options: SeedOptions): SeedContext {
  const suppliers = options.size.suppliers;
  if (!Number.isInteger(suppliers) || suppliers < 0)
    throw new RangeError('size.suppliers must be an integer >= 0');
  const seed = (options.seed ?? 1) | 0;
  const now = options.now ? options.now.getTime() : Math.floor(Date.now() / DAY) * DAY;
  if (!Number.isFinite(now)) throw new RangeError('now must be a valid date');
  return { seed, now, suppliers, pairOffset: finalizeHash(mixWord(seed, NAME_OFFSET_SALT)) % NAME_PAIRS };
}

function* plans(ctx: SeedContext): Generator<UnitPlan> {
  const st: PlanState = { assessments: 0, risks: 0 };
  for (let i = 0; i < ctx.suppliers; i++) yield planUnit(ctx, st, i);
}

function buildUnit(ctx: SeedContext, counters: Map<string, number>, p: UnitPlan): [string, SeedRecord][] {
  const u = new Unit(ctx, counters, new Rng(ctx.seed, BUILD_STREAM_SALT, p.i));
  const s = buildSupplier(u, p.i);
  for (const a of p.assessments) buildAssessment(u, s, a);
  if (p.summary) buildSummaryReport(u, s);
  for (let k = 0; k < p.alerts; k++) buildAlert(u, s);
  for (const r of p.risks) buildRisk(u, r, s);
  buildShared(u, p);
  return u.out;
}

/** Import documents of at most `batchSize` records each (default 2000), in dependency order: a record only
 * refers to records of the same or an earlier batch. */
export function* generateSeedBatches(options: SeedOptions): Generator<ImportDocument> {
  const ctx = context(options);
  const batchSize = options.batchSize ?? 2000;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError('batchSize must be a positive integer');
  const counters = new Map<string, number>();
  let doc: ImportDocument = {};
  let n = 0;
  for (const plan of plans(ctx)) {
    for (const [coll, rec] of buildUnit(ctx, counters, plan)) {
      let arr = doc[coll];
      if (!arr) {
        arr = [];
        doc[coll] = arr;
      }
      arr.push(rec);
      if (++n === batchSize) {
        yield doc;
        doc = {};
        n = 0;
      }
    }
  }
  if (n > 0) yield doc;
}

/** The whole data set as one document (for small sizes). */
export function generateSeedDocument(options: SeedOptions): ImportDocument {
  const all: ImportDocument = {};
  for (const batch of generateSeedBatches({ ...options, batchSize: Number.MAX_SAFE_INTEGER })) {
    for (const [coll, recs] of Object.entries(batch)) {
      const arr = all[coll] ?? [];
      for (const r of recs) arr.push(r);
      all[coll] = arr;
    }
  }
  return all;
}

/** The set-up the data set refers to but an import cannot write (the workspace, its users, API keys, webhook
 * endpoint and a delivery), by table, with the same ids and instants as the data set of `options`. */
export function generateSeedSetup(options: SeedOptions): ImportDocument {
  return buildSetup(context(options));
}

/** Total number of records `generateSeedBatches` yields, computed from the plans only. */
export function countSeedRecords(options: SeedOptions): number {
  let total = 0;
  for (const plan of plans(context(options))) total += plan.total;
  return total;
}
