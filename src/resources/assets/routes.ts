// The handlers of the assets' operations (operations.ts; risk-data-api.md "Assets", decision 34).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import type { Static } from 'typebox';
import { validationFailed } from '../../contract/errors.js';
import { handleList, NEWEST_FIRST } from '../../http/list.js';
import { handle, type Route } from '../../http/route.js';
import { bodyChecker, guard } from '../../http/validation.js';
import { listAssets, upsertAssets } from './operations.js';
import {
  Asset,
  type AssetSource,
  AssetUpsertEnvelope,
  AssetUpsertItem,
  type CloudProvider,
  notAnObject,
  providerProblem,
} from './schema.js';

const checkEnvelope = bodyChecker(AssetUpsertEnvelope);
const assetItem = guard(AssetUpsertItem);

type UpsertItem = Static<typeof AssetUpsertItem>;

interface Skipped {
  index: number;
  external_id: string | null;
  reason: string;
}

/** Why an item cannot be written on its own (it is not a valid AssetUpsertItem). */
function itemProblem(item: unknown, index: number): string {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return notAnObject(index);
  const problems = assetItem.problems(item) ?? {};
  const list = Object.entries(problems).map(([name, message]) => `${name} ${message}`);
  return `assets[${index}] is invalid: ${list.join('; ')}.`;
}

/** Splits the batch into the items to write and the skipped ones (rule 3), in request order. */
function triageItems(items: readonly unknown[]): { valid: UpsertItem[]; skipped: Skipped[] } {
  const valid: UpsertItem[] = [];
  const skipped: Skipped[] = [];
  const firstIndex = new Map<string, number>();
  items.forEach((item, index) => {
    const raw = typeof item === 'object' && item !== null && 'external_id' in item ? item.external_id : null;
    const externalId = typeof raw === 'string' ? raw : null;
    if (!assetItem.accepts(item)) {
      skipped.push({ index, external_id: externalId, reason: itemProblem(item, index) });
      return;
    }
    // Two items for one asset in one batch: the first is applied, later ones are reported, never merged.
    const first = firstIndex.get(item.external_id);
    if (first !== undefined) {
      const reason = `assets[${index}] repeats the external_id of assets[${first}], which was applied instead.`;
      skipped.push({ index, external_id: externalId, reason });
      return;
    }
    firstIndex.set(item.external_id, index);
    valid.push(item);
  });
  return { valid, skipped };
}

// The whole batch in one statement. json_populate_recordset turns the items into rows of the table's own
// type; `on conflict` matches them on (source, cloud_provider, external_id) through match_key. An existing
// asset is updated only when one of its attributes differs, so that repeating a payload changes nothing and
// counts nothing (decision 34); review_status is never in the update list, so a confirmed asset stays
// confirmed (rule 4). xmax is 0 exactly on the rows this statement inserted.
const UPSERT = `
  with written as (
    insert into assets as t (workspace_id, id, external_id, name, asset_type, technical_criticality, exposure,
                             region, cloud_metadata, source, cloud_provider, review_status)
    select $ws, gen_random_uuid(), i.external_id, i.name, i.asset_type, i.technical_criticality, i.exposure,
           i.region, i.cloud_metadata, $2::text, $3::text, $4::text
      from json_populate_recordset(null::assets, $1::json) i
    on conflict (workspace_id, match_key) do update
       set name = excluded.name, asset_type = excluded.asset_type,
           technical_criticality = excluded.technical_criticality, exposure = excluded.exposure,
           region = excluded.region, cloud_metadata = excluded.cloud_metadata, updated_at = now()
     where (t.name, t.asset_type, t.technical_criticality, t.exposure, t.region, t.cloud_metadata)
           is distinct from (excluded.name, excluded.asset_type, excluded.technical_criticality,
                             excluded.exposure, excluded.region, excluded.cloud_metadata)
    returning (t.xmax = 0) as inserted
  )
  select (count(*) filter (where inserted))::int as created,
         (count(*) filter (where not inserted))::int as updated
    from written`;

const upsert = handle(upsertAssets, async (ctx, { body: input }) => {
  // The envelope (400/422 before anything is written): items stand in as placeholders, so that one bad
  // item's text cannot fail the batch, while `assets` still counts towards its 500 limit.
  const items = Array.isArray(input.assets) ? (input.assets as unknown[]) : null;
  const fields = checkEnvelope({ ...input, ...(items ? { assets: items.map(() => null) } : {}) }) ?? {};
  const provider = providerProblem(input.source, input.cloud_provider);
  if (provider && !fields.source && !fields.cloud_provider) fields.cloud_provider = provider;
  if (Object.keys(fields).length > 0 || !items) throw validationFailed(fields);

  const source = input.source as string;
  const cloudProvider = (input.cloud_provider ?? null) as string | null;
  const { valid, skipped } = triageItems(items);
  let created = 0;
  let updated = 0;
  if (valid.length > 0) {
    const rows = valid.map((item) => ({
      external_id: item.external_id,
      name: item.name,
      asset_type: item.asset_type,
      technical_criticality: item.technical_criticality ?? null,
      exposure: item.exposure ?? null,
      region: item.region ?? null,
      cloud_metadata: item.cloud_metadata ?? {},
    }));
    const [counts] = await ctx.tenant.query<{ created: number; updated: number }>(UPSERT, [
      JSON.stringify(rows),
      source,
      cloudProvider,
      Asset.fields.review_status.initial,
    ]);
    created = counts?.created ?? 0;
    updated = counts?.updated ?? 0;
  }
  // Decision 26: one audit entry per API write, with the counts (also when nothing changed).
  await ctx.audit(
    'assets.upserted',
    { type: 'workspace', id: ctx.key.workspaceId },
    { source, cloud_provider: cloudProvider, created, updated, skipped: skipped.length },
  );
  // Opt-in (P177): a batch that changed something (the audit entry above records every batch).
  if (created + updated > 0) {
    await ctx.events('assets.upserted', {
      source: source as (typeof AssetSource)[number],
      cloud_provider: cloudProvider as (typeof CloudProvider)[number] | null,
      created,
      updated,
      skipped: skipped.length,
    });
  }
  return { status: 200, body: JSON.stringify({ created, updated, skipped }) };
});

export const assetsRoutes: Route[] = [handleList(listAssets, { order: NEWEST_FIRST }), upsert];
