// The webhook event catalogue (risk-data-api.md "Events", decisions 23-25): each event type once, with what it
// announces and its thin `data` (ids and minimum state). Everything else is derived from it: the list of types
// an endpoint subscribes to, the payload schemas of the OpenAPI document's `webhooks` (from which the SDK types
// `constructEvent`), and the type of `data` the outbox accepts for each type, so that a handler recording a
// payload its type does not describe fails to compile.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { type Static, type TObject, type TProperties, Type } from 'typebox';
import {
  ActionPlanItemStatus,
  AlertScope,
  AlertSeverity,
  AssessmentStatus,
  AssessmentType,
  AssetSource,
  CloudProvider,
  DateTime,
  Nullable,
  StringEnum,
  Uuid,
} from '../schema/fields.js';

interface EventSpec<D extends TProperties> {
  /** The payload schema's title in the OpenAPI document. */
  title: string;
  /** When the event is sent. */
  description: string;
  /** `data` of decision 25. */
  data: TObject<D>;
  /**
   * Not one of the contract's four types (P177): an endpoint receives it only when its `events` name it, and
   * "all" in the CLI does not include it. Every event, of either kind, is in GET /v1/events.
   */
  optIn: boolean;
}

const event = <D extends TProperties>(title: string, description: string, data: D): EventSpec<D> => ({
  title,
  description,
  data: Type.Object(data, { additionalProperties: false }),
  optIn: false,
});

/** An opt-in type (P177): its description says so in the document. */
const optIn = <D extends TProperties>(title: string, description: string, data: D): EventSpec<D> => ({
  ...event(title, `${description} Opt-in: sent only to endpoints that subscribe to this type by name.`, data),
  optIn: true,
});

const Count = (description: string) => Type.Integer({ minimum: 0, description });

/**
 * Every event type: the contract's four, in the order of risk-data-api.md's table, then the opt-in types
 * (issue 26) that announce the changes a poller would otherwise find by diffing.
 */
export const EVENT_CATALOGUE = {
  'assessment.completed': event(
    'AssessmentCompletedEvent',
    'An assessment moved into `completed` (once per assessment; re-saving does not send it again).',
    { assessment_id: Uuid, supplier_id: Uuid, status: StringEnum(['completed']) },
  ),
  'report.ready': event(
    'ReportReadyEvent',
    'A report PDF became available, when the report was created or when it was rendered later.',
    { report_id: Uuid, supplier_id: Uuid, assessment_id: Nullable(Uuid) },
  ),
  'alert.created': event(
    'AlertCreatedEvent',
    'A supplier or organizational alert was raised; `data.scope` tells them apart.',
    {
      alert_id: Uuid,
      scope: StringEnum(AlertScope),
      supplier_id: Nullable(Uuid),
      severity: StringEnum(AlertSeverity),
    },
  ),
  'action_plan_item.status_changed': event(
    'ActionPlanItemStatusChangedEvent',
    "An action plan item's status changed (through `PATCH /action-plan-items/{id}` or otherwise).",
    {
      action_plan_item_id: Uuid,
      action_plan_id: Uuid,
      previous_status: StringEnum(ActionPlanItemStatus),
      status: StringEnum(ActionPlanItemStatus),
    },
  ),
  'supplier.created': optIn('SupplierCreatedEvent', 'A supplier was created through `POST /suppliers`.', {
    supplier_id: Uuid,
  }),
  'assessment.created': optIn(
    'AssessmentCreatedEvent',
    'An assessment was created through `POST /assessments` (it starts in `draft`).',
    { assessment_id: Uuid, supplier_id: Uuid, assessment_type: StringEnum(AssessmentType) },
  ),
  'assessment.status_changed': optIn(
    'AssessmentStatusChangedEvent',
    "An assessment's status changed (the service's own transitions, entering `completed` included; " +
      're-saving the same status sends nothing).',
    {
      assessment_id: Uuid,
      supplier_id: Uuid,
      previous_status: StringEnum(AssessmentStatus),
      status: StringEnum(AssessmentStatus),
    },
  ),
  'assets.upserted': optIn(
    'AssetsUpsertedEvent',
    'A batch of `PUT /assets` was applied: the counts of the answer, sent for every batch that created or ' +
      'updated at least one asset.',
    {
      source: StringEnum(AssetSource),
      cloud_provider: Nullable(StringEnum(CloudProvider)),
      created: Count('Assets the batch created.'),
      updated: Count('Existing assets whose attributes the batch changed.'),
      skipped: Count('Items of the batch that were not applied.'),
    },
  ),
  'asset.confirmed': optIn(
    'AssetConfirmedEvent',
    'A discovered asset was confirmed by the human review of the web application.',
    { asset_id: Uuid },
  ),
  'action_plan_item.note_added': optIn(
    'ActionPlanItemNoteAddedEvent',
    "A note was added to an action plan item's history without a change of status (a change of status " +
      'sends `action_plan_item.status_changed`).',
    {
      action_plan_item_id: Uuid,
      action_plan_id: Uuid,
      status: StringEnum(ActionPlanItemStatus),
    },
  ),
};

type Catalogue = typeof EVENT_CATALOGUE;
export type EventType = keyof Catalogue;
/** The `data` of an event of type `T`. */
export type EventData<T extends EventType> = Static<Catalogue[T]['data']>;

/** The types an endpoint may subscribe to (resources.md "Webhook endpoint" `events`). */
export const EventTypes = Object.keys(EVENT_CATALOGUE) as readonly EventType[];

/** The contract's four types (risk-data-api.md "Events"): what "all" means where a person may say it. */
export const ContractEventTypes = EventTypes.filter((type) => !EVENT_CATALOGUE[type].optIn);

/** The types an endpoint receives only when it names them (P177). */
export const OptInEventTypes = EventTypes.filter((type) => EVENT_CATALOGUE[type].optIn);

/** One event's payload: the envelope of risk-data-api.md "Payload" around its `data`. */
function payloadSchema(type: EventType): TObject {
  const { title, description, data } = EVENT_CATALOGUE[type];
  return Type.Object(
    {
      event_id: Type.String({
        format: 'uuid',
        description: 'Stable across retries and fan-out: deduplicate on it.',
      }),
      type: StringEnum([type]),
      occurred_at: DateTime,
      organization_id: Uuid,
      data,
    },
    { title, description, additionalProperties: false },
  );
}

/**
 * The body of each event's delivery, as the OpenAPI document's `webhooks` describe it (and the SDK types
 * `constructEvent` from). The tests check every event the service stores against these schemas.
 */
export const EventPayloads = Object.fromEntries(
  EventTypes.map((type) => [type, payloadSchema(type)]),
) as Readonly<Record<EventType, TObject>>;
