// The records the OpenAPI examples show: those of a demo workspace, made by the seed generator
// (src/seed/), the same code that fills the demo workspace, so that an example reads like real data.
// Its data set gives the imported records (suppliers, risks …), its set-up the records an import cannot write
// (the workspace, its users, API keys, webhook endpoint and a delivery). A fixed seed and date keep the
// document reproducible (P88, P121).
import type { EventData, EventType } from '../contract/events.js';
import { resourceTables } from '../schema/resource.js';
import { generateSeedDocument, generateSeedSetup } from '../seed/index.js';
import { exampleUuid } from './examples.js';

/** The data set the examples come from (tests import it into a workspace to compare with real answers). */
export const EXAMPLE_SEED = { size: { suppliers: 4 }, seed: 2025, now: new Date('2025-06-02T00:00:00Z') };

type Sample = Record<string, unknown>;

/** Shapes of a resource under another name: one kind of its records (an alert of a supplier, of the
 * organization), or the resource with what only its creation or a rotation answers (its secret). */
const SHAPES: Record<string, { table: string; kind?: (record: Sample) => boolean }> = {
  SupplierAlert: { table: 'alerts', kind: (alert) => alert.scope === 'supplier' },
  OrgAlert: { table: 'alerts', kind: (alert) => alert.scope === 'org' },
  ApiKeyWithSecret: { table: 'api_keys' },
  WebhookEndpointWithSecret: { table: 'webhook_endpoints' },
  WebhookEndpointRotated: { table: 'webhook_endpoints' },
};

/** The payload of an event of the demo workspace; the alert's is the one its endpoint's delivery carried. */
function event<T extends EventType>(
  type: T,
  occurredAt: unknown,
  data: Record<keyof EventData<T>, unknown>,
): Sample {
  const delivered = records('webhook_deliveries').find((delivery) => delivery.event_type === type);
  return {
    event_id: delivered?.event_id ?? exampleUuid(`event ${type}`),
    type,
    occurred_at: occurredAt,
    organization_id: seedId('workspaces'),
    data,
  };
}

const first = (table: string, kind: (record: Sample) => boolean = () => true): Sample =>
  records(table).find(kind) ?? {};

/** Answers about the demo records rather than records: what the operations that return them say of the data
 * set (its import, its audit chain, a replay of the endpoint's delivery), and the events it gave rise to. */
