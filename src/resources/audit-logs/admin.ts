// GET /admin/workspaces/{id}/audit-chain: the database checks a workspace's audit hash chain (P97) in feed order,
// a bounded chunk of entries per statement (P103), and names the first broken link. Without `limit` one request
// checks the whole trail; with it, one chunk, and `next_cursor` continues (the CLI shows progress between
// chunks). The SDK's verifyAuditChain checks the same chain from the public feed, with its own implementation
// of the canonical text (docs/operations.md "Audit verification").
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { type Static, Type } from 'typebox';
import { notFound } from '../../contract/errors.js';
import { badCursor, type CursorCodec, cursorBinding } from '../../http/pagination.js';
import { isUuid } from '../../http/validation.js';
import { adminRoute } from '../../management/route.js';
import { DateTime, Nullable, StringEnum, Uuid } from '../../schema/fields.js';
import type { Queryable } from '../../storage/db.js';
import { Sha256Hex } from './schema.js';

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
type BrokenLink = NonNullable<AuditChainReport['first_broken']>;

/** The last entry checked, from which the next chunk continues; `total` carries the count of the first. */
interface Checked {
  position: number;
  occurred_at: string;
  id: string;
  hash: string | null;
  total: number;
}

/** Before the first entry (no entry is at -infinity, so every one is after it). */
const TRAIL_START: Checked = {
  position: 0,
  occurred_at: '-infinity',
  id: '00000000-0000-0000-0000-000000000000',
  hash: null,
  total: 0,
};

const cursorOf = (workspaceId: string) => cursorBinding(workspaceId, 'verifyAuditChain', {});

function encodeCursor(cursors: CursorCodec, workspaceId: string, from: Checked): string {
  return cursors.encode(cursorOf(workspaceId), [
    from.position,
    from.occurred_at,
    from.id,
    from.hash ?? '',
    from.total,
  ]);
}

function decodeCursor(cursors: CursorCodec, workspaceId: string, cursor: string): Checked {
  const [position, occurredAt, id, hash, total] = cursors.decode(cursorOf(workspaceId), cursor);
  // Only this route signs these, always in this shape.
  if (
    typeof position !== 'number' ||
    typeof occurredAt !== 'string' ||
    typeof id !== 'string' ||
    !isUuid(id) ||
    typeof hash !== 'string' ||
    typeof total !== 'number'
  )
    throw badCursor();
  return { position, occurred_at: occurredAt, id, hash: hash || null, total };
}

// One chunk: up to `limit` entries after `from`, each checked against the one before it (the first against
// `from`'s hash) and against its own content; the link is checked before the content, so an entry that names
// the wrong predecessor is reported as such even when its own hash still matches. In the same statement, and
// so the same snapshot: whether entries follow the chunk, and the workspace's head, which names the last entry
// appended (migration 0014): a trail that ends elsewhere lost its end. The count, for progress, is taken by the
// first chunk only.
const CHECK_CHUNK = `
with checked as (
  select c.id, c.occurred_at, c.hash, c.previous_hash,
         $4::int + row_number() over feed as position,
         lag(c.hash, 1, $5::text) over feed as expected_previous,
         audit_entry_hash(c.id, c.occurred_at, c.action, c.actor_type, c.actor_id, c.target_type, c.target_id,
                          c.request_id, audit_canonical_json(c.metadata), c.created_at, c.previous_hash)
           as expected_hash
    from (select a.* from audit_logs a
           where a.workspace_id = $1 and (a.occurred_at, a.id) > ($2::timestamptz, $3::uuid)
           order by a.occurred_at, a.id limit $6::int) as c
  window feed as (order by c.occurred_at, c.id)
), last as (
  select occurred_at, id, hash, position from checked order by position desc limit 1
)
select (select json_build_object('position', position, 'occurred_at', iso(occurred_at), 'id', id, 'hash', hash)
          from last) as last,
       (select json_build_object(
                 'id', id, 'position', position, 'occurred_at', iso(occurred_at),
                 'problem', case when previous_hash is distinct from expected_previous
                                 then 'previous_hash_mismatch' else 'hash_mismatch' end,
                 'expected', case when previous_hash is distinct from expected_previous
                                  then expected_previous else expected_hash end,
                 'stored', case when previous_hash is distinct from expected_previous
                                then previous_hash else hash end)
          from checked
         where previous_hash is distinct from expected_previous or hash is distinct from expected_hash
         order by position limit 1) as broken,
       exists (select 1 from audit_logs a, last
                where a.workspace_id = $1 and (a.occurred_at, a.id) > (last.occurred_at, last.id)) as more,
       case when $7::boolean then (select count(*) from audit_logs a where a.workspace_id = $1) end as total,
       h.hash as head, case when isfinite(h.occurred_at) then iso(h.occurred_at) end as head_at
  from workspaces w left join audit_heads h on h.workspace_id = w.id
 where w.id = $1`;

