-- The JSON text of every stored document that pages serve as text columns, kept beside the document as
-- PostgreSQL writes it, so that a read copies text instead of converting jsonb on every row (FieldSpec.keptText,
-- P237). jsonb's text is what to_json(document)::text gives, byte for byte (test/cross-cutting/
-- serialization.test.ts). Adding a stored generated column rewrites each table once, under its lock. Gaps and
-- action plan items are served as JSON that PostgreSQL builds (one aggregate per answer), which reads the
-- document itself: no text is kept there.
alter table suppliers
  add column contacts_json text generated always as (contacts::text) stored,
  add column onboarding_data_json text generated always as (onboarding_data::text) stored;
alter table assets add column cloud_metadata_json text generated always as (cloud_metadata::text) stored;
alter table audit_logs add column metadata_json text generated always as (metadata::text) stored;