const ANSWERS: Record<string, () => Sample> = {
  ImportDocument: () => ({ suppliers: records('suppliers').slice(0, 1) }),
  ImportResult: () => ({ created: { suppliers: 1 } }),
  AuditChainReport: () => ({
    workspace_id: seedId('workspaces'),
    valid: true,
    entries_checked: records('audit_logs').length,
    entries_total: records('audit_logs').length,
    first_broken: null,
    // The verdict on the whole trail: nothing left to continue.
    next_cursor: null,
  }),
  EndpointReplayResult: () => ({ replayed: records('webhook_deliveries').length }),
  AssessmentCompletedEvent: () => {
    const assessment = first('assessments', (record) => record.status === 'completed');
    return event('assessment.completed', assessment.completed_at, {
      assessment_id: assessment.id,
      supplier_id: assessment.supplier_id,
      status: 'completed',
    });
  },
  ReportReadyEvent: () => {
    const report = first('reports');
    return event('report.ready', report.created_at, {
      report_id: report.id,
      supplier_id: report.supplier_id,
      assessment_id: report.assessment_id,
    });
  },
  AlertCreatedEvent: () => {
    const alert = first('alerts');
    return event('alert.created', alert.created_at, {
      alert_id: alert.id,
      scope: alert.scope,
      supplier_id: alert.supplier_id,
      severity: alert.severity,
    });
  },
  // A change the item's history records (the service marks an item overdue when its due date passes).
  ActionPlanItemStatusChangedEvent: () => {
    const item = first('action_plan_items', (record) => (record.history as unknown[]).length > 0);
    const [change] = item.history as { at: string; from_status: string; to_status: string }[];
    return event('action_plan_item.status_changed', change?.at, {
      action_plan_item_id: item.id,
      action_plan_id: item.action_plan_id,
      previous_status: change?.from_status,
      status: change?.to_status,
    });
  },
  // The opt-in types (P177), from the same demo records.
  SupplierCreatedEvent: () => {
    const supplier = first('suppliers');
    return event('supplier.created', supplier.created_at, { supplier_id: supplier.id });
  },
  AssessmentCreatedEvent: () => {
    const assessment = first('assessments');
    return event('assessment.created', assessment.created_at, {
      assessment_id: assessment.id,
      supplier_id: assessment.supplier_id,
      assessment_type: assessment.assessment_type,
    });
  },
  AssessmentStatusChangedEvent: () => {
    const assessment = first('assessments', (record) => record.status === 'completed');
    return event('assessment.status_changed', assessment.completed_at, {
      assessment_id: assessment.id,
      supplier_id: assessment.supplier_id,
      previous_status: 'in_progress',
      status: 'completed',
    });
  },
  AssetsUpsertedEvent: () => {
    const asset = first('assets', (record) => record.source === 'cloud');
    return event('assets.upserted', asset.updated_at, {
      source: asset.source,
      cloud_provider: asset.cloud_provider,
      created: 12,
      updated: 3,
      skipped: 0,
    });
  },
  AssetConfirmedEvent: () => {
    const asset = first('assets', (record) => record.review_status === 'confirmed');
    return event('asset.confirmed', asset.updated_at, { asset_id: asset.id });
  },
  ActionPlanItemNoteAddedEvent: () => {
    const item = first('action_plan_items');
    return event('action_plan_item.note_added', item.updated_at, {
      action_plan_item_id: item.id,
      action_plan_id: item.action_plan_id,
      status: item.status,
    });
  },
};

let document: Record<string, Sample[]> | undefined;

/** The first demo record of the resource named `title` (a schema title such as `Supplier`), if any. */
export function seedSample(title: string): Sample | undefined {
  const table = resourceTables.get(title);
  if (table !== undefined) return records(table)[0];
  const shape = SHAPES[title];
  if (shape) return records(shape.table).find(shape.kind ?? (() => true));
  return ANSWERS[title]?.();
}

function records(table: string): Sample[] {
  document ??= { ...generateSeedSetup(EXAMPLE_SEED), ...generateSeedDocument(EXAMPLE_SEED) };
  return document[table] ?? [];
}

/** The id of the first demo record of `table`, if the table's records have ids. */
export function seedId(table: string): string | undefined {
  const id = records(table)[0]?.id;
  return typeof id === 'string' ? id : undefined;
}

/** The id a path parameter shows: the demo record's of the collection the path starts with (`/risks/:id` and
 * `/risks/:id/treatments` show a risk's, `/webhook-endpoints/:id` an endpoint's). */
export const pathSampleId = (url: string) => (): string => {
  const table = url.split('/').filter(Boolean)[0]?.replaceAll('-', '_') ?? '';
  const id = seedId(table);
  if (id === undefined) throw new Error(`the example data set has no record in ${table} for ${url}`);
  return id;
};

/** Names of the schemas a request writes a resource with: `SupplierCreate`, `AssetUpsertItem`. */
const WRITE_SHAPE = /^([A-Z]\w*?)(Create|UpsertItem)$/;

/**
 * The demo record a request body's object titled `title` shows: that of the resource it writes (its name
 * less `Create` or `UpsertItem`), else `otherwise` (the record the operation answers with). A body shows only
 * its required fields; an upsert's envelope (`AssetUpsert`) writes no resource and keeps its schema's values,
 * since a seed asset's `source` (cloud) would need its provider, an optional field the body leaves out.
 */
export function writeSample(title: string, otherwise?: string): Sample | undefined {
  const written = WRITE_SHAPE.exec(title)?.[1];
  return written !== undefined ? seedSample(written) : otherwise ? seedSample(otherwise) : undefined;
}
