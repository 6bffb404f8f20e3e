// Resources of the management interface (management-api.md, "Endpoints").
import { Type } from 'typebox';
import { DateTime, Nullable, Plans, SCOPES, StringEnum, Uuid } from '../schema/fields.js';
import { defineResource, field } from '../schema/resource.js';

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

/** The quota of a workspace created without one. */
export const DEFAULT_ASSESSMENT_QUOTA = 100;

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

/** An API key as issued: the key and, in this response only, its secret. */
export const ApiKeyWithSecret = Type.Object(
  { ...ApiKey.schema.properties, secret: Type.String({ description: 'Shown in this response only.' }) },
  { additionalProperties: false, title: 'ApiKeyWithSecret' },
);

/** The records an import created, per collection. */
export const ImportResult = Type.Object(
  { created: Type.Record(Type.String(), Type.Integer({ minimum: 0 })) },
  { additionalProperties: false, title: 'ImportResult' },
);

/** The body of an import: collection names to arrays of records (the handler judges each record). */
export const ImportDocument = Type.Record(
  Type.String(),
  Type.Array(Type.Record(Type.String(), Type.Unknown())),
  {
    title: 'ImportDocument',
  },
);
