// Tenants whose data overlap (risk-data-api.md "What the service does" 3, "Authentication" 7): every tenant
// gets the same records — same supplier domains, asset external ids, risk codes, CVE ids, control codes,
// tags — except for their ids and a marker of the tenant in every free-text field, so a row of one tenant
// seen by another shows up by id or by marker. A clone tenant gets the very same ids as its source, to catch
// SQL that joins on id without the workspace.
//
// Coverage is declared here, in two tables the tests hold complete:
// - TWIN_RECORDS: one record factory per Import collection (test/cross-cutting/tenancy.test.ts fails on a collection
//   without one); data that is not imported is made by TWIN_SETUP through the management API.
// - ROUTE_COVERAGE: one entry per public route (test/cross-cutting/tenancy.test.ts fails on a route without one).
// Covering a new route: add its entry (`{}` for a list; `pathIds` for a path id; `body` for a write) and make
// sure each tenant has rows it shows (a list that shows a tenant nothing fails as vacuous). Rows made by
// TWIN_SETUP with identical content in every tenant are enough: the ids the server gives them are collected
// after setup (Tenant.allIds); record them in `tenant.made` under a name to have them tried in paths and id
// filters (and named by `pathIds`).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Harness, TestWorkspace } from './harness.js';

/** Lets a factory name the tenant's records and mark its text. */
export interface TwinContext {
  /** Id of record `index` of `collection` in this tenant. */
  id(collection: string, index?: number): string;
  /** Free text carrying the tenant's marker. */
  text(label: string): string;
  /** The marker that only personal fields carry (risk-data-api.md "Authentication" 6). */
  pii: string;
  /** The marker that only evidence entries carry (scope evidence:read). */
  evidence: string;
  userId: string;
}

const day = 86_400_000;
// Computed once, so every tenant holds the same instants: recent enough for the default windows of
// /risk-scores (90 days) and for letters in force now.
const loadedAt = Date.now();
const daysAgo = (days: number) => new Date(loadedAt - days * day).toISOString();

/** Creation instants of the twins' records: fixed, so every tenant lists them in the same order. */
const created = (n: number) => `2025-01-${String(n).padStart(2, '0')}T00:00:00Z`;

/** Values shared by every tenant: what a query by value (not by id) would mix up. */
export const SHARED = {
  domains: ['acme.example', 'globex.example'],
  arn: 'arn:aws:ec2:eu-west-1:123456789012:instance/i-0abc',
  cmdb: 'CMDB-0001',
  riskCodes: ['R-001', 'R-002'],
  cve: 'CVE-2024-3094',
  controls: ['A.5.1', 'A.8.2'],
  areaId: '7d7c1f0e-2b1a-4c55-9d8e-0a6b3c2d1e0f',
} as const;

const SHA = 'ab'.repeat(32);

