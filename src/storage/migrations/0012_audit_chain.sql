-- The audit trail becomes a hash chain (docs/decisions.md P97, P98; docs/operations.md "Audit verification"):
-- each entry's `hash` is SHA-256 over the canonical text of the entry, which includes `previous_hash`, the hash
-- of the entry before it in the workspace's feed order (null for a workspace's first entry). Existing entries
-- are chained here, per workspace in feed order (occurred_at, then id).

alter table audit_logs add column if not exists hash text;
alter table audit_logs add column if not exists previous_hash text;

-- The canonical JSON of a value: object keys sorted by code point (the bytes of their UTF-8, collation "C"),
-- no whitespace, strings escaped as JSON.stringify escapes them (which is what jsonb's text output does),
-- numbers as decimals without exponent or trailing fractional zeros. Scalars inside an object or array are
-- written inline, so a flat metadata object costs one call. Used to check and rechain stored entries; the
-- write path receives the canonical text from the writer.
create or replace function audit_canonical_json(value jsonb) returns text
  language plpgsql immutable strict parallel safe
  as $$
  begin
    case jsonb_typeof(value)
      when 'object' then
        return '{' || coalesce((
          select string_agg(to_json(member.key)::text || ':' || case jsonb_typeof(member.item)
                   when 'object' then audit_canonical_json(member.item)
                   when 'array' then audit_canonical_json(member.item)
                   when 'number' then trim_scale((member.item #>> '{}')::numeric)::text
                   else member.item::text end,
                 ',' order by member.key collate "C")
            from jsonb_each(value) as member (key, item)), '') || '}';
      when 'array' then
        return '[' || coalesce((
          select string_agg(case jsonb_typeof(element.item)
                   when 'object' then audit_canonical_json(element.item)
                   when 'array' then audit_canonical_json(element.item)
                   when 'number' then trim_scale((element.item #>> '{}')::numeric)::text
                   else element.item::text end,
                 ',' order by element.position)
            from jsonb_array_elements(value) with ordinality as element (item, position)), '') || ']';
      when 'number' then
        return trim_scale((value #>> '{}')::numeric)::text;
      else
        return value::text;
    end case;
  end
  $$;

-- An entry's hash: lowercase hex SHA-256 of the UTF-8 of its canonical text, the canonical JSON object of the
-- eleven fields below (keys in code point order), instants as the API serves them (iso(): microseconds, Z).
-- `p_metadata` is the canonical JSON of the metadata: audit_canonical_json(metadata) when checking a stored
-- entry; on the write path, the text the writer sends, which is also what is stored (audit_append).
-- The verifiers (the admin route, the SDK's verifyAuditChain) recompute exactly this.
create or replace function audit_entry_hash(
  p_id uuid, p_occurred_at timestamptz, p_action text, p_actor_type text, p_actor_id uuid, p_target_type text,
  p_target_id uuid, p_request_id text, p_metadata text, p_created_at timestamptz, p_previous_hash text
) returns text
  language sql stable parallel safe
  as $$
    select encode(sha256(convert_to(
      '{"action":' || to_json(p_action)::text
      || ',"actor_id":' || coalesce(to_json(p_actor_id)::text, 'null')
      || ',"actor_type":' || to_json(p_actor_type)::text
      || ',"created_at":"' || iso(p_created_at) || '"'
      || ',"id":"' || p_id::text || '"'
      || ',"metadata":' || p_metadata
      || ',"occurred_at":"' || iso(p_occurred_at) || '"'
      || ',"previous_hash":' || coalesce(to_json(p_previous_hash)::text, 'null')
      || ',"request_id":' || coalesce(to_json(p_request_id)::text, 'null')
      || ',"target_id":' || coalesce(to_json(p_target_id)::text, 'null')
      || ',"target_type":' || coalesce(to_json(p_target_type)::text, 'null')
      || '}', 'UTF8')), 'hex')
  $$;

-- Appends one entry (src/storage/audit.ts), in one round trip. The writer sends the metadata as canonical
-- JSON (the SDK's canonicalJson, which the server shares), stored as jsonb and hashed as sent: the same value,
-- and no canonicalization in the database on the hot path (P97). Writers of a workspace take its lock first, so
-- entries are chained and stamped in commit order. The function is volatile: under READ COMMITTED each of its
-- statements reads with a snapshot taken after the lock, so it sees the entry committed by the writer that
-- held the lock before (one INSERT … SELECT would read with the snapshot of its start, before the wait).
-- occurred_at is strictly after the previous entry's, so the feed's order (occurred_at, id) is the chain's
-- even when two entries read the same microsecond or the clock steps back (P97).
create or replace function audit_append(
  p_workspace uuid, p_id uuid, p_action text, p_actor_type text, p_actor_id uuid, p_target_type text,
  p_target_id uuid, p_request_id text, p_metadata text
) returns void
  language plpgsql volatile
  as $$
  declare
    prior_hash text;
    prior_at timestamptz;
    stamped timestamptz;
    created timestamptz := now();
  begin
    perform pg_advisory_xact_lock(hashtextextended('audit:' || p_workspace::text, 0));
    select a.hash, a.occurred_at into prior_hash, prior_at
      from audit_logs a where a.workspace_id = p_workspace
     order by a.occurred_at desc, a.id desc limit 1;
    stamped := greatest(clock_timestamp(), prior_at + interval '1 microsecond');
    insert into audit_logs (workspace_id, id, action, actor_type, actor_id, target_type, target_id, request_id,
                            metadata, occurred_at, created_at, hash, previous_hash)
    values (p_workspace, p_id, p_action, p_actor_type, p_actor_id, p_target_type, p_target_id, p_request_id,
            p_metadata::jsonb, stamped, created,
            audit_entry_hash(p_id, stamped, p_action, p_actor_type, p_actor_id, p_target_type, p_target_id,
                             p_request_id, p_metadata, created, prior_hash),
            prior_hash);
  end
  $$;

-- Chains a workspace's entries again from the first one at or after `p_from`, in feed order: after an import
-- has written entries with their own instants among the stored ones (P98), and below for existing entries.
-- Only the hashing is sequential (each needs the one before): the entries are read in one scan, their hashes
-- collected in arrays, and written by one UPDATE.
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
    perform pg_advisory_xact_lock(hashtextextended('audit:' || p_workspace::text, 0));
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
  end
  $$;

select audit_rechain(chained.workspace_id, '-infinity')
  from (select distinct workspace_id from audit_logs where hash is null) as chained;
