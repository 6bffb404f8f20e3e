// Asset: risk-data-api.md "Asset" and "Assets", resources.md "Asset", decision 34.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import {
  AssetSource,
  CloudProvider,
  Criticality,
  DateTime,
  FreeObject,
  Nullable,
  StringEnum,
  Uuid,
} from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

export const AssetType = [
  'application',
  'infrastructure',
  'data',
  'device',
  'facility',
  'third_party',
  'other',
] as const;
export const Exposure = ['internal', 'exposed'] as const;
// The event catalogue names these two too (src/schema/fields.ts).
export { AssetSource, CloudProvider };
export const ReviewStatus = ['discovered', 'confirmed'] as const;

/** Items per PUT /assets (risk-data-api.md "Limits"). */
export const MAX_UPSERT_ITEMS = 500;

export const assetFields = {
  id: field(Uuid),
  // 512 characters keep the identity index entry within PostgreSQL's limit whatever the characters.
  external_id: field(
    Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'The identifier in the source (an ARN, a CMDB number…); unique per source and provider.',
    }),
    { required: true },
  ),
  name: field(Type.String({ minLength: 1, maxLength: 200 }), { required: true }),
  asset_type: field(StringEnum(AssetType), { required: true }),
  technical_criticality: field(Nullable(StringEnum(Criticality))),
  exposure: field(Nullable(StringEnum(Exposure))),
  region: field(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
  cloud_metadata: field(FreeObject, { keptText: true }),
  source: field(StringEnum(AssetSource), { required: true }),
  cloud_provider: field(Nullable(StringEnum(CloudProvider, 'Null for manual assets.'))),
  review_status: field(
    StringEnum(ReviewStatus, '`confirmed` means a human reviewed the asset. PUT /assets never changes it.'),
    // Every new asset awaits a human review (risk-data-api.md "States and transitions").
    { initial: 'discovered' },
  ),
  created_at: field(DateTime, { keptText: true }),
  updated_at: field(DateTime, { keptText: true }),
};

export const Asset = defineResource({ name: 'Asset', table: 'assets', fields: assetFields });

/** One element of `assets` in PUT /assets. Omitted optional attributes are stored as null (`{}` for metadata). */
export const AssetUpsertItem = Type.Object(
  {
    external_id: assetFields.external_id.schema,
    name: assetFields.name.schema,
    asset_type: assetFields.asset_type.schema,
    technical_criticality: Type.Optional(assetFields.technical_criticality.schema),
    exposure: Type.Optional(assetFields.exposure.schema),
    region: Type.Optional(assetFields.region.schema),
    cloud_metadata: Type.Optional(FreeObject),
  },
  { additionalProperties: false, title: 'AssetUpsertItem' },
);

export const AssetUpsert = Type.Object(
  {
    source: assetFields.source.schema,
    cloud_provider: Type.Optional(assetFields.cloud_provider.schema),
    assets: Type.Array(AssetUpsertItem, {
      maxItems: MAX_UPSERT_ITEMS,
      description: 'At most 500. Each item is validated on its own: a malformed one is skipped.',
    }),
  },
  { additionalProperties: false, title: 'AssetUpsert' },
);

/** The envelope as the handler checks it: items are checked one by one afterwards (rule 3). */
export const AssetUpsertEnvelope = Type.Object(
  {
    source: assetFields.source.schema,
    cloud_provider: Type.Optional(assetFields.cloud_provider.schema),
    assets: Type.Array(Type.Unknown(), { maxItems: MAX_UPSERT_ITEMS }),
  },
  { additionalProperties: false },
);

/** Why an item of a batch that is not an object is skipped. */
export const notAnObject = (index: number) => `assets[${index}] is not a JSON object.`;

export const AssetUpsertResult = Type.Object(
  {
    created: Type.Integer({ minimum: 0 }),
    updated: Type.Integer({ minimum: 0, description: 'Matched assets whose stored attributes changed.' }),
    skipped: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0, description: 'Position of the item in the request.' }),
          external_id: Nullable(Type.String()),
          reason: Type.String(),
        },
        { additionalProperties: false, examples: [{ index: 1, external_id: null, reason: notAnObject(1) }] },
      ),
    ),
  },
  { additionalProperties: false, title: 'AssetUpsertResult' },
);

/** The source/provider rule (resources.md: cloud_provider is null for manual assets), as field errors. */
export function providerProblem(source: unknown, provider: unknown): string | null {
  if (source === 'manual' && provider !== null && provider !== undefined)
    return 'must be null or absent when source is manual';
  if (source === 'cloud' && (provider === null || provider === undefined))
    return 'is required when source is cloud';
  return null;
}