export const TWIN_RECORDS: Record<string, (t: TwinContext) => Record<string, unknown>[]> = {
  suppliers: (t) => [
    {
      id: t.id('suppliers', 0),
      name: t.text('Acme'),
      domain: SHARED.domains[0],
      industry: t.text('industry'),
      size: 'large',
      country: 'FR',
      status: 'active',
      criticality: 'high',
      risk_group: 'G1',
      vendor_profile: 'P2',
      tags: ['cloud', 'payments'],
      annual_spend: 125000.5,
      email: `risk.${t.pii}@acme.example`,
      contacts: [{ name: `Ann ${t.pii}`, email: `ann.${t.pii}@acme.example` }],
      onboarding_data: { notes: t.pii },
      created_at: '2025-01-02T00:00:00Z',
    },
    {
      id: t.id('suppliers', 1),
      name: t.text('Globex'),
      domain: SHARED.domains[1],
      status: 'pending',
      tags: ['cloud'],
      email: `sec.${t.pii}@globex.example`,
      created_at: '2025-01-01T00:00:00Z',
    },
  ],
  assessments: (t) => [
    {
      id: t.id('assessments', 0),
      supplier_id: t.id('suppliers', 0),
      assessment_type: 'supplier',
      status: 'completed',
      decision: 'approved',
      vendor_profile: 'P2',
      score: 82.5,
      validity_days: 365,
      sent_at: '2025-01-05T00:00:00Z',
      completed_at: '2025-01-20T00:00:00Z',
      contract_value: 50000,
      created_at: '2025-01-04T00:00:00Z',
    },
    {
      id: t.id('assessments', 1),
      supplier_id: t.id('suppliers', 1),
      assessment_type: 'self',
      created_at: '2025-01-03T00:00:00Z',
    },
  ],
  gaps: (t) =>
    SHARED.controls.map((code, index) => ({
      id: t.id('gaps', index),
      created_at: created(index + 5),
      assessment_id: t.id('assessments', 0),
      control_code: code,
      control_title: t.text(`control ${code}`),
      gap_description: t.text('gap'),
      domain: 'cyber',
      status: 'partially_met',
      severity: index === 0 ? 'high' : 'low',
      evidence_status: 'provided',
      evidence: [
        {
          file_name: `policy-${t.evidence}.pdf`,
          mime_type: 'application/pdf',
          sha256: SHA,
          review_status: 'accepted',
          score: 90,
        },
      ],
    })),
  reports: (t) => [
    {
      id: t.id('reports', 0),
      created_at: created(5),
      supplier_id: t.id('suppliers', 0),
      assessment_id: t.id('assessments', 0),
      title: t.text('Report'),
      report_type: 'assessment',
      narrative: t.text('narrative'),
      generated_at: '2025-01-21T00:00:00Z',
    },
    {
      id: t.id('reports', 1),
      created_at: created(6),
      supplier_id: t.id('suppliers', 1),
      title: t.text('Summary'),
      report_type: 'executive_summary',
      generated_at: '2025-01-22T00:00:00Z',
    },
  ],
  assets: (t) => [
    {
      id: t.id('assets', 0),
      created_at: created(5),
      external_id: SHARED.arn,
      name: t.text('web server'),
      asset_type: 'infrastructure',
      technical_criticality: 'high',
      exposure: 'exposed',
      region: 'eu-west-1',
      cloud_metadata: { note: t.text('metadata') },
      source: 'cloud',
      cloud_provider: 'aws',
      review_status: 'confirmed',
    },
    {
      id: t.id('assets', 1),
      created_at: created(6),
      external_id: SHARED.cmdb,
      name: t.text('laptop'),
      asset_type: 'device',
      source: 'manual',
    },
  ],
  business_processes: (t) => [
    {
      id: t.id('business_processes', 0),
      created_at: created(5),
      name: t.text('Payroll'),
      description: t.text('process'),
      area_id: SHARED.areaId,
      area_name: t.text('area'),
      criticality: 'critical',
    },
    {
      id: t.id('business_processes', 1),
      created_at: created(6),
      name: t.text('Billing'),
      criticality: 'low',
    },
  ],
  products_services: (t) => [
    {
      id: t.id('products_services', 0),
      created_at: created(5),
      name: t.text('Checkout'),
      type: 'product',
      description: t.text('product'),
      criticality: 'high',
      annual_revenue: 1000000,
    },
    { id: t.id('products_services', 1), created_at: created(6), name: t.text('Support'), type: 'service' },
  ],
  processing_activities: (t) => [
    {
      id: t.id('processing_activities', 0),
      created_at: created(5),
      name: t.text('Customer support'),
      purpose: t.text('purpose'),
      legal_basis: 'contract',
      data_categories: ['contact', 'financial'],
      is_sensitive_data: true,
      retention_period: '5 years',
      owner_name: `Owner ${t.pii}`,
    },
    {
      id: t.id('processing_activities', 1),
      created_at: created(6),
      name: t.text('Newsletter'),
      legal_basis: 'consent',
      data_categories: ['contact'],
    },
  ],
  bia: (t) => [
    {
      id: t.id('bia', 0),
      created_at: created(5),
      product_service_id: t.id('products_services', 0),
      rto_hours: 4,
      rpo_hours: 1,
      mtpd_hours: 24,
      financial_impact_per_day: 25000,
      resulting_criticality: 'high',
    },
    {
      id: t.id('bia', 1),
      created_at: created(6),
      product_service_id: t.id('products_services', 1),
      resulting_criticality: 'low',
    },
  ],
  threats: (t) => [
    {
      id: t.id('threats', 0),
      created_at: created(5),
      title: t.text('XZ backdoor'),
      description: t.text('threat'),
      severity: 'critical',
      status: 'open',
      source: 'external_feed',
      cve_id: SHARED.cve,
      mitre_technique_id: 'T1190',
      asset_id: t.id('assets', 0),
    },
    {
      id: t.id('threats', 1),
      created_at: created(6),
      title: t.text('Phishing'),
      severity: 'medium',
      status: 'mitigated',
    },
  ],
  risks: (t) => [
    {
      id: t.id('risks', 0),
      created_at: created(5),
      code: SHARED.riskCodes[0],
      title: t.text('Supplier breach'),
      description: t.text('risk'),
      risk_type: 'operational',
      status: 'open',
      category: 'technological',
      source_domain: 'cyber',
      supplier_id: t.id('suppliers', 0),
      asset_id: t.id('assets', 0),
      threat_id: t.id('threats', 0),
      likelihood: 4,
      impact: 5,
      financial_exposure: 250000,
    },
    {
      id: t.id('risks', 1),
      created_at: created(6),
      code: SHARED.riskCodes[1],
      title: t.text('Key person'),
      risk_type: 'organizational',
      status: 'treated',
      category: 'human',
      source_domain: 'vendor',
      likelihood: 2,
      impact: 3,
    },
  ],
  risk_treatments: (t) => [
    {
      id: t.id('risk_treatments', 0),
      created_at: created(5),
      risk_id: t.id('risks', 0),
      strategy: 'mitigate',
      description: t.text('treatment'),
      status: 'in_progress',
      cost: 12000,
      due_date: '2025-06-30',
    },
    {
      id: t.id('risk_treatments', 1),
      created_at: created(6),
      risk_id: t.id('risks', 0),
      strategy: 'transfer',
    },
  ],
  risk_score_points: () => [
    { at: daysAgo(20), score: 40 },
    { at: daysAgo(10), score: 55 },
  ],
  risk_acceptances: (t) => [
    {
      id: t.id('risk_acceptances', 0),
      created_at: created(5),
      risk_id: t.id('risks', 1),
      status: 'active',
      justification: t.text('acceptance'),
      accepted_exposure: 10000,
      valid_from: daysAgo(30),
      valid_until: daysAgo(-300),
    },
    {
      id: t.id('risk_acceptances', 1),
      created_at: created(6),
      risk_id: t.id('risks', 0),
      status: 'revoked',
      valid_from: '2024-01-01T00:00:00Z',
      valid_until: '2024-12-31T00:00:00Z',
    },
  ],
  action_plans: (t) => [
    {
      id: t.id('action_plans', 0),
      created_at: created(5),
      supplier_id: t.id('suppliers', 0),
      assessment_id: t.id('assessments', 0),
      title: t.text('Remediation'),
      status: 'open',
      due_date: '2025-12-31',
    },
    {
      id: t.id('action_plans', 1),
      created_at: created(6),
      supplier_id: t.id('suppliers', 1),
      title: t.text('Follow-up'),
    },
  ],
  action_plan_items: (t) => [
    {
      id: t.id('action_plan_items', 0),
      created_at: created(5),
      action_plan_id: t.id('action_plans', 0),
      title: t.text('Enable MFA'),
      description: t.text('item'),
      status: 'pending',
      due_date: '2025-02-01',
      control_code: SHARED.controls[0],
      control_title: t.text('control'),
      history: [
        {
          at: '2025-01-25T00:00:00Z',
          from_status: null,
          to_status: 'pending',
          note: t.text('note'),
          actor_id: t.userId,
        },
      ],
    },
    {
      id: t.id('action_plan_items', 1),
      created_at: created(6),
      action_plan_id: t.id('action_plans', 0),
      title: t.text('Rotate keys'),
      status: 'in_progress',
    },
  ],
  alerts: (t) => [
    {
      id: t.id('alerts', 0),
      created_at: created(5),
      scope: 'supplier',
      supplier_id: t.id('suppliers', 0),
      severity: 'high',
      title: t.text('Breach reported'),
      body: t.text('alert'),
    },
    {
      id: t.id('alerts', 1),
      created_at: created(6),
      scope: 'org',
      severity: 'low',
      title: t.text('Org'),
      body: t.text('org alert'),
    },
  ],
  insights: (t) => [
    {
      id: t.id('insights', 0),
      created_at: created(5),
      category: 'risk_trend',
      severity: 'medium',
      title: t.text('Trend'),
      body: t.text('insight'),
    },
    {
      id: t.id('insights', 1),
      created_at: created(6),
      category: 'scanner_health',
      severity: 'low',
      title: t.text('Scanner'),
      body: t.text('scanner insight'),
    },
  ],
  audit_logs: (t) => [
    {
      id: t.id('audit_logs', 0),
      created_at: created(5),
      // No occurred_at: an import appends after the trail's last entry, stamped as it is appended (P102).
      action: 'supplier.created',
      actor_type: 'user',
      actor_id: t.userId,
      target_type: 'supplier',
      target_id: t.id('suppliers', 0),
      metadata: { note: t.text('audit') },
    },
  ],
};

