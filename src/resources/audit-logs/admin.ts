// GET /admin/workspaces/{id}/audit-chain: the database checks a workspace's audit hash chain (P97) in feed order,
// a bounded chunk of entries per statement (P103), and names the first broken link. Without `limit` one request
// checks the whole trail; with it, one chunk, and `next_cursor` continues (the CLI shows progress between
// chunks). The SDK's verifyAuditChain checks the same chain from the public feed, with its own implementation
// of the canonical text (docs/operations.md "Audit verification").
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { notFound } from '../../contract/errors.js';
import type { OperatorHandlers } from '../../http/operator.js';
import { badCursor, type CursorCodec, cursorBinding } from '../../http/pagination.js';
import { isUuid } from '../../http/validation.js';
import type { TenantDb } from '../../storage/tenant.js';
import type { auditLogsLifecycle } from './lifecycle.js';
import { AUDIT_CHAIN_CHUNK, type AuditChainReport } from './schema.js';

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
         $3::int + row_number() over feed as position,
         lag(c.hash, 1, $4::text) over feed as expected_previous,
         audit_entry_hash(c.id, c.occurred_at, c.action, c.actor_type, c.actor_id, c.target_type, c.target_id,
                          c.request_id, audit_canonical_json(c.metadata), c.created_at, c.previous_hash)
           as expected_hash
    from (select a.* from audit_logs a
           where a.workspace_id = $ws and (a.occurred_at, a.id) > ($1::timestamptz, $2::uuid)
           order by a.occurred_at, a.id limit $5::int) as c
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
                where a.workspace_id = $ws and (a.occurred_at, a.id) > (last.occurred_at, last.id)) as more,
       case when $6::boolean then (select count(*) from audit_logs a where a.workspace_id = $ws) end as total,
       h.hash as head, case when isfinite(h.occurred_at) then iso(h.occurred_at) end as head_at
  from workspaces w left join audit_heads h on h.workspace_id = w.id
 where w.id = $ws`;

/** Checks the chunk after `from` (null: the start of the trail); `next` is where the following one starts. */
async function checkChunk(
  tenant: TenantDb,
  from: Checked | null,
  limit: number,
): Promise<{ report: Omit<AuditChainReport, 'next_cursor'>; next: Checked | null }> {
  const start = from ?? TRAIL_START;
  const [row] = await tenant.query<{
    last: Omit<Checked, 'total'> | null;
    broken: BrokenLink | null;
    more: boolean;
    total: number | null;
    head: string | null;
    head_at: string | null;
  }>(CHECK_CHUNK, [start.occurred_at, start.id, start.position, start.hash, limit, from === null]);
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
    workspace_id: tenant.workspaceId,
    valid: !firstBroken,
    entries_checked: row.broken?.position ?? last.position,
    entries_total: last.total,
    head_hash: firstBroken ? null : last.hash,
    first_broken: firstBroken,
  };
  return { report, next };
}

export const auditLogsAdmin: OperatorHandlers<typeof auditLogsLifecycle> = {
  verifyAuditChain: async (ctx, { params, query }) => {
    const from = query.cursor ? decodeCursor(ctx.cursors, params.id, query.cursor) : null;
    const tenant = await ctx.read(params.id);
    let chunk = await checkChunk(tenant, from, query.limit ?? AUDIT_CHAIN_CHUNK);
    // Without a limit, the whole trail in this request: chunk after chunk, one statement each.
    while (chunk.next && query.limit === undefined)
      chunk = await checkChunk(tenant, chunk.next, AUDIT_CHAIN_CHUNK);
    const report: AuditChainReport = {
      ...chunk.report,
      next_cursor: chunk.next ? encodeCursor(ctx.cursors, params.id, chunk.next) : null,
    };
    return JSON.stringify(report);
  },
};
