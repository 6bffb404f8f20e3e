// Resources of the management interface (management-api.md, "Endpoints").
import { Type } from 'typebox';
import { DateTime, Nullable, Plans, SCOPES, StringEnum, Uuid, WebhookEvents } from '../resources/fields.js';
import { defineResource, field } from '../resources/resource.js';

export const Workspace = defineResource({
  name: 'Workspace',
  table: 'workspaces',
  fields: {
    id: field(Uuid),
    name: field(Type.String()),
    plan: field(StringEnum(Plans)),
    assessment_quota: field(Type.Integer()),
    created_at: field(DateTime),
    updated_at: field(DateTime),
  },
});

export const User = defineResource({
  name: 'User',
  table: 'users',
  fields: {
    id: field(Uuid),
    name: field(Type.String()),
    email: field(Type.String()),
    created_at: field(DateTime),
  },
});

export const ApiKey = defineResource({
  name: 'ApiKey',
  table: 'api_keys',
  fields: {
    id: field(Uuid),
    name: field(Type.String()),
    scopes: field(Type.Array(StringEnum(SCOPES))),
    created_by: field(Uuid),
    expires_at: field(Nullable(DateTime)),
    created_at: field(DateTime),
    prefix: field(Type.String()),
    last_used_at: field(Nullable(DateTime)),
    revoked_at: field(Nullable(DateTime)),
  },
});

export const WebhookEndpoint = defineResource({
  name: 'WebhookEndpoint',
  table: 'webhook_endpoints',
  description: 'A registered webhook endpoint. The signing secret is never returned after registration.',
  fields: {
    id: field(Uuid),
    url: field(Type.String()),
    description: field(Nullable(Type.String())),
    events: field(Type.Array(StringEnum(WebhookEvents))),
    enabled: field(Type.Boolean()),
    created_at: field(DateTime),
    updated_at: field(DateTime),
  },
});

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Quota = Type.Integer({ minimum: 0, maximum: 1_000_000 });

export const WorkspaceCreate = Type.Object(
  { name: Name, plan: StringEnum(Plans), assessment_quota: Type.Optional(Quota) },
  { additionalProperties: false },
);
export const WorkspacePatch = Type.Object(
  {
    name: Type.Optional(Name),
    plan: Type.Optional(StringEnum(Plans)),
    assessment_quota: Type.Optional(Quota),
  },
  { additionalProperties: false },
);
export const UserCreate = Type.Object(
  { name: Name, email: Type.String({ format: 'email', maxLength: 254 }) },
  { additionalProperties: false },
);
export const ApiKeyCreate = Type.Object(
  {
    name: Name,
    scopes: Type.Array(StringEnum(SCOPES), { minItems: 1, uniqueItems: true }),
    created_by: Uuid,
    expires_at: Type.Optional(Nullable(DateTime)),
  },
  { additionalProperties: false },
);
const Events = Type.Array(StringEnum(WebhookEvents), { minItems: 1, uniqueItems: true });
export const WebhookEndpointCreate = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    events: Events,
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  },
  { additionalProperties: false },
);
export const WebhookEndpointPatch = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    events: Type.Optional(Events),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
