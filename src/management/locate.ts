// Management actions address a record by id alone (/admin/assessments/{id}/…, /admin/assets/{id}/…), but
// tenant tables are keyed by (workspace_id, id) and an import may give records of two workspaces the same id
// (the seed generator is deterministic). The action then needs the workspace to be named.
import { conflict, notFound } from '../contract/errors.js';
import type { Queryable } from '../storage/db.js';

/** 409 for an id that several workspaces hold, when the request names none of them. */
export const ambiguousId = (what: string) =>
  conflict(`Several workspaces hold a ${what} with this id: name one with workspace_id.`, {
    reason: 'ambiguous_id',
  });

/** The workspace holding `id` in `table`; 404 when none, 409 `ambiguous_id` when several and none named. */
export async function locateWorkspace(
  q: Queryable,
  table: 'assessments' | 'reports' | 'assets',
  id: string,
  what: string,
  workspaceId?: string,
): Promise<string> {
  const rows = await q.query<{ workspace_id: string }>(
    `select workspace_id from ${table} where id = $1 and ($2::uuid is null or workspace_id = $2) limit 2`,
    [id, workspaceId ?? null],
  );
  const [first, second] = rows;
  if (!first) throw notFound(what);
  if (second) throw ambiguousId(what);
  return first.workspace_id;
}
