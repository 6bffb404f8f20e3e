// POST /admin/workspaces/{id}/alerts (management-api.md): the service raises an alert. One transaction writes
// the alert, its `alert.created` event (decisions 23, 25) and the audit entry (decision 26).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { notFound, validationFailed } from '../../contract/errors.js';
import { recordEvent } from '../../events/outbox.js';
import { adminRoute } from '../../management/route.js';
import { recordAudit } from '../../storage/audit.js';
import { Alert, AlertCreate, alertScopeProblem } from './schema.js';

export const alertsAdmin = {
  createAlert: adminRoute({
    method: 'POST',
    url: '/workspaces/:id/alerts',
    tag: 'Lifecycle',
    summary: 'Raise an alert in a workspace (emits alert.created)',
    status: 201,
    body: AlertCreate,
    response: Alert.schema,
    errors: [404, 422],
    handler: async ({ op }, { params, body: input }) => {
      const workspaceId = params.id;
      const problem = alertScopeProblem(input.scope, input.supplier_id);
      if (problem) throw validationFailed({ supplier_id: problem });
      const supplierId = input.supplier_id ?? null;
      const id = randomUUID();
      return op.db.transaction(async (tx) => {
        const [workspace] = await tx.query<{ supplier_ok: boolean }>(
          `select exists (select 1 from suppliers s where s.workspace_id = w.id and s.id = $2) as supplier_ok
             from workspaces w where w.id = $1`,
          [workspaceId, supplierId],
        );
        if (!workspace) throw notFound('workspace');
        // A uuid in a body that does not exist in the workspace is a bad field (decision 3).
        if (supplierId !== null && !workspace.supplier_ok)
          throw validationFailed({ supplier_id: 'does not match a supplier of this workspace' });
        const [row] = await tx.query<{ j: string }>(
          `insert into alerts as t (workspace_id, id, scope, supplier_id, severity, title, body)
           values ($1, $2, $3, $4, $5, $6, $7)
           returning ${Alert.json('t', { pii: false })} as j`,
          [workspaceId, id, input.scope, supplierId, input.severity, input.title, input.body],
        );
        // decision 25: data {alert_id, scope, supplier_id, severity}.
        await recordEvent(tx, workspaceId, 'alert.created', {
          alert_id: id,
          scope: input.scope,
          supplier_id: supplierId,
          severity: input.severity,
        });
        await recordAudit(tx, {
          workspaceId,
          action: 'alert.created',
          actorType: 'system',
          actorId: null,
          targetType: 'alert',
          targetId: id,
          requestId: op.requestId ?? null,
          metadata: { scope: input.scope, supplier_id: supplierId, severity: input.severity },
        });
        return row?.j;
      });
    },
  }),
};
