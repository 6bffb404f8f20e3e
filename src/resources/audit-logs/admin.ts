// GET /admin/workspaces/{id}/audit-chain: the database checks a workspace's audit hash chain (P97) in one scan,
// in feed order, and names the first broken link. The SDK's verifyAuditChain checks the same chain from the
// public feed, with its own implementation of the canonical text (docs/operations.md "Audit verification").
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { type Static, Type } from 'typebox';
import { notFound } from '../../http/errors.js';
import { adminRoute } from '../../management/route.js';
import { DateTime, Nullable, StringEnum, Uuid } from '../../schema/fields.js';
import { Sha256Hex } from './schema.js';

export const AuditChainProblem = ['previous_hash_mismatch', 'hash_mismatch', 'head_mismatch'] as const;

export const AuditChainReport = Type.Object(
  {
    workspace_id: Uuid,
    valid: Type.Boolean({ description: 'Whether every entry of the workspace is linked and unaltered.' }),
    entries_checked: Type.Integer({
      minimum: 0,
      description: 'Entries checked in feed order: all of them, or up to and including the first broken one.',
    }),
    head_hash: Nullable(
      Sha256Hex('The `hash` of the last entry when the chain is valid (null when there is none).'),
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
  },
  { additionalProperties: false, title: 'AuditChainReport' },
);
export type AuditChainReport = Static<typeof AuditChainReport>;

export const auditLogsAdmin = {
  verifyAuditChain: adminRoute({
    method: 'GET',
    url: '/workspaces/:id/audit-chain',
    tag: 'Workspaces',
    summary: "Verify a workspace's audit hash chain and report the first broken link",
    status: 200,
    response: AuditChainReport,
    errors: [404],
    handler: async ({ op }, { params }) => {
      // The head (migration 0014) is the last entry appended: a trail that ends elsewhere lost its end.
      const [workspace] = await op.db.query<{
        total: string;
        last: string | null;
        head: string | null;
        head_at: string | null;
      }>(
        `select (select count(*) from audit_logs a where a.workspace_id = w.id)::text as total,
                (select a.hash from audit_logs a where a.workspace_id = w.id
                  order by a.occurred_at desc, a.id desc limit 1) as last,
                h.hash as head, case when isfinite(h.occurred_at) then iso(h.occurred_at) end as head_at
           from workspaces w left join audit_heads h on h.workspace_id = w.id
          where w.id = $1`,
        [params.id],
      );
      if (!workspace) throw notFound('workspace');
      // The link is checked before the content: an entry that names the wrong predecessor is reported as such
      // even when its own hash still matches.
      const [broken] = await op.db.query<NonNullable<AuditChainReport['first_broken']>>(
        `select id, iso(occurred_at) as occurred_at, position::int as position,
                case when previous_hash is distinct from expected_previous
                     then 'previous_hash_mismatch' else 'hash_mismatch' end as problem,
                case when previous_hash is distinct from expected_previous
                     then expected_previous else expected_hash end as expected,
                case when previous_hash is distinct from expected_previous
                     then previous_hash else hash end as stored
           from (select a.id, a.occurred_at, a.hash, a.previous_hash,
                        row_number() over feed as position,
                        lag(a.hash) over feed as expected_previous,
                        audit_entry_hash(a.id, a.occurred_at, a.action, a.actor_type, a.actor_id, a.target_type,
                                         a.target_id, a.request_id, audit_canonical_json(a.metadata), a.created_at,
                                         a.previous_hash)
                          as expected_hash
                   from audit_logs a where a.workspace_id = $1
                 window feed as (order by a.occurred_at, a.id)) as chain
          where previous_hash is distinct from expected_previous or hash is distinct from expected_hash
          order by position limit 1`,
        [params.id],
      );
      const total = Number(workspace.total);
      const firstBroken: AuditChainReport['first_broken'] =
        broken ??
        (workspace.head === workspace.last
          ? null
          : {
              id: null,
              position: total + 1,
              occurred_at: workspace.head_at,
              problem: 'head_mismatch',
              expected: workspace.head,
              stored: workspace.last,
            });
      const report: AuditChainReport = {
        workspace_id: params.id,
        valid: !firstBroken,
        entries_checked: broken ? broken.position : total,
        head_hash: firstBroken ? null : workspace.last,
        first_broken: firstBroken,
      };
      return JSON.stringify(report);
    },
  }),
};
