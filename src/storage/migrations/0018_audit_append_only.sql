-- The audit chain is append-only (docs/decisions.md P102): the service never hashes an entry it has chained
-- again. audit_rechain, which chained an import's entries among the stored ones and so rewrote the hash of every
-- later entry, is gone; an import appends its entries after the workspace's head through the function below,
-- or is refused. (A later migration that had to rechain would be the one exception, and would say so in the
-- trail it rewrites.)
drop function audit_rechain(uuid, timestamptz);

-- Appends entries brought from outside (an Import document's audit_logs, the bench's dataset) to a workspace's
-- chain, in one call under its head's lock. `p_entries` is a JSON array of entries with the public field names
-- (`hash` and `previous_hash` are not read; `id` and `action` are required).
--
-- An entry with `occurred_at` must come after the trail's last entry in feed order: a later instant, or the same
-- instant and a greater id. In an empty trail (the head at -infinity) any instant does. When one does not,
-- nothing is written and the answer is {"refused": [0-based indexes into p_entries], "last_occurred_at",
-- "last_id"}. Otherwise the entries with an instant are appended in feed order, then those without one in their
-- order, each stamped as the service stamps its own (strictly after the head); `created_at` defaults to the
-- transaction's start. Each entry is hashed as the verifiers recompute it (audit_entry_hash over the canonical
-- metadata), the head moves to the last one, and the answer is {"head_before", "head_after", "imported_from",
-- "imported_to"} (the first and last instants appended, null when none), which workspace.data_imported records.
create function audit_append_imported(p_workspace uuid, p_entries json) returns json
  language plpgsql volatile
  as $$
  declare
    head audit_heads%rowtype;
    head_before text;
    last_id uuid;
    refused integer[];
    entry record;
    stamped timestamptz;
    created timestamptz;
    first_at timestamptz;
    ids uuid[] := '{}';
    stamps timestamptz[] := '{}';
    creations timestamptz[] := '{}';
    hashes text[] := '{}';
    previouses text[] := '{}';
  begin
    select * into head from audit_heads h where h.workspace_id = p_workspace for update;
    if not found then
      raise exception 'Workspace % has no audit chain head', p_workspace;
    end if;
    head_before := head.hash;
    -- The last entry in feed order is the greatest id at the head's instant. None (a trail whose end was
    -- deleted) refuses every entry at that instant.
    select a.id into last_id from audit_logs a
     where a.workspace_id = p_workspace and a.occurred_at = head.occurred_at
     order by a.id desc limit 1;
    select array_agg(e.n - 1 order by e.n) into refused
      from rows from (json_to_recordset(p_entries) as (id uuid, occurred_at timestamptz)) with ordinality
           as e (id, occurred_at, n)
     where (e.occurred_at, e.id) <= (head.occurred_at, coalesce(last_id, 'ffffffff-ffff-ffff-ffff-ffffffffffff'));
    if refused is not null then
      return json_build_object('refused', refused,
                               'last_occurred_at', case when isfinite(head.occurred_at) then iso(head.occurred_at) end,
                               'last_id', last_id);
    end if;
    -- Only the hashing is sequential (each needs the one before): the hashes are collected in arrays and the
    -- entries written by one INSERT.
    for entry in
      select e.* from rows from (json_to_recordset(p_entries) as (
               id uuid, occurred_at timestamptz, created_at timestamptz, action text, actor_type text, actor_id uuid,
               target_type text, target_id uuid, request_id text, metadata jsonb)) with ordinality
             as e (id, occurred_at, created_at, action, actor_type, actor_id, target_type, target_id, request_id,
                   metadata, n)
       -- Feed order for those with an instant; the others last, in their order.
       order by e.occurred_at nulls last, case when e.occurred_at is not null then e.id end, e.n
    loop
      stamped := coalesce(entry.occurred_at,
                          greatest(statement_timestamp(), head.occurred_at + interval '1 microsecond'));
      created := coalesce(entry.created_at, now());
      ids := array_append(ids, entry.id);
      stamps := array_append(stamps, stamped);
      creations := array_append(creations, created);
      previouses := array_append(previouses, head.hash);
      head.previous_hash := head.hash;
      head.hash := audit_entry_hash(entry.id, stamped, entry.action, entry.actor_type, entry.actor_id,
                                    entry.target_type, entry.target_id, entry.request_id,
                                    audit_canonical_json(coalesce(entry.metadata, '{}')), created, head.previous_hash);
      hashes := array_append(hashes, head.hash);
      head.occurred_at := stamped;
      first_at := coalesce(first_at, stamped);
    end loop;
    insert into audit_logs (workspace_id, id, action, actor_type, actor_id, target_type, target_id, request_id,
                            metadata, occurred_at, created_at, hash, previous_hash)
    select p_workspace, e.id, e.action, e.actor_type, e.actor_id, e.target_type, e.target_id, e.request_id,
           coalesce(e.metadata, '{}'), chained.occurred_at, chained.created_at, chained.hash, chained.previous_hash
      from json_to_recordset(p_entries) as e (id uuid, action text, actor_type text, actor_id uuid, target_type text,
                                              target_id uuid, request_id text, metadata jsonb)
      join unnest(ids, stamps, creations, hashes, previouses)
           as chained (id, occurred_at, created_at, hash, previous_hash) on chained.id = e.id;
    update audit_heads h set occurred_at = head.occurred_at, hash = head.hash, previous_hash = head.previous_hash
     where h.workspace_id = p_workspace;
    return json_build_object('head_before', head_before, 'head_after', head.hash,
                             'imported_from', iso(first_at),
                             'imported_to', case when first_at is not null then iso(head.occurred_at) end);
  end
  $$;
