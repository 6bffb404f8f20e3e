// Audit log entry: resources.md "Audit log entry". Entries never change, so there is no updated_at.
import { Type } from 'typebox';
import { DateTime, FreeObject, Nullable, StringEnum, Uuid } from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

export const AuditActorType = ['user', 'api_key', 'system'] as const;

export const AuditLog = defineResource({
  name: 'AuditLogEntry',
  table: 'audit_logs',
  fields: {
    id: field(Uuid),
    occurred_at: field(DateTime),
    action: field(Type.String({ minLength: 1, maxLength: 100 }), { required: true }),
    actor_type: field(StringEnum(AuditActorType), { required: true }),
    actor_id: field(Nullable(Uuid)),
    target_type: field(Nullable(Type.String({ maxLength: 100 }))),
    target_id: field(Nullable(Uuid)),
    request_id: field(Nullable(Type.String({ maxLength: 100 }))),
    metadata: field(FreeObject),
    created_at: field(DateTime),
  },
});
