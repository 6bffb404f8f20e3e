-- Report PDFs live in the database (src/reports/storage.ts), so every process of a fleet serves every signed
-- URL without a shared volume, and a backup of the database is a backup of everything.
create table stored_objects (
  key text primary key,
  content_type text not null,
  content bytea not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
