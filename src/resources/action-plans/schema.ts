// Action plan and action plan item: risk-data-api.md "Action plans", resources.md "Action plan" and
// "Action plan item", decisions 16-18.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { Type } from 'typebox';
import { ActionPlanItemStatus, DateOnly, DateTime, Nullable, StringEnum, Uuid } from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

export { ActionPlanItemStatus };
/** Statuses a client may ask for (decision 16): `overdue` is set by the service, never by a client. */
export const SettableItemStatus = ActionPlanItemStatus.filter(
  (status): status is Exclude<(typeof ActionPlanItemStatus)[number], 'overdue'> => status !== 'overdue',
);
/** An item in one of these is finished: never overdue, whatever its due date (decision 18). */
export const FINISHED_ITEM_STATUSES = ['completed', 'not_applicable', 'rejected'] as const;

export const ActionPlan = defineResource({
  name: 'ActionPlan',
  table: 'action_plans',
  fields: {
    id: field(Uuid),
    supplier_id: field(Uuid, { required: true }),
    assessment_id: field(Nullable(Uuid)),
    title: field(Type.String({ minLength: 1, maxLength: 300 }), { required: true }),
    status: field(
      Type.String({ minLength: 1, maxLength: 50, description: 'e.g. open, in_progress, closed' }),
    ),
    due_date: field(Nullable(DateOnly)),
    item_count: field(Type.Integer({ minimum: 0 }), {
      sql: '(select count(*)::int from action_plan_items i where i.workspace_id = $t.workspace_id and i.action_plan_id = $t.id)',
    }),
    created_at: field(DateTime, { keptText: true }),
    updated_at: field(DateTime, { keptText: true }),
  },
});

const Note = Type.String({ minLength: 1, maxLength: 2000 });

export const HistoryEntry = Type.Object(
  {
    at: DateTime,
    from_status: Nullable(StringEnum(ActionPlanItemStatus)),
    to_status: StringEnum(ActionPlanItemStatus),
    note: Nullable(Note),
    actor_id: Nullable(Uuid),
  },
  { additionalProperties: false, description: 'One change of the item, or a note on it.' },
);

export const ActionPlanItem = defineResource({
  name: 'ActionPlanItem',
  table: 'action_plan_items',
  fields: {
    id: field(Uuid),
    action_plan_id: field(Uuid, { required: true }),
    title: field(Type.String({ minLength: 1, maxLength: 300 }), { required: true }),
    description: field(Nullable(Type.String({ maxLength: 5000 }))),
    status: field(StringEnum(ActionPlanItemStatus)),
    due_date: field(Nullable(DateOnly)),
    completed_at: field(Nullable(DateTime)),
    control_code: field(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    control_title: field(Nullable(Type.String({ minLength: 1, maxLength: 500 }))),
    history: field(Type.Array(HistoryEntry, { description: 'Oldest first.' }), {
      // Served inside JSON that PostgreSQL builds (an action plan's items), which reads the document itself.
      keptText: false,
    }),
    created_at: field(DateTime),
    updated_at: field(DateTime),
  },
});

export const ItemStatusChange = Type.Object(
  {
    status: StringEnum(SettableItemStatus, '`overdue` is set by the service and cannot be requested.'),
    note: Type.Optional(Nullable(Note)),
  },
  { additionalProperties: false, title: 'ItemStatusChange' },
);

export const AdminItemStatusChange = Type.Object(
  {
    ...ItemStatusChange.properties,
    user_id: Type.String({ format: 'uuid', description: 'The user of the workspace making the change.' }),
  },
  { additionalProperties: false },
);
