-- Functions of the hot read paths in forms PostgreSQL inlines into the statements that use them, so that a
-- prepared statement plans them once (measured with `npm run bench`; docs/decisions.md).

-- to_char is stable, so iso() is too. Declared immutable, it could not be inlined: every instant went through
-- the SQL-function machinery, about twice the cost of the expression itself.
create or replace function iso(ts timestamptz) returns text
  language sql stable parallel safe
  as $$ select to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;

-- The key of a live request: one row with its workspace when the key is neither revoked nor expired and the
-- workspace is on Enterprise, else none (storage/tenant.ts). A table function, because a scalar function
-- whose body reads tables is never inlined: its query was planned again in every statement that used it.
drop function live_workspace(uuid, uuid);
create function live_workspace(p_key uuid, p_workspace uuid) returns table (workspace_id uuid)
  language sql stable parallel safe
  as $$
    select k.workspace_id from api_keys k join workspaces w on w.id = k.workspace_id
    where k.id = p_key and k.workspace_id = p_workspace and k.revoked_at is null
      and (k.expires_at is null or k.expires_at > now()) and w.plan = 'enterprise'
  $$;
