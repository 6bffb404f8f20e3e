// Audit log entry: resources.md "Audit log entry". Entries never change, so there is no updated_at.
import { type Static, Type } from 'typebox';
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
    occurred_at: field(DateTime, { keptText: true }),
    action: field(Type.String({ minLength: 1, maxLength: 100 }), { required: true }),
    actor_type: field(StringEnum(AuditActorType), { required: true }),
    actor_id: field(Nullable(Uuid)),
    target_type: field(Nullable(Type.String({ maxLength: 100 }))),
    target_id: field(Nullable(Uuid)),
    request_id: field(Nullable(Type.String({ maxLength: 100 }))),
    metadata: field(FreeObject, { keptText: true }),
    created_at: field(DateTime, { keptText: true }),
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

// The audit-chain check of the management listener (lifecycle.ts).

/**
 * Entries one statement checks when the request gives no `limit`: each is read, canonicalized and hashed in
 * SQL, so a trail of millions checked in one statement would outlast the statement timeout (30 s).
 */
export const AUDIT_CHAIN_CHUNK = 5_000;
/** The most a request may ask for in one statement. */
const MAX_AUDIT_CHAIN_CHUNK = 50_000;

export const AuditChainProblem = ['previous_hash_mismatch', 'hash_mismatch', 'head_mismatch'] as const;

export const AuditChainQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_AUDIT_CHAIN_CHUNK,
        description:
          `Check at most this many entries (1 to ${MAX_AUDIT_CHAIN_CHUNK.toLocaleString('en-US')}), from the ` +
          'start of the trail or from `cursor`; `next_cursor` continues. Without it, the whole trail is checked ' +
          `in this request, ${AUDIT_CHAIN_CHUNK.toLocaleString('en-US')} entries a statement.`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description:
          "The previous answer's `next_cursor`: continue after the last entry it checked. Opaque, bound to the " +
          'workspace.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AuditChainReport = Type.Object(
  {
    workspace_id: Uuid,
    valid: Type.Boolean({
      description:
        'Whether every entry checked is linked and unaltered: the verdict on the whole trail when `next_cursor` ' +
        'is null.',
    }),
    entries_checked: Type.Integer({
      minimum: 0,
      description:
        'Entries checked in feed order, from the start of the trail: all of them, up to and including the first ' +
        'broken one, or (with `next_cursor`) those checked so far.',
    }),
    entries_total: Type.Integer({
      minimum: 0,
      description:
        'Entries the trail held when the check began (its first request): a check made in parts is at ' +
        '`entries_checked` of this. Entries appended since are checked too.',
    }),
    head_hash: Nullable(
      Sha256Hex(
        'The `hash` of the last entry checked when no link is broken (null when there is none): the head of ' +
          'the trail when `next_cursor` is null.',
      ),
    ),
    first_broken: Nullable(
      Type.Object(
        {
          id: Type.Union([Uuid, Type.Null()], {
            description: 'The broken entry; null for `head_mismatch`, where the entry is missing.',
          }),
          position: Type.Integer({
            minimum: 1,
            description:
              "The entry's 1-based position in feed order (for `head_mismatch`, one past the last).",
          }),
          occurred_at: Type.Union([DateTime, Type.Null()], {
            description:
              "The broken entry's instant (for `head_mismatch`, the head's; null when there is no head).",
          }),
          problem: StringEnum(
            AuditChainProblem,
            '`previous_hash_mismatch`: the entry does not name the hash of the entry before it (one was ' +
              'deleted, inserted or reordered); `hash_mismatch`: its content no longer gives its hash; ' +
              '`head_mismatch`: the last entry is not the last one appended (entries were deleted from the ' +
              "end, or the workspace's chain head was altered or removed); `expected` is then the head's " +
              "hash, `stored` the last entry's.",
          ),
          expected: Nullable(Sha256Hex('The hash the entry should carry (or name as `previous_hash`).')),
          stored: Nullable(Sha256Hex('The hash stored in the entry (or its `previous_hash`).')),
        },
        { additionalProperties: false },
      ),
    ),
    next_cursor: Nullable(
      Type.String({
        description:
          '`limit` stopped the check before the end of the trail, with no broken link: pass this as `cursor` to ' +
          'continue. Null on the answer that holds the verdict.',
      }),
    ),
  },
  { additionalProperties: false, title: 'AuditChainReport' },
);
export type AuditChainReport = Static<typeof AuditChainReport>;
