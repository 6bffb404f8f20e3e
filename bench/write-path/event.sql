-- The supplier.created event now (P229): stamped and stored by one statement, sent in the pipeline with the insert
-- and the audit entry, which also reads the endpoints subscribed to it; the fan-out's own statement runs only when
-- there is one (here none: the endpoint of setup.sql takes alert.created).
with stamp as materialized (
  update audit_heads
     set events_at = greatest(clock_timestamp(), events_at + interval '1 microsecond')
   where workspace_id = '00000000-0000-4000-8000-000000000001'
  returning events_at as at),
event as (
  insert into events (workspace_id, id, type, occurred_at, payload, test)
  select '00000000-0000-4000-8000-000000000001'::uuid, gen_random_uuid(), 'supplier.created'::text, stamp.at,
         repeat('e', 100)::text || '"' || iso(stamp.at) || '"' || repeat('e', 112)::text, false::boolean from stamp
  returning occurred_at),
subscribed as (
  select coalesce(array_agg(e.id), '{}') as ids from webhook_endpoints e
   where e.workspace_id = '00000000-0000-4000-8000-000000000001' and e.enabled and 'supplier.created' = any (e.events))
select iso(event.occurred_at) as occurred_at, subscribed.ids::text[] as subscribed from event, subscribed;
