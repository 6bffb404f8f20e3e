// Audit log entry: resources.md "Audit log entry". Entries never change, so there is no updated_at.
import { Type } from 'typebox';
import { DateTime, FreeObject, Nullable, StringEnum, Uuid } from '../../schema/fields.js';
import { defineResource, field } from '../../schema/resource.js';

/** A hash of the audit chain: lowercase hex SHA-256. */
export const Sha256Hex = (description: string) =>
  Type.String({
    pattern: '^[0-9a-f]{64}$',
    description,
    examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'],
  });

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
    // The hash chain (docs/decisions.md P97): the canonical text is defined in docs/operations.md.
    previous_hash: field(
      Nullable(
        Sha256Hex(
          "The `hash` of the workspace's entry before this one in feed order (`occurred_at`, then `id`); " +
            'null for its first entry.',
        ),
      ),
    ),
    hash: field(
      Sha256Hex(
        'SHA-256 (lowercase hex) of the UTF-8 of the canonical JSON of this entry without `hash`: every other ' +
          'field, `previous_hash` included, object keys sorted by code point at every level, no whitespace, ' +
          'numbers without exponent or trailing fractional zeros.',
      ),
    ),
  },
});