export interface Tenant {
  label: string;
  ws: TestWorkspace;
  marker: string;
  piiMarker: string;
  evidenceMarker: string;
  /** Ids of the TWIN_RECORDS records by collection (a clone has its source's). */
  ids: Map<string, string[]>;
  /** Ids the server gave to what TWIN_SETUP made, by kind (they differ in a clone). */
  made: Map<string, string[]>;
  /** Every id naming something of this tenant once it is made: records (also those the server made, such
   * as audit entries), workspace, user, key. */
  allIds: Set<string>;
  /** Names the tenant's records and marks its text, as its TWIN_RECORDS were written. */
  context: TwinContext;
  /** The Import document the tenant was made from. */
  document: Record<string, Record<string, unknown>[]>;
}

/**
 * Data made through the management API rather than imported (a rendered PDF, webhook endpoints, …), the
 * same in every tenant except the marker (`t.text`). Runs after the import, in order.
 */
export type TwinSetup = (h: Harness, tenant: Tenant, t: TwinContext) => Promise<void>;

export const TWIN_SETUP: TwinSetup[] = [
  // Two endpoints for report.ready, with the same URL in every tenant: the render below gives each a
  // delivery (pending: no dispatcher runs here), so both webhook lists have two rows.
  async (h, tenant, t) => {
    const ids: string[] = [];
    for (const name of ['primary', 'backup']) {
      const endpoint = await h.adminClient.createWebhookEndpoint({
        params: { id: tenant.ws.id },
        body: {
          url: `https://hooks.acme.example/tprm/${name}`,
          events: ['report.ready'],
          description: t.text(name),
        },
      });
      ids.push(endpoint.id);
    }
    tenant.made.set('webhook_endpoints', ids);
  },
  // Report 0 gets a PDF, so GET /reports/{id}/pdf has a 302 to give.
  async (h, tenant, t) => {
    await h.adminClient.renderReport({
      params: { id: t.id('reports', 0) },
      body: { workspace_id: tenant.ws.id },
    });
  },
  // Two webhook endpoints (the same URLs in every tenant), then an event: its two delivery attempts wait,
  // pending (no worker runs here), for GET /webhook-deliveries to show.
  async (h, tenant, t) => {
    for (const domain of SHARED.domains)
      await h.adminClient.createWebhookEndpoint({
        params: { id: tenant.ws.id },
        body: { url: `https://hooks.${domain}/tprm`, events: ['alert.created'], description: t.text('hook') },
      });
    await h.adminClient.createAlert({
      params: { id: tenant.ws.id },
      body: { scope: 'org', severity: 'low', title: t.text('webhook alert'), body: t.text('body') },
    });
  },
];

