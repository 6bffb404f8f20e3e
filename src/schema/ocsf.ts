// The OCSF 1.8.0 form of a feed's items (`format=ocsf`, docs/ocsf.md; docs/decisions.md P185-P192): the query
// parameter that asks for it and the schema the documents show for an item. The mapping is src/ocsf/; the exact
// classes (required attributes, types, enumerations) are checked by the tests against the OCSF schema source
// (test/support/ocsf-schema.ts), so this schema names only what every item the service writes carries.
import { Type } from 'typebox';
import { StringEnum } from './fields.js';

/** The OCSF schema version the items follow (metadata.version). */
export const OCSF_VERSION = '1.8.0';

/** The forms a feed's items can take: the API's own (default) or OCSF 1.8.0 events. */
export const ITEM_FORMATS = ['native', 'ocsf'] as const;
export type ItemFormat = (typeof ITEM_FORMATS)[number];

export const FormatParam = StringEnum(
  ITEM_FORMATS,
  "The form of each item of `data`: `native` (default), the API's own; `ocsf`, an OCSF 1.8.0 event (schema " +
    '`OcsfEvent`, docs/ocsf.md). The envelope, the order, the filters and the cursor are the same in both, and ' +
    'a cursor of one form continues in the other.',
);

const integer = (description: string) => Type.Integer({ description });

/** One item in the OCSF form, as the documents show it: the attributes every class the service emits has. */
export const OcsfEvent = Type.Object(
  {
    class_uid: integer(
      'The OCSF class: 6003 API Activity, 3004 Entity Management, 2004 Detection Finding (docs/ocsf.md).',
    ),
    class_name: Type.String(),
    category_uid: integer("The class's category: 6 Application Activity, 3 IAM, 2 Findings."),
    category_name: Type.String(),
    activity_id: integer('The activity within the class (1 Create, 3 Update, …; 99 Other).'),
    activity_name: Type.String(),
    type_uid: integer('`class_uid * 100 + activity_id`.'),
    type_name: Type.String(),
    time: integer(
      'When it happened, in milliseconds since the epoch (the exact instant is under `unmapped`).',
    ),
    severity_id: integer("1 Informational for audit entries; an alert's own severity for its event."),
    severity: Type.String(),
    status_id: Type.Optional(integer('1 Success: every item records a change that was committed.')),
    status: Type.Optional(Type.String()),
    message: Type.String(),
    metadata: Type.Object(
      {
        product: Type.Object(
          { name: Type.String(), vendor_name: Type.String(), version: Type.String() },
          { additionalProperties: true },
        ),
        version: StringEnum([OCSF_VERSION]),
        uid: Type.String({ description: "The audit entry's or the event's id." }),
        tenant_uid: Type.String({ description: 'The workspace.' }),
      },
      { additionalProperties: true },
    ),
    actor: Type.Optional(Type.Object({}, { additionalProperties: true })),
    unmapped: Type.Record(Type.String(), Type.Unknown(), {
      description: 'What no OCSF attribute carries, under the names of the native form.',
    }),
  },
  {
    additionalProperties: true,
    title: 'OcsfEvent',
    description:
      'An OCSF 1.8.0 event (https://schema.ocsf.io/1.8.0): the form of an item with `format=ocsf`. Each item is ' +
      'one class of the schema, with its own attributes besides these (docs/ocsf.md has the mapping table).',
    examples: [
      {
        class_uid: 6003,
        class_name: 'API Activity',
        category_uid: 6,
        category_name: 'Application Activity',
        activity_id: 1,
        activity_name: 'Create',
        type_uid: 600301,
        type_name: 'API Activity: Create',
        time: 1767225600123,
        severity_id: 1,
        severity: 'Informational',
        status_id: 1,
        status: 'Success',
        message: 'supplier.created',
        metadata: {
          product: { name: 'tprm-api', vendor_name: 'tprm-api', version: '1.0.0' },
          version: OCSF_VERSION,
          uid: '0b5d3f0e-4c61-4a35-9a61-3f2b2a1c9d10',
          tenant_uid: '7f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f',
          log_name: 'audit_logs',
          correlation_uid: 'req_01J9Z6X4T2',
          tags: [
            { name: 'hash', value: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' },
            {
              name: 'previous_hash',
              value: '60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752',
            },
          ],
        },
        actor: {
          user: {
            uid: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
            type_id: 1,
            type: 'User',
            credential_uid: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b',
          },
        },
        api: {
          operation: 'supplier.created',
          service: { name: 'tprm-api' },
          request: { uid: 'req_01J9Z6X4T2' },
        },
        src_endpoint: { name: 'public-api' },
        resources: [{ uid: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', type: 'supplier' }],
        unmapped: {
          occurred_at: '2026-01-01T00:00:00.123456Z',
          actor_type: 'user',
          created_at: '2026-01-01T00:00:00.120001Z',
          metadata: { api_key_id: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b' },
        },
      },
    ],
  },
);
