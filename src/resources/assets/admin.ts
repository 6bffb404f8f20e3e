// POST /admin/assets/{id}/confirm (management-api.md, contract in lifecycle.ts): the human review of the web
// application, which moves an asset from discovered to confirmed (risk-data-api.md "States and transitions").
import { notFound } from '../../contract/errors.js';
import type { OperatorHandlers } from '../../http/operator.js';
import type { assetsLifecycle } from './lifecycle.js';
import { Asset } from './schema.js';

const assetJson = Asset.json('t', { pii: true });

export const assetsAdmin: OperatorHandlers<typeof assetsLifecycle> = {
  confirmAsset: (ctx, { params: { id } }) =>
    ctx.write({ table: 'assets', id, what: 'asset' }, async ({ tenant, audit, events }) => {
      const [asset] = await tenant.query<{ review_status: string }>(
        'select review_status from assets where workspace_id = $ws and id = $1 for update',
        [id],
      );
      if (!asset) throw notFound('asset');
      // Confirming a confirmed asset changes nothing and writes no audit entry.
      if (asset.review_status !== 'confirmed') {
        await tenant.query(
          `update assets set review_status = 'confirmed', updated_at = now() where workspace_id = $ws and id = $1`,
          [id],
        );
        await audit('asset.confirmed', { type: 'asset', id });
        // Opt-in (P177).
        await events('asset.confirmed', { asset_id: id });
      }
      const [row] = await tenant.query<{ j: string }>(
        `select ${assetJson} as j from assets t where t.workspace_id = $ws and t.id = $1`,
        [id],
      );
      return row?.j ?? '';
    }),
};
