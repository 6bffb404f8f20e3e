import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  countSeedRecords,
  generateSeedBatches,
  generateSeedDocument,
  type ImportDocument,
  type SeedOptions,
} from '../../src/seed/index.js';

type Rec = Record<string, unknown>;
const now = new Date('2025-06-01T12:00:00Z');
const NOW = now.getTime();
const DAY = 86_400_000;
const opts = (suppliers: number, extra: Partial<SeedOptions> = {}): SeedOptions => ({
  size: { suppliers },
  seed: 42,
  now,
  ...extra,
});

// Enumerations of risk-data-api.md / resources.md, per collection and field.
const criticality = ['low', 'medium', 'high', 'critical'];
const severity4 = ['critical', 'high', 'medium', 'low'];
const ENUMS: Record<string, Record<string, string[]>> = {
  suppliers: {
    status: ['active', 'inactive', 'pending'],
    size: ['small', 'medium', 'large', 'enterprise'],
    criticality,
    risk_group: ['G1', 'G2', 'G3'],
    vendor_profile: ['P0', 'P1', 'P2', 'P3'],
    source: ['import', 'manual'],
  },
  assessments: {
    assessment_type: ['self', 'supplier'],
    status: ['draft', 'sent', 'in_progress', 'paused', 'completed', 'expired'],
    decision: ['approved', 'approved_with_caveats', 'rejected'],
    vendor_profile: ['P0', 'P1', 'P2', 'P3'],
  },
  gaps: {
    domain: ['cyber', 'privacy', 'governance', 'resilience'],
    status: ['partially_met', 'not_met'],
    severity: ['low', 'medium', 'high'],
    evidence_status: ['missing', 'submitted', 'accepted', 'rejected'],
  },
  reports: { report_type: ['assessment', 'executive_summary'] },
  assets: {
    asset_type: ['application', 'infrastructure', 'data', 'device', 'facility', 'third_party', 'other'],
    technical_criticality: criticality,
    exposure: ['internal', 'exposed'],
    source: ['manual', 'cloud'],
    cloud_provider: ['aws', 'gcp', 'azure', 'oci'],
    review_status: ['discovered', 'confirmed'],
  },
  business_processes: { criticality },
  products_services: { type: ['product', 'service'], criticality },
  processing_activities: {
    legal_basis: [
      'consent',
      'contract',
      'legal_obligation',
      'vital_interests',
      'public_task',
      'legitimate_interests',
    ],
  },
  bia: { resulting_criticality: criticality },
  threats: {
    severity: ['none', 'low', 'medium', 'high', 'critical'],
    status: ['open', 'mitigated', 'accepted'],
    source: ['manual', 'external_feed', 'derived'],
  },
  risks: {
    risk_type: ['organizational', 'operational'],
    status: ['open', 'treated', 'accepted', 'closed'],
    category: ['human', 'biological', 'technological', 'legal', 'brand'],
    source_domain: ['vendor', 'cyber', 'privacy', 'human'],
  },
  risk_treatments: {
    strategy: ['mitigate', 'transfer', 'avoid', 'accept'],
    status: ['planned', 'in_progress', 'done'],
  },
  risk_acceptances: { status: ['active', 'expired', 'revoked'] },
  action_plans: { status: ['open', 'in_progress', 'closed'] },
  action_plan_items: {
    status: ['pending', 'in_progress', 'completed', 'overdue', 'not_applicable', 'rejected'],
  },
  alerts: { scope: ['supplier', 'org'], severity: severity4 },
  insights: {
    category: [
      'risk_trend',
      'supplier_concentration',
      'compliance_gap',
      'scanner_health',
      'assessment_velocity',
      'other',
    ],
    severity: severity4,
  },
  audit_logs: { actor_type: ['user', 'api_key', 'system'] },
};

