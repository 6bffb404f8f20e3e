// POST /admin/workspaces/{id}/alerts (management-api.md, contract in lifecycle.ts): the service raises an
// alert. One unit of work writes the alert, its `alert.created` event (decisions 23, 25) and the audit entry
// (decision 26).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { randomUUID } from 'node:crypto';
import { validationFailed } from '../../contract/errors.js';
import type { OperatorHandlers } from '../../http/operator.js';
import type { alertsLifecycle } from './lifecycle.js';
import { Alert, alertScopeProblem } from './schema.js';

export const alertsAdmin: OperatorHandlers<typeof alertsLifecycle> = {
  createAlert: async (ctx, { params, body: input }) => {
    const problem = alertScopeProblem(input.scope, input.supplier_id);
    if (problem) throw validationFailed({ supplier_id: problem });
    const supplierId = input.supplier_id ?? null;
    const id = randomUUID();
    return ctx.write(params.id, async ({ tenant, events, audit }) => {
      // A uuid in a body that does not exist in the workspace is a bad field (decision 3).
      if (supplierId !== null) {
        const found = await tenant.query('select 1 from suppliers where workspace_id = $ws and id = $1', [
          supplierId,
        ]);
        if (found.length === 0)
          throw validationFailed({ supplier_id: 'does not match a supplier of this workspace' });
      }
      const [row] = await tenant.query<{ j: string }>(
        `insert into alerts as t (workspace_id, id, scope, supplier_id, severity, title, body)
         values ($ws, $1, $2, $3, $4, $5, $6)
         returning ${Alert.json('t', { pii: false })} as j`,
        [id, input.scope, supplierId, input.severity, input.title, input.body],
      );
      // decision 25: data {alert_id, scope, supplier_id, severity}.
      await events('alert.created', {
        alert_id: id,
        scope: input.scope,
        supplier_id: supplierId,
        severity: input.severity,
      });
      await audit(
        'alert.created',
        { type: 'alert', id },
        { scope: input.scope, supplier_id: supplierId, severity: input.severity },
      );
      return row?.j;
    });
  },
};
