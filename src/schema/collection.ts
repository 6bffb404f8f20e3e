// The collection envelope a list operation answers with, and its paging parameters (risk-data-api.md
// "Conventions", "Collection meta"): contract, so that operations declare them; http/pagination.ts writes them.
import { type TSchema, Type } from 'typebox';
import { Currency, Nullable, StringEnum } from './fields.js';

export const LimitParam = Type.Integer({
  minimum: 1,
  maximum: 200,
  default: 50,
  description: 'Page size, 1 to 200 (default 50). Above 200 is rejected, not clamped.',
});
export const CursorParam = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: "The previous page's `meta.next_cursor`. Opaque.",
});

export const FEATURE_STATUSES = ['available', 'not_configured', 'coming_soon'] as const;
export type FeatureStatus = (typeof FEATURE_STATUSES)[number];

// risk-data-api.md "Collection meta", as renderPage writes it.
const CollectionMeta = Type.Object(
  {
    has_more: Type.Boolean({ description: 'Whether another page exists.' }),
    next_cursor: Nullable(
      Type.String({ description: 'Opaque. Pass as `cursor` to get the next page. Null on the last page.' }),
    ),
    feature_status: StringEnum(
      FEATURE_STATUSES,
      '`available`: an empty `data` means no rows. `not_configured`: the workspace has not set the feature ' +
        'up. `coming_soon`: not released.',
    ),
    message: Type.Optional(Type.String({ description: 'Present when `feature_status` is not `available`.' })),
  },
  {
    additionalProperties: false,
    title: 'CollectionMeta',
    // The last page (the examples' data set is small): no cursor, nothing to say.
    examples: [{ has_more: false, next_cursor: null, feature_status: 'available' }],
  },
);

/** Schema of a collection envelope (risk-data-api.md "Conventions", "Collection meta"), for the API description. */
export function collectionSchema(item: TSchema, options: { currency?: boolean } = {}): TSchema {
  return Type.Object(
    {
      data: Type.Array(item),
      meta: CollectionMeta,
      ...(options.currency ? { currency: Currency } : {}),
    },
    { additionalProperties: false },
  );
}