// Exact public field sets (resources.md), without computed fields.
const TS = 'id created_at updated_at';
const FIELDS: Record<string, string> = {
  suppliers: `${TS} name domain industry size country status is_active criticality risk_group vendor_profile tags source email contacts onboarding_data annual_spend`,
  assessments: `${TS} supplier_id assessment_type status decision vendor_profile score deadline validity_days sent_at completed_at contract_value`,
  gaps: `${TS} assessment_id control_code control_title gap_description domain status severity evidence_status evidence`,
  reports: `${TS} supplier_id assessment_id title report_type narrative generated_at`,
  assets: `${TS} external_id name asset_type technical_criticality exposure region cloud_metadata source cloud_provider review_status`,
  business_processes: `${TS} name description area_id area_name criticality`,
  products_services: `${TS} name type description criticality annual_revenue`,
  processing_activities: `${TS} name purpose legal_basis data_categories is_sensitive_data retention_period owner_name`,
  bia: `${TS} product_service_id rto_hours rpo_hours mtpd_hours financial_impact_per_day resulting_criticality`,
  threats: `${TS} title description severity status source cve_id mitre_technique_id asset_id`,
  risks: `${TS} code title description risk_type status category source_domain supplier_id likelihood impact financial_exposure`,
  risk_treatments: `${TS} risk_id strategy description status cost due_date`,
  risk_score_points: 'at score',
  risk_acceptances: `${TS} risk_id status justification accepted_exposure valid_from valid_until`,
  action_plans: `${TS} supplier_id assessment_id title status due_date`,
  action_plan_items: `${TS} action_plan_id title description status due_date completed_at control_code control_title history`,
  alerts: `${TS} scope supplier_id severity title body resolved_at`,
  insights: `${TS} category severity title body`,
  // No instants: the service stamps each entry as the import appends it (P102).
  audit_logs: 'id action actor_type actor_id target_type target_id request_id metadata',
};

const REFS: Record<string, Record<string, string>> = {
  assessments: { supplier_id: 'suppliers' },
  gaps: { assessment_id: 'assessments' },
  reports: { supplier_id: 'suppliers', assessment_id: 'assessments' },
  bia: { product_service_id: 'products_services' },
  threats: { asset_id: 'assets' },
  risks: { supplier_id: 'suppliers' },
  risk_treatments: { risk_id: 'risks' },
  risk_acceptances: { risk_id: 'risks' },
  action_plans: { supplier_id: 'suppliers', assessment_id: 'assessments' },
  action_plan_items: { action_plan_id: 'action_plans' },
  alerts: { supplier_id: 'suppliers' },
};
const AUDIT_TARGETS: Record<string, string> = {
  supplier: 'suppliers',
  assessment: 'assessments',
  asset: 'assets',
};

const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/;
const DATE = /^\d{4}-\d\d-\d\d$/;
const INSTANT_FIELDS = new Set([
  'created_at',
  'updated_at',
  'deadline',
  'sent_at',
  'completed_at',
  'generated_at',
  'valid_from',
  'valid_until',
  'resolved_at',
  'occurred_at',
  'at',
]);
const PAST_FIELDS = [
  'created_at',
  'updated_at',
  'sent_at',
  'completed_at',
  'generated_at',
  'resolved_at',
  'occurred_at',
];

const t = (v: unknown): number => Date.parse(v as string);
/** Compares two documents by their JSON text (a boolean assertion: a diff of megabytes helps nobody). */
const sameJson = (a: unknown, b: unknown, message: string) =>
  assert.ok(JSON.stringify(a) === JSON.stringify(b), message);
const count = (doc: ImportDocument): number => Object.values(doc).reduce((n, v) => n + v.length, 0);
const ctx = (coll: string, k: number, field?: string) => `${coll}[${k}]${field ? `.${field}` : ''}`;

