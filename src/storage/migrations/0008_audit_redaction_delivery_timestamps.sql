-- Audit entries written by earlier versions lose what the audit:read scope may not see (docs/decisions.md
-- P72): the endpoint URL of webhook_endpoint.created (its query may hold the receiver's token), the note of
-- an action plan item change (free text, readable with action_plans:read only) and the new workspace name of
-- workspace.updated, whose `changes` becomes the list of changed fields, as the service now writes it.
-- Webhook delivery attempts gain `updated_at` and are listed newest first by `created_at`, then `id` (P74).
-- Every statement can run again without effect.

update audit_logs set metadata = metadata - 'url'
 where action = 'webhook_endpoint.created' and metadata ? 'url';

update audit_logs set metadata = metadata - 'note'
 where action in ('action_plan_item.status_changed', 'action_plan_item.note_added') and metadata ? 'note';

update audit_logs
   set metadata = (metadata - 'changes')
       || jsonb_build_object('changes', (select coalesce(jsonb_agg(field order by field), '[]'::jsonb)
                                          from jsonb_object_keys(metadata -> 'changes') as field))
       || jsonb_strip_nulls(jsonb_build_object('plan', metadata -> 'changes' -> 'plan',
                                               'assessment_quota', metadata -> 'changes' -> 'assessment_quota'))
 where action = 'workspace.updated' and jsonb_typeof(metadata -> 'changes') = 'object';

-- The last change of an existing attempt is not known: its claim (attempted_at) once it was claimed, never
-- before its creation nor in the future (a pending attempt's attempted_at is its due time).
alter table webhook_deliveries add column if not exists updated_at timestamptz;
update webhook_deliveries set updated_at = greatest(created_at, least(attempted_at, now()))
 where updated_at is null;
alter table webhook_deliveries alter column updated_at set default now();
alter table webhook_deliveries alter column updated_at set not null;

drop index if exists webhook_deliveries_newest;
create index if not exists webhook_deliveries_created on webhook_deliveries (workspace_id, created_at desc, id desc);