const hex = () => randomBytes(6).toString('hex');

/**
 * A tenant holding every TWIN_RECORDS collection. `cloneOf` gives it the ids of another tenant (records
 * only: its workspace, user and key are its own).
 */
export async function createTwin(h: Harness, label: string, cloneOf?: Tenant): Promise<Tenant> {
  const ws = await h.workspace({ name: `Tenant ${label}` });
  const marker = `mk${label}${hex()}`;
  const ids = new Map<string, string[]>();
  const allIds = new Set([ws.id, ws.userId, ws.keyId]);
  const context: TwinContext = {
    id(collection, index = 0) {
      const list = ids.get(collection) ?? [];
      ids.set(collection, list);
      list[index] ??= cloneOf?.ids.get(collection)?.[index] ?? randomUUID();
      allIds.add(list[index] as string);
      return list[index] as string;
    },
    text: (text) => `${text} ${marker}`,
    pii: `pii${label.toLowerCase()}${hex()}`,
    evidence: `ev${label.toLowerCase()}${hex()}`,
    userId: ws.userId,
  };
  const tenant: Tenant = {
    label,
    ws,
    marker,
    piiMarker: context.pii,
    evidenceMarker: context.evidence,
    ids,
    made: new Map(),
    allIds,
    context,
    document: Object.fromEntries(
      Object.entries(TWIN_RECORDS).map(([collection, records]) => [collection, records(context)]),
    ),
  };
  await h.import(ws.id, tenant.document);
  for (const setup of TWIN_SETUP) await setup(h, tenant, context);
  for (const id of await storedIds(h, ws.id)) allIds.add(id);
  return tenant;
}