/** Checks every record of a document against the public field sets, enumerations and consistency rules. */
function validate(doc: ImportDocument): void {
  for (const [coll, recs] of Object.entries(doc)) {
    const fields = FIELDS[coll];
    assert.ok(fields, `unknown collection ${coll}`);
    const expected = fields.split(' ').sort();
    recs.forEach((r, k) => {
      assert.deepEqual(Object.keys(r).sort(), expected, ctx(coll, k));
      for (const [f, v] of Object.entries(r)) {
        if (v === null) continue;
        if (INSTANT_FIELDS.has(f)) {
          assert.match(v as string, INSTANT, ctx(coll, k, f));
          assert.equal(
            new Date(t(v)).toISOString().slice(0, 19),
            (v as string).slice(0, 19),
            ctx(coll, k, f),
          );
        }
        if (f === 'id' || (f.endsWith('_id') && REFS[coll]?.[f]))
          assert.match(v as string, UUID4, ctx(coll, k, f));
        if (f === 'due_date') assert.match(v as string, DATE, ctx(coll, k, f));
      }
      for (const f of PAST_FIELDS)
        if (r[f] !== undefined && r[f] !== null)
          assert.ok(t(r[f]) <= NOW, `${ctx(coll, k, f)} in the future`);
      if (r.created_at) {
        assert.ok(t(r.created_at) >= NOW - 731 * DAY, `${ctx(coll, k)} older than two years`);
        if (r.updated_at)
          assert.ok(t(r.updated_at) >= t(r.created_at), `${ctx(coll, k)} updated before created`);
      }
      for (const [f, values] of Object.entries(ENUMS[coll] ?? {}))
        if (r[f] !== null) assert.ok(values.includes(r[f] as string), `${ctx(coll, k, f)}: ${String(r[f])}`);
      RULES[coll]?.(r, ctx(coll, k));
    });
  }
}

const isMoney = (v: unknown) => v === null || (typeof v === 'number' && v >= 0 && Number.isFinite(v));
const RULES: Record<string, (r: Rec, at: string) => void> = {
  suppliers: (r, at) => {
    assert.equal(r.is_active, r.status === 'active', at);
    assert.match(r.domain as string, /^[a-z0-9-]+(\.[a-z0-9-]+)+$/, at);
    assert.match(r.country as string, /^[A-Z]{2}$/, at);
    assert.ok(Array.isArray(r.tags) && r.tags.length <= 3, at);
    for (const c of r.contacts as Rec[]) assert.deepEqual(Object.keys(c).sort(), ['email', 'name'], at);
    assert.ok(isMoney(r.annual_spend), at);
    assert.equal(typeof r.onboarding_data, 'object', at);
  },
  assessments: (r, at) => {
    const done = r.completed_at !== null;
    assert.equal(r.decision !== null, r.status === 'completed', `${at} decision only when completed`);
    if (r.status === 'completed') assert.ok(done && r.score !== null, at);
    if (!['completed', 'expired'].includes(r.status as string)) assert.equal(r.completed_at, null, at);
    assert.equal(r.score !== null, done, at);
    if (r.score !== null) assert.ok((r.score as number) >= 0 && (r.score as number) <= 100, at);
    const validEnd = done ? t(r.completed_at) + (r.validity_days as number) * DAY : null;
    if (r.status === 'completed') assert.ok((validEnd as number) > NOW, `${at} completed but past validity`);
    if (r.status === 'expired' && done)
      assert.ok((validEnd as number) < NOW, `${at} expired within validity`);
    if (r.sent_at !== null) assert.ok(t(r.sent_at) >= t(r.created_at), at);
    if (done) assert.ok(r.sent_at !== null && t(r.completed_at) >= t(r.sent_at), at);
    assert.ok(Number.isInteger(r.validity_days) && (r.validity_days as number) > 0, at);
    assert.ok(isMoney(r.contract_value), at);
  },
  gaps: (r, at) => {
    const ev = r.evidence as Rec[];
    assert.equal(ev.length === 0, r.evidence_status === 'missing', at);
    for (const e of ev) {
      assert.deepEqual(
        Object.keys(e).sort(),
        ['file_name', 'mime_type', 'review_status', 'score', 'sha256'],
        at,
      );
      assert.match(e.sha256 as string, /^[0-9a-f]{64}$/, at);
    }
    assert.match(r.control_code as string, /^(ISO|NIST|CIS|GDPR)-/, at);
  },
  assets: (r, at) => assert.equal(r.cloud_provider === null, r.source === 'manual', at),
  bia: (r, at) => {
    assert.ok((r.rpo_hours as number) <= (r.rto_hours as number), at);
    assert.ok((r.rto_hours as number) <= (r.mtpd_hours as number), at);
  },
  processing_activities: (r, at) => {
    assert.ok(Array.isArray(r.data_categories) && r.data_categories.length > 0, at);
    assert.equal(typeof r.is_sensitive_data, 'boolean', at);
  },
  threats: (r, at) => {
    if (r.cve_id !== null) assert.match(r.cve_id as string, /^CVE-\d{4}-\d{4,}$/, at);
    if (r.mitre_technique_id !== null) assert.match(r.mitre_technique_id as string, /^T\d{4}(\.\d{3})?$/, at);
  },
  risks: (r, at) => {
    assert.match(r.code as string, /^R-\d{4,}$/, at);
    for (const f of ['likelihood', 'impact'])
      assert.ok(Number.isInteger(r[f]) && (r[f] as number) >= 1 && (r[f] as number) <= 5, `${at}.${f}`);
    assert.ok(isMoney(r.financial_exposure), at);
  },
  risk_score_points: (r, at) => assert.ok((r.score as number) >= 0 && (r.score as number) <= 100, at),
  risk_acceptances: (r, at) => {
    assert.ok(t(r.valid_until) > t(r.valid_from), at);
    if (r.status === 'expired') assert.ok(t(r.valid_until) <= NOW, at);
    if (r.status === 'active') assert.ok(t(r.valid_from) <= NOW && NOW < t(r.valid_until), at);
  },
  action_plan_items: (r, at) => {
    assert.equal(r.completed_at !== null, r.status === 'completed', at);
    assert.equal(r.control_code === null, r.control_title === null, at);
    const statuses = ENUMS.action_plan_items?.status ?? [];
    let last = 0;
    for (const h of r.history as Rec[]) {
      assert.deepEqual(Object.keys(h).sort(), ['actor_id', 'at', 'from_status', 'note', 'to_status'], at);
      assert.ok(statuses.includes(h.from_status as string) && statuses.includes(h.to_status as string), at);
      assert.ok(t(h.at) >= last, `${at} history not oldest first`);
      last = t(h.at);
    }
    if (r.status === 'overdue') assert.ok((r.due_date as string) < now.toISOString().slice(0, 10), at);
  },
  alerts: (r, at) => assert.equal(r.supplier_id === null, r.scope === 'org', at),
  audit_logs: (r, at) => {
    if (r.actor_id !== null) assert.match(r.actor_id as string, UUID4, at);
    assert.equal(typeof r.metadata, 'object', at);
  },
};

