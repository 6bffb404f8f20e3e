// POST /admin/assessments/{id}/status (management-api.md): the service's own assessment transitions.
// Entering `completed` emits `assessment.completed` once per assessment, ever (risk-data-api.md "States and
// transitions", "Events"; decision 25).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.

import { validationFailed } from '../../contract/errors.js';
import { recordEvent } from '../../events/outbox.js';
import { locateWorkspace } from '../../management/locate.js';
import { adminRoute } from '../../management/route.js';
import { recordAudit } from '../../storage/audit.js';
import { TenantDb } from '../../storage/tenant.js';
import { readAssessment } from './routes.js';
import { Assessment, AssessmentStatusChange } from './schema.js';

export const assessmentsAdmin = {
  setAssessmentStatus: adminRoute({
    method: 'POST',
    url: '/assessments/:id/status',
    tag: 'Lifecycle',
    summary: "Move an assessment to a status (the service's own transitions)",
    description: 'Entering `completed` emits `assessment.completed` once per assessment, ever.',
    status: 200,
    body: AssessmentStatusChange,
    response: Assessment.schema,
    errors: [404, 409, 422],
    handler: async ({ op }, { params, body: input }) => {
      const { id } = params;
      // A decision belongs to a completed assessment (resources.md "decision: set when completed").
      if (input.decision != null && input.status !== 'completed')
        throw validationFailed({ decision: 'may only be given with status completed' });
      return op.db.transaction(async (tx) => {
        const workspaceId = await locateWorkspace(tx, 'assessments', id, 'assessment', input.workspace_id);
        const [before] = await tx.query<{ status: string }>(
          'select status from assessments where workspace_id = $1 and id = $2 for update',
          [workspaceId, id],
        );
        // Entering completed starts the validity (completed_at); re-saving completed keeps it, and keeps the
        // decision unless one is given. Expiry keeps the result; re-opening (draft, sent, in_progress,
        // paused) clears it, so a re-opened assessment shows no decision and no validity end.
        await tx.query(
          `update assessments set
              status = $3::text,
              decision = case when $3::text = 'completed' then
                                case when $5::boolean then $4::text when status = 'completed' then decision end
                              when $3::text = 'expired' then decision end,
              completed_at = case when $3::text = 'completed' then
                                    case when status = 'completed' then completed_at else now() end
                                  when $3::text = 'expired' then completed_at end,
              sent_at = case when $3::text = 'sent' then coalesce(sent_at, now()) else sent_at end,
              updated_at = now()
            where workspace_id = $1 and id = $2`,
          [workspaceId, id, input.status, input.decision ?? null, input.decision !== undefined],
        );
        // Once, ever: the marker is set by the first completion and never cleared.
        const [completed] = await tx.query<{ supplier_id: string }>(
          `update assessments set completion_emitted_at = now()
            where workspace_id = $1 and id = $2 and status = 'completed' and completion_emitted_at is null
            returning supplier_id`,
          [workspaceId, id],
        );
        if (completed) {
          await recordEvent(tx, workspaceId, 'assessment.completed', {
            assessment_id: id,
            supplier_id: completed.supplier_id,
            status: 'completed',
          });
        }
        await recordAudit(tx, {
          workspaceId,
          action: input.status === 'completed' ? 'assessment.completed' : 'assessment.status_changed',
          actorType: 'system',
          actorId: null,
          targetType: 'assessment',
          targetId: id,
          requestId: op.requestId ?? null,
          metadata: {
            from: before?.status,
            to: input.status,
            ...(input.decision !== undefined ? { decision: input.decision } : {}),
            event_emitted: Boolean(completed),
          },
        });
        return (await readAssessment(TenantDb.forOperator(tx, workspaceId), id)) ?? undefined;
      });
    },
  }),
};
