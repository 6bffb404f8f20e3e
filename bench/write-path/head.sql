-- POST /v1/suppliers with an Idempotency-Key, up to its event: the statements of one request in order, as
-- PostgreSQL's log shows them (the pipeline sends some together). run.sh puts an event's file and tail.sql after it.
\set n random(1, 2000000000)
begin;
select 1 from live_workspace('00000000-0000-4000-8000-000000000003'::uuid, '00000000-0000-4000-8000-000000000001'::uuid);
select pg_try_advisory_xact_lock(hashtextextended('00000000-0000-4000-8000-000000000001|createSupplier|' || :n, 7349)) as acquired;
select request_hash, response_status, response_body, response_body_without_pii from idempotency_keys
 where workspace_id = '00000000-0000-4000-8000-000000000001' and endpoint = 'createSupplier' and key = 'k' || :n
   and created_at > now() - interval '24 hours';
savepoint idempotent_work;
insert into suppliers as t (workspace_id, id, name, domain, email, industry, size, country, criticality, risk_group, vendor_profile, tags, source, status)
  values ('00000000-0000-4000-8000-000000000001'::uuid, gen_random_uuid(), 'Bench Supplier ' || :n, 'bench-' || :n || '.example', null, 'Technology', null, 'US', 'medium', null, null, '{soc2,cloud}'::text[], 'api', 'pending')
  on conflict (workspace_id, domain) where domain is not null do nothing
  returning t.id::text, t.name::text, t.domain::text, t.industry::text, t.size::text, t.country::text, t.status::text, to_json(((t.status = 'active')))::text, t.criticality::text, t.risk_group::text, t.vendor_profile::text, to_json(t.tags)::text, t.source::text, to_json(trim_scale(t.annual_spend::numeric))::text, iso(t.created_at), iso(t.updated_at), t.email::text, to_json(t.contacts)::text, to_json(t.onboarding_data)::text, t.id::text, t.name::text, t.domain::text, t.industry::text, t.size::text, t.country::text, t.status::text, to_json(((t.status = 'active')))::text, t.criticality::text, t.risk_group::text, t.vendor_profile::text, to_json(t.tags)::text, t.source::text, to_json(trim_scale(t.annual_spend::numeric))::text, iso(t.created_at), iso(t.updated_at);
with head as (
  update audit_heads h
     set occurred_at = greatest(statement_timestamp(), h.occurred_at + interval '1 microsecond'),
         previous_hash = h.hash,
         hash = encode(sha256(convert_to(concat(
                  '{"action":"supplier.created","actor_id":"00000000-0000-4000-8000-000000000002","actor_type":"user","created_at":"', iso(now()),
                  '","id":"' || :n || '","metadata":{"api_key_id":"00000000-0000-4000-8000-000000000003"},"occurred_at":"', iso(greatest(statement_timestamp(), h.occurred_at + interval '1 microsecond')),
                  '","previous_hash":', coalesce('"' || h.hash || '"', 'null'),
                  ',"request_id":"00000000-0000-4000-8000-000000000005","target_id":"00000000-0000-4000-8000-000000000006","target_type":"supplier"}'), 'UTF8')), 'hex')
   where h.workspace_id = '00000000-0000-4000-8000-000000000001'
  returning h.occurred_at, h.hash, h.previous_hash
)
insert into audit_logs (workspace_id, id, action, actor_type, actor_id, target_type, target_id, request_id,
                        metadata, occurred_at, created_at, hash, previous_hash)
select '00000000-0000-4000-8000-000000000001', gen_random_uuid(), 'supplier.created', 'user', '00000000-0000-4000-8000-000000000002',
       'supplier', '00000000-0000-4000-8000-000000000006', '00000000-0000-4000-8000-000000000005',
       '{"api_key_id":"00000000-0000-4000-8000-000000000003"}'::text::jsonb, head.occurred_at, now(), head.hash, head.previous_hash
  from head
returning 1;