const merged = (batches: Iterable<ImportDocument>): ImportDocument => {
  const all: ImportDocument = {};
  for (const b of batches) for (const [c, recs] of Object.entries(b)) all[c] = [...(all[c] ?? []), ...recs];
  return all;
};

describe('seed data', () => {
  it('is deterministic for the same seed and differs between seeds', () => {
    const a = generateSeedDocument(opts(40));
    sameJson(generateSeedDocument(opts(40)), a, 'two runs with one seed differ');
    const b = generateSeedDocument(opts(40, { seed: 43 }));
    assert.ok(JSON.stringify(b) !== JSON.stringify(a), 'two seeds give the same data');
    const ids = new Set(a.suppliers?.map((s) => s.id));
    assert.ok(!b.suppliers?.some((s) => ids.has(s.id)), 'supplier ids shared between seeds');
    assert.notDeepEqual(
      b.suppliers?.map((s) => s.name),
      a.suppliers?.map((s) => s.name),
    );
  });

  it('yields the same records whatever the batch size', () => {
    const whole = generateSeedDocument(opts(60));
    sameJson(merged(generateSeedBatches(opts(60, { batchSize: 37 }))), whole, 'batching changed the data');
    assert.equal(countSeedRecords(opts(60)), count(whole));
  });

  it('keeps batches small and references within the same or earlier batches', () => {
    const seen = new Map<string, Set<string>>();
    let batches = 0;
    for (const batch of generateSeedBatches(opts(300, { batchSize: 250 }))) {
      batches++;
      assert.ok(count(batch) <= 250 && count(batch) > 0);
      for (const [coll, recs] of Object.entries(batch)) {
        const ids = seen.get(coll) ?? new Set<string>();
        for (const r of recs) if (r.id) ids.add(r.id as string);
        seen.set(coll, ids);
      }
      const has = (coll: string, id: unknown) => seen.get(coll)?.has(id as string) ?? false;
      for (const [coll, recs] of Object.entries(batch))
        recs.forEach((r, k) => {
          for (const [f, target] of Object.entries(REFS[coll] ?? {}))
            if (r[f] !== null)
              assert.ok(has(target, r[f]), `${ctx(coll, k, f)} does not resolve (batch ${batches})`);
          if (coll === 'audit_logs' && AUDIT_TARGETS[r.target_type as string])
            assert.ok(
              has(AUDIT_TARGETS[r.target_type as string] as string, r.target_id),
              ctx(coll, k, 'target_id'),
            );
        });
    }
    assert.ok(batches > 10);
  });

  it('produces valid records with unique keys', () => {
    const doc = generateSeedDocument(opts(400));
    validate(doc);
    const unique = (coll: string, key: (r: Rec) => string) => {
      const keys = (doc[coll] ?? []).map(key);
      assert.equal(new Set(keys).size, keys.length, `duplicate key in ${coll}`);
    };
    for (const coll of Object.keys(doc))
      if (coll !== 'risk_score_points') unique(coll, (r) => r.id as string);
    unique('suppliers', (r) => (r.domain as string).toLowerCase());
    unique('assets', (r) => `${r.source}|${r.cloud_provider}|${r.external_id}`);
    unique('risks', (r) => r.code as string);
    unique('gaps', (r) => `${r.assessment_id}|${r.control_code}`);
    // children agree with their parents
    const byId = (coll: string) => new Map((doc[coll] ?? []).map((r) => [r.id, r]));
    const assessments = byId('assessments');
    for (const coll of ['reports', 'action_plans'])
      for (const r of doc[coll] ?? [])
        if (r.assessment_id !== null)
          assert.equal(assessments.get(r.assessment_id)?.supplier_id, r.supplier_id);
    for (const g of doc.gaps ?? []) assert.notEqual(assessments.get(g.assessment_id)?.completed_at, null);
    const points = (doc.risk_score_points ?? []).map((p) => t(p.at));
    assert.ok(points.length >= 50 && points.every((p, k) => k === 0 || p > (points[k - 1] as number)));
    assert.ok(
      doc.suppliers?.some((s) => /[^ -~]/.test(s.name as string)),
      'no non-ASCII supplier name',
    );
  });

  it('shows every enumeration value at 50 suppliers', () => {
    for (const seed of [1, 42, 2024]) {
      const doc = generateSeedDocument(opts(50, { seed }));
      validate(doc);
      for (const [coll, fields] of Object.entries(ENUMS))
        for (const [f, values] of Object.entries(fields)) {
          const seen = new Set((doc[coll] ?? []).map((r) => r[f]));
          for (const v of values) assert.ok(seen.has(v), `seed ${seed}: ${coll}.${f} never ${v}`);
        }
      const cats = new Set(doc.processing_activities?.flatMap((p) => p.data_categories as string[]));
      for (const c of ['contact', 'financial', 'health', 'location']) assert.ok(cats.has(c), c);
    }
  });

  it('defaults now to the current day, deterministically', () => {
    const a = generateSeedDocument({ size: { suppliers: 3 }, seed: 9 });
    sameJson(generateSeedDocument({ size: { suppliers: 3 }, seed: 9 }), a, 'default now is not stable');
    assert.deepEqual(generateSeedDocument(opts(0)), {});
    assert.throws(() => generateSeedDocument(opts(-1)), RangeError);
    assert.throws(() => [...generateSeedBatches(opts(1, { batchSize: 0 }))], RangeError);
  });

  it('streams 100,000 suppliers in batches with modest memory', () => {
    const options = opts(100_000, { seed: 7 });
    const started = Date.now();
    const expected = countSeedRecords(options);
    let total = 0;
    let peak = 0;
    let batches = 0;
    for (const batch of generateSeedBatches(options)) {
      const n = count(batch);
      assert.ok(n <= 2000);
      total += n;
      if (++batches % 100 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    assert.equal(total, expected);
    assert.ok(total > 1_000_000, `only ${total} records`);
    assert.ok(peak < 400 * 1024 * 1024, `heap reached ${Math.round(peak / 1048576)} MiB`);
    assert.ok(Date.now() - started < 120_000, 'too slow');
  });
});
