-- The text that pages serve of instants and arrays, kept beside the value as PostgreSQL writes it, as 0024 does
-- for stored documents (FieldSpec.keptText, P248): iso() and to_json() were half of a supplier page's statement.
-- A generated column may only call immutable functions. iso() is declared stable (0007: so that it is inlined),
-- because to_char is: some of its patterns read the locale. Its pattern reads none and names its time zone, so
-- its text depends on the instant alone: iso_kept() is iso() declared immutable (one definition of the format).
-- The same holds for to_json of an array of text.
create or replace function iso_kept(ts timestamptz) returns text
  language sql immutable parallel safe
  as $$ select iso(ts) $$;

create or replace function json_kept(texts text[]) returns text
  language sql immutable parallel safe
  as $$ select to_json(texts)::text $$;

-- Every stored instant and array of a resource that list pages serve (test/cross-cutting/serialization.test.ts
-- holds this list and the fields' keptText to each other). `if not exists`: the chain's migration test applies
-- 0020 and this one again to a database made older.
alter table suppliers
  add column if not exists tags_json text generated always as (json_kept(tags)) stored,
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table assessments
  add column if not exists deadline_iso text generated always as (iso_kept(deadline)) stored,
  add column if not exists sent_at_iso text generated always as (iso_kept(sent_at)) stored,
  add column if not exists completed_at_iso text generated always as (iso_kept(completed_at)) stored,
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table reports
  add column if not exists generated_at_iso text generated always as (iso_kept(generated_at)) stored,
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table assets
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table business_processes
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table products_services
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table processing_activities
  add column if not exists data_categories_json text generated always as (json_kept(data_categories)) stored,
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table bia
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table threats
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table risks
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table risk_acceptances
  add column if not exists valid_from_iso text generated always as (iso_kept(valid_from)) stored,
  add column if not exists valid_until_iso text generated always as (iso_kept(valid_until)) stored,
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table action_plans
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table insights
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table audit_logs
  add column if not exists occurred_at_iso text generated always as (iso_kept(occurred_at)) stored,
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored;
alter table webhook_endpoints
  add column if not exists events_json text generated always as (json_kept(events)) stored,
  add column if not exists failing_since_iso text generated always as (iso_kept(failing_since)) stored,
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
alter table webhook_deliveries
  add column if not exists attempted_at_iso text generated always as (iso_kept(attempted_at)) stored,
  add column if not exists next_retry_at_iso text generated always as (iso_kept(next_retry_at)) stored,
  add column if not exists created_at_iso text generated always as (iso_kept(created_at)) stored,
  add column if not exists updated_at_iso text generated always as (iso_kept(updated_at)) stored;
-- The event log is a view of the events: the text is kept in the table and shown by the view.
alter table events add column if not exists occurred_at_iso text generated always as (iso_kept(occurred_at)) stored;
create or replace view event_log as
  select workspace_id, id, type, occurred_at, payload, occurred_at_iso from events where not test;
