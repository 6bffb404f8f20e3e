// POST /admin/assessments/{id}/status (management-api.md, contract in lifecycle.ts): the service's own
// assessment transitions. Entering `completed` emits `assessment.completed` once per assessment, ever
// (risk-data-api.md "States and transitions", "Events"; decision 25).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { validationFailed } from '../../contract/errors.js';
import type { OperatorHandlers } from '../../http/operator.js';
import type { AssessmentStatus as AssessmentStatuses } from '../../schema/fields.js';
import type { assessmentsLifecycle } from './lifecycle.js';
import { readAssessment } from './routes.js';

export const assessmentsAdmin: OperatorHandlers<typeof assessmentsLifecycle> = {
  setAssessmentStatus: async (ctx, { params, body: input }) => {
    const { id } = params;
    // A decision belongs to a completed assessment (resources.md "decision: set when completed").
    if (input.decision != null && input.status !== 'completed')
      throw validationFailed({ decision: 'may only be given with status completed' });
    const located = {
      table: 'assessments',
      id,
      what: 'assessment',
      workspaceId: input.workspace_id,
    } as const;
    return ctx.write(located, async ({ tenant, events, audit }) => {
      const [before] = await tenant.query<{
        status: (typeof AssessmentStatuses)[number];
        supplier_id: string;
      }>('select status, supplier_id from assessments where workspace_id = $ws and id = $1 for update', [id]);
      // Entering completed starts the validity (completed_at); re-saving completed keeps it, and keeps the
      // decision unless one is given. Expiry keeps the result; re-opening (draft, sent, in_progress,
      // paused) clears it, so a re-opened assessment shows no decision and no validity end.
      await tenant.query(
        `update assessments set
            status = $2::text,
            decision = case when $2::text = 'completed' then
                              case when $4::boolean then $3::text when status = 'completed' then decision end
                            when $2::text = 'expired' then decision end,
            completed_at = case when $2::text = 'completed' then
                                  case when status = 'completed' then completed_at else now() end
                                when $2::text = 'expired' then completed_at end,
            sent_at = case when $2::text = 'sent' then coalesce(sent_at, now()) else sent_at end,
            updated_at = now()
          where workspace_id = $ws and id = $1`,
        [id, input.status, input.decision ?? null, input.decision !== undefined],
      );
      // Once, ever: the marker is set by the first completion and never cleared.
      const [completed] = await tenant.query<{ supplier_id: string }>(
        `update assessments set completion_emitted_at = now()
          where workspace_id = $ws and id = $1 and status = 'completed' and completion_emitted_at is null
          returning supplier_id`,
        [id],
      );
      if (completed) {
        await events('assessment.completed', {
          assessment_id: id,
          supplier_id: completed.supplier_id,
          status: 'completed',
        });
      }
      // Opt-in (P177): an actual change of status; entering `completed` sends both events.
      if (before && before.status !== input.status) {
        await events('assessment.status_changed', {
          assessment_id: id,
          supplier_id: before.supplier_id,
          previous_status: before.status,
          status: input.status,
        });
      }
      await audit(
        input.status === 'completed' ? 'assessment.completed' : 'assessment.status_changed',
        { type: 'assessment', id },
        {
          from: before?.status,
          to: input.status,
          ...(input.decision !== undefined ? { decision: input.decision } : {}),
          event_emitted: Boolean(completed),
        },
      );
      return (await readAssessment(tenant, id)) ?? undefined;
    });
  },
};
