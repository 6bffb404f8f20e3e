// POST /admin/reports/{id}/render (management-api.md, contract in lifecycle.ts): renders the report's PDF, stores it and emits
// `report.ready` (risk-data-api.md "Events"; decision 25 for the payload).
//
// PGlite has one session and a transaction holds it: the slow part (reading, rendering, writing the file)
// runs outside any transaction, then one short transaction marks the report ready and records the event and
// the audit entry together. A render that dies halfway leaves at most an orphan file, never a report marked
// ready without its PDF.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { invalidRequest, notFound } from '../../contract/errors.js';
import type { OperatorHandlers } from '../../http/operator.js';
import { isUuid } from '../../http/validation.js';
import { type ReportPdfInput, renderReportPdf } from '../../reports/pdf.js';
import type { ObjectStorage } from '../../reports/storage.js';
import type { OperatorStore } from '../../storage/operator.js';
import type { TenantDb } from '../../storage/tenant.js';
import type { reportsLifecycle } from './lifecycle.js';
import { readReport } from './routes.js';

/** Object key of a report's PDF. Private to the server: signed URLs carry it encrypted. */
export const reportPdfKey = (workspaceId: string, reportId: string) =>
  `workspaces/${workspaceId}/reports/${reportId}.pdf`;

/** The render action takes no body, or `{workspace_id}` when imported ids repeat across workspaces. */
function namedWorkspace(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw invalidRequest('The request body must be a JSON object.');
  const { workspace_id: workspaceId, ...rest } = body as Record<string, unknown>;
  const [unknown] = Object.keys(rest);
  if (unknown) throw invalidRequest(`Unknown body field: ${unknown}.`);
  if (workspaceId === undefined) return undefined;
  if (typeof workspaceId !== 'string' || !isUuid(workspaceId))
    throw invalidRequest('workspace_id must be a uuid.');
  return workspaceId;
}

/** Everything the PDF shows, read in one round trip; gaps in control-code byte order, as the API lists them. */
async function pdfInput(tenant: TenantDb, reportId: string): Promise<ReportPdfInput | null> {
  const [row] = await tenant.query<{ input: ReportPdfInput }>(
    `select json_build_object(
        'report', json_build_object('title', r.title, 'report_type', r.report_type,
                                    'generated_at', iso(r.generated_at), 'narrative', r.narrative),
        'supplier', json_build_object('name', s.name, 'domain', s.domain, 'country', s.country,
                                      'criticality', s.criticality),
        'assessment', case when a.id is null then null else json_build_object(
                        'assessment_type', a.assessment_type, 'status', a.status, 'decision', a.decision,
                        'score', a.score, 'completed_at', iso(a.completed_at)) end,
        'gaps', coalesce((select json_agg(json_build_object(
                            'control_code', g.control_code, 'control_title', g.control_title,
                            'severity', g.severity, 'status', g.status, 'evidence_status', g.evidence_status)
                          order by g.control_code collate "C", g.id)
                          from gaps g where g.workspace_id = a.workspace_id and g.assessment_id = a.id),
                         '[]'::json)) as input
       from reports r
       join suppliers s on s.workspace_id = r.workspace_id and s.id = r.supplier_id
       left join assessments a on a.workspace_id = r.workspace_id and a.id = r.assessment_id
      where r.workspace_id = $ws and r.id = $1`,
    [reportId],
  );
  return row?.input ?? null;
}

/**
 * Renders a report's PDF, stores it, and marks the report ready with its `report.ready` event and audit entry:
 * the render action, and the demo workspace's reports on a first start (P119). Answers the report's JSON;
 * a report not in the workspace is a 404.
 */
export async function renderReport(
  store: OperatorStore,
  objects: ObjectStorage,
  workspaceId: string,
  id: string,
): Promise<string | undefined> {
  const input = await pdfInput(await store.read(workspaceId), id);
  if (!input) throw notFound('report');
  const key = reportPdfKey(workspaceId, id);
  await objects.put(key, await renderReportPdf(input), 'application/pdf');

  return store.write(workspaceId, async ({ tenant, events, audit }) => {
    const [report] = await tenant.query<{ supplier_id: string; assessment_id: string | null }>(
      `update reports set pdf_object_key = $2, pdf_rendered_at = now(), updated_at = now()
      where workspace_id = $ws and id = $1 returning supplier_id, assessment_id`,
      [id, key],
    );
    if (!report) throw notFound('report');
    // Every render makes a (new) PDF available, so every render announces it.
    await events('report.ready', {
      report_id: id,
      supplier_id: report.supplier_id,
      assessment_id: report.assessment_id,
    });
    await audit('report.rendered', { type: 'report', id });
    return (await readReport(tenant, id)) ?? undefined;
  });
}

export const reportsAdmin: OperatorHandlers<typeof reportsLifecycle> = {
  renderReport: async (ctx, { params: { id }, body }) => {
    const workspaceId = await ctx.locate({
      table: 'reports',
      id,
      what: 'report',
      workspaceId: namedWorkspace(body),
    });
    return renderReport(ctx, ctx.objects, workspaceId, id);
  },
};