/** Checks the chunk after `from` (null: the start of the trail); `next` is where the following one starts. */
async function checkChunk(
  db: Queryable,
  workspaceId: string,
  from: Checked | null,
  limit: number,
): Promise<{ report: Omit<AuditChainReport, 'next_cursor'>; next: Checked | null }> {
  const start = from ?? TRAIL_START;
  const [row] = await db.query<{
    last: Omit<Checked, 'total'> | null;
    broken: BrokenLink | null;
    more: boolean;
    total: number | null;
    head: string | null;
    head_at: string | null;
  }>(CHECK_CHUNK, [
    workspaceId,
    start.occurred_at,
    start.id,
    start.position,
    start.hash,
    limit,
    from === null,
  ]);
  if (!row) throw notFound('workspace');
  const last: Checked = { ...(row.last ?? start), total: row.total ?? start.total };
  const next = !row.broken && row.more ? last : null;
  const firstBroken: BrokenLink | null =
    row.broken ??
    (next || row.head === last.hash
      ? null
      : {
          id: null,
          position: last.position + 1,
          occurred_at: row.head_at,
          problem: 'head_mismatch',
          expected: row.head,
          stored: last.hash,
        });
  const report = {
    workspace_id: workspaceId,
    valid: !firstBroken,
    entries_checked: row.broken?.position ?? last.position,
    entries_total: last.total,
    head_hash: firstBroken ? null : last.hash,
    first_broken: firstBroken,
  };
  return { report, next };
}

export const auditLogsAdmin = {
  verifyAuditChain: adminRoute({
    method: 'GET',
    url: '/workspaces/:id/audit-chain',
    tag: 'Workspaces',
    summary: "Verify a workspace's audit hash chain and report the first broken link",
    description:
      'Recomputes every entry in feed order, a bounded chunk a statement. Without `limit`, the answer is the ' +
      'verdict on the whole trail. With it, each answer checks at most `limit` entries and, while no link is ' +
      'broken and entries remain, carries `next_cursor` to continue: the verdict is the answer without one.',
    status: 200,
    query: AuditChainQuery,
    response: AuditChainReport,
    errors: [404],
    handler: async ({ op, services }, { params, query }) => {
      const from = query.cursor ? decodeCursor(services.cursors, params.id, query.cursor) : null;
      let chunk = await checkChunk(op.db, params.id, from, query.limit ?? AUDIT_CHAIN_CHUNK);
      // Without a limit, the whole trail in this request: chunk after chunk, one statement each.
      while (chunk.next && query.limit === undefined)
        chunk = await checkChunk(op.db, params.id, chunk.next, AUDIT_CHAIN_CHUNK);
      const report: AuditChainReport = {
        ...chunk.report,
        next_cursor: chunk.next ? encodeCursor(services.cursors, params.id, chunk.next) : null,
      };
      return JSON.stringify(report);
    },
  }),
};
