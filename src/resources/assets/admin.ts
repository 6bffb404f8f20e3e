// POST /admin/assets/{id}/confirm (management-api.md): the human review of the web application, which moves
// an asset from discovered to confirmed (risk-data-api.md "States and transitions").
import { notFound } from '../../contract/errors.js';
import { locateWorkspace } from '../../management/locate.js';
import type { Operator } from '../../management/operations.js';
import { adminRoute } from '../../management/route.js';
import { recordAudit } from '../../storage/audit.js';
import { Asset } from './schema.js';

const assetJson = Asset.json('t', { pii: true });

export async function confirmAsset(op: Operator, id: string): Promise<string> {
  return op.db.transaction(async (tx) => {
    const workspaceId = await locateWorkspace(tx, 'assets', id, 'asset');
    const [asset] = await tx.query<{ workspace_id: string; review_status: string }>(
      'select workspace_id, review_status from assets where workspace_id = $1 and id = $2 for update',
      [workspaceId, id],
    );
    if (!asset) throw notFound('asset');
    // Confirming a confirmed asset changes nothing and writes no audit entry.
    if (asset.review_status !== 'confirmed') {
      await tx.query(
        `update assets set review_status = 'confirmed', updated_at = now() where workspace_id = $1 and id = $2`,
        [asset.workspace_id, id],
      );
      await recordAudit(tx, {
        workspaceId: asset.workspace_id,
        action: 'asset.confirmed',
        actorType: 'system',
        actorId: null,
        targetType: 'asset',
        targetId: id,
        requestId: op.requestId ?? null,
      });
    }
    const [row] = await tx.query<{ j: string }>(
      `select ${assetJson} as j from assets t where t.workspace_id = $1 and t.id = $2`,
      [asset.workspace_id, id],
    );
    return row?.j ?? '';
  });
}

export const assetsAdmin = {
  confirmAsset: adminRoute({
    method: 'POST',
    url: '/assets/:id/confirm',
    tag: 'Lifecycle',
    summary: 'Confirm a discovered asset (review_status becomes confirmed)',
    status: 200,
    response: Asset.schema,
    errors: [404, 409],
    handler: ({ op }, { params }) => confirmAsset(op, params.id),
  }),
};
