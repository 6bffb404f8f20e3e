-- Report PDFs live in the database (src/reports/storage.ts), so every process of a fleet serves every signed
-- URL without a shared volume, and a backup of the database is a backup of everything. Keyed by workspace
-- like every tenant table: an object's key names its workspace (`workspaces/<id>/…`).
create table stored_objects (
  workspace_id uuid not null references workspaces (id) on delete cascade,
  key text not null,
  content_type text not null,
  content bytea not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, key)
);