/** The ids of every row of every tenant table that belongs to the workspace. */
async function storedIds(h: Harness, workspaceId: string): Promise<string[]> {
  const tables = await h.db.query<{ table_name: string }>(
    `select c.table_name from information_schema.columns c
       join information_schema.columns i
         on i.table_schema = c.table_schema and i.table_name = c.table_name and i.column_name = 'id'
      where c.column_name = 'workspace_id' and c.table_schema = current_schema()`,
  );
  const ids: string[] = [];
  for (const { table_name: table } of tables) {
    const rows = await h.db.query<{ id: string }>(
      `select id::text as id from ${table} where workspace_id = $1`,
      [workspaceId],
    );
    ids.push(...rows.map((row) => row.id));
  }
  return ids;
}

/** What a route needs besides the twin data. Every public route has an entry (`METHOD /url`). */
export interface RouteCoverage {
  /** Collection (or TWIN_SETUP kind) whose ids the path takes; own ids of it must get a status below 400. */
  pathIds?: string;
  /** The rows of a 200 body (default: `data` of a collection, else the resource): a list shows some. */
  rows?(json: { data: unknown[] }): unknown[];
  /** Write routes: a valid body for this tenant. Top-level uuid fields are then given every foreign id. */
  body?(t: TwinContext): Record<string, unknown>;
}

export const ROUTE_COVERAGE: Record<string, RouteCoverage> = {
  'GET /suppliers': {},
  'POST /suppliers': { body: (t) => ({ name: t.text('Created'), domain: SHARED.domains[0] }) },
  'GET /suppliers/:id': { pathIds: 'suppliers' },
  'GET /assessments': {},
  'POST /assessments': { body: (t) => ({ supplier_id: t.id('suppliers', 0), assessment_type: 'self' }) },
  'GET /assessments/:id': { pathIds: 'assessments' },
  'GET /assessments/:id/gaps': { pathIds: 'assessments' },
  'GET /reports': {},
  'GET /reports/:id': { pathIds: 'reports' },
  'GET /reports/:id/pdf': { pathIds: 'reports' },
  'GET /assets': {},
  'PUT /assets': {
    body: (t) => ({
      source: 'cloud',
      cloud_provider: 'aws',
      assets: [{ external_id: SHARED.arn, name: t.text('renamed'), asset_type: 'infrastructure' }],
    }),
  },
  'GET /business-processes': {},
  'GET /products-services': {},
  'GET /processing-activities': {},
  'GET /bia': {},
  'GET /threats': {},
  'GET /risks': {},
  'GET /risks/:id/treatments': { pathIds: 'risks' },
  'GET /risk-scores': { rows: (json) => (json.data[0] as { history: unknown[] }).history },
  'GET /risk-matrix': {},
  'GET /risk-acceptances': {},
  'GET /action-plans': {},
  'GET /action-plans/:id/items': { pathIds: 'action_plans' },
  'GET /action-plan-items/:id': { pathIds: 'action_plan_items' },
  'PATCH /action-plan-items/:id': {
    pathIds: 'action_plan_items',
    body: (t) => ({ status: 'completed', note: t.text('done') }),
  },
  'GET /alerts': {},
  'GET /alerts/:id': { pathIds: 'alerts' },
  'GET /insights': {},
  'GET /audit-logs': {},
  'GET /webhook-endpoints': {},
  'GET /webhook-deliveries': {},
  'GET /events': {},
};
