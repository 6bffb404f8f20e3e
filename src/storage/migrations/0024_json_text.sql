-- The JSON text of every stored document that pages serve, kept beside the document as PostgreSQL writes it, so
-- that a read copies text instead of converting jsonb on every row (FieldSpec.jsonText, P237). jsonb's text is
-- what to_json(document)::text gives, byte for byte (test/cross-cutting/serialization.test.ts). Adding a stored
-- generated column rewrites each table once, under its lock.
alter table suppliers
  add column contacts_json text generated always as (contacts::text) stored,
  add column onboarding_data_json text generated always as (onboarding_data::text) stored;
alter table assets add column cloud_metadata_json text generated always as (cloud_metadata::text) stored;
alter table audit_logs add column metadata_json text generated always as (metadata::text) stored;
alter table gaps add column evidence_json text generated always as (evidence::text) stored;
alter table action_plan_items add column history_json text generated always as (history::text) stored;
