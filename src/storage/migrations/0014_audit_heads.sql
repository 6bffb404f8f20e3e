-- Each workspace's audit chain gets a head row (docs/decisions.md P99): the instant, hash and previous hash of
-- its last entry in feed order (-infinity and nulls before its first). An entry is appended by one statement that
-- updates the head and inserts the entry from what the update returns (src/storage/audit.ts). The head's row
-- lock replaces the workspace's advisory lock, and the head replaces the lookup of the previous entry: under
-- READ COMMITTED an update that waited for the lock works on the head as the writer before it committed it, so
-- the chain never forks and entries are stamped in commit order.
create table audit_heads (
  workspace_id uuid primary key references workspaces (id) on delete cascade,
  occurred_at timestamptz not null default '-infinity',
  hash text,
  previous_hash text
);

insert into audit_heads (workspace_id, occurred_at, hash, previous_hash)
select w.id, coalesce(last.occurred_at, '-infinity'), last.hash, last.previous_hash
  from workspaces w
  left join lateral (
    select a.occurred_at, a.hash, a.previous_hash from audit_logs a where a.workspace_id = w.id
     order by a.occurred_at desc, a.id desc limit 1
  ) last on true;

-- Every workspace has its head from the start, so appending is a plain update.
create function audit_head_create() returns trigger
  language plpgsql
  as $$
  begin
    insert into audit_heads (workspace_id) values (new.id);
    return null;
  end
  $$;

create trigger workspaces_audit_head after insert on workspaces
  for each row execute function audit_head_create();

drop function audit_append(uuid, uuid, text, text, uuid, text, uuid, text, text);

-- Chains a workspace's entries again from the first one at or after `p_from`, in feed order: after an import
-- has written entries with their own instants among the stored ones (P98). The head is locked first, so no entry
-- is appended meanwhile, and left naming the last entry.
create or replace function audit_rechain(p_workspace uuid, p_from timestamptz) returns void
  language plpgsql volatile
  as $$
  declare
    previous text;
    entry record;
    ids uuid[] := '{}';
    hashes text[] := '{}';
    previouses text[] := '{}';
  begin
    perform 1 from audit_heads h where h.workspace_id = p_workspace for update;
    select a.hash into previous from audit_logs a
     where a.workspace_id = p_workspace and a.occurred_at < p_from
     order by a.occurred_at desc, a.id desc limit 1;
    for entry in
      select a.id, a.occurred_at, a.action, a.actor_type, a.actor_id, a.target_type, a.target_id, a.request_id,
             audit_canonical_json(a.metadata) as metadata, a.created_at
        from audit_logs a where a.workspace_id = p_workspace and a.occurred_at >= p_from
       order by a.occurred_at, a.id
    loop
      ids := array_append(ids, entry.id);
      previouses := array_append(previouses, previous);
      previous := audit_entry_hash(entry.id, entry.occurred_at, entry.action, entry.actor_type, entry.actor_id,
                                   entry.target_type, entry.target_id, entry.request_id, entry.metadata,
                                   entry.created_at, previous);
      hashes := array_append(hashes, previous);
    end loop;
    update audit_logs a set hash = chained.hash, previous_hash = chained.previous_hash
      from unnest(ids, hashes, previouses) as chained (id, hash, previous_hash)
     where a.workspace_id = p_workspace and a.id = chained.id;
    -- The head names the last entry.
    update audit_heads h set occurred_at = coalesce(last.occurred_at, '-infinity'), hash = last.hash,
                             previous_hash = last.previous_hash
      from (select 1) as one
      left join lateral (
        select a.occurred_at, a.hash, a.previous_hash from audit_logs a where a.workspace_id = p_workspace
         order by a.occurred_at desc, a.id desc limit 1
      ) last on true
     where h.workspace_id = p_workspace;
  end
  $$;
