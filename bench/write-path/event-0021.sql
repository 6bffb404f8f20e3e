-- The supplier.created event as at migration 0021: stamp, insert and fan-out, three statements awaited in turn.
update audit_heads
   set events_at = greatest(clock_timestamp(), events_at + interval '1 microsecond')
 where workspace_id = '00000000-0000-4000-8000-000000000001'
returning iso(events_at) as occurred_at;
insert into events (workspace_id, id, type, occurred_at, payload, test)
  values ('00000000-0000-4000-8000-000000000001', gen_random_uuid(), 'supplier.created', clock_timestamp(),
          repeat('e', 240), false);
with attempts as (
  insert into webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, attempt, status, attempted_at)
  select e.workspace_id, gen_random_uuid(), e.id, gen_random_uuid(), 'supplier.created', 1, 'pending', clock_timestamp()
    from webhook_endpoints e
   where e.workspace_id = '00000000-0000-4000-8000-000000000001' and e.enabled and 'supplier.created' = any (e.events)
  returning 1)
select pg_notify('tprm_webhook_attempts', '') from (select count(*) as n from attempts) fanned where n > 0;
