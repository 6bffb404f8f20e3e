-- Assets (bulk-upserted through PUT /assets) and the business context: business processes, products and
-- services, processing activities, business impact analyses and threats (risk-data-api.md "Assets",
-- "Context"; resources.md). Enumerated values are checked at the boundaries (API and import), as for suppliers.

create table assets (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  external_id text not null,
  name text not null,
  asset_type text not null,
  technical_criticality text,
  exposure text,
  region text,
  cloud_metadata jsonb not null default '{}',
  source text not null,
  cloud_provider text,
  review_status text not null default 'discovered',
  -- The identity PUT /assets matches items on: (source, cloud_provider, external_id), with a manual asset's
  -- null provider taking part like a value. Neither part before the last can hold '|', so the key is
  -- unambiguous. A plain column (not an expression index) so that the import's uniqueness check can name it.
  match_key text generated always as (source || '|' || coalesce(cloud_provider, '') || '|' || external_id) stored,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  -- A manual asset has no cloud provider; a cloud asset always has one.
  check ((source = 'manual') = (cloud_provider is null))
);
create unique index assets_match_key on assets (workspace_id, match_key);
create index assets_newest on assets (workspace_id, created_at desc, id desc);
-- POST /admin/assets/{id}/confirm finds an asset by id alone. Not unique: seeded or imported ids may repeat
-- across workspaces (the primary key is per workspace).
create index assets_id on assets (id);

create table business_processes (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  name text not null,
  description text,
  -- The organisational area the process belongs to; areas are not a resource of the API.
  area_id uuid,
  area_name text,
  criticality text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id)
);
create index business_processes_newest on business_processes (workspace_id, created_at desc, id desc);

create table products_services (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  name text not null,
  type text,
  description text,
  criticality text,
  annual_revenue numeric(16, 2),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id)
);
create index products_services_newest on products_services (workspace_id, created_at desc, id desc);

create table processing_activities (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  name text not null,
  purpose text,
  legal_basis text,
  data_categories text[] not null default '{}',
  is_sensitive_data boolean not null default false,
  retention_period text,
  owner_name text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id)
);
create index processing_activities_newest on processing_activities (workspace_id, created_at desc, id desc);

create table bia (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  product_service_id uuid not null,
  rto_hours numeric(12, 2),
  rpo_hours numeric(12, 2),
  mtpd_hours numeric(12, 2),
  financial_impact_per_day numeric(16, 2),
  resulting_criticality text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, product_service_id) references products_services (workspace_id, id)
);
create index bia_newest on bia (workspace_id, created_at desc, id desc);
create index bia_product_service on bia (workspace_id, product_service_id);

create table threats (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  title text not null,
  description text,
  severity text not null,
  status text not null default 'open',
  source text not null default 'manual',
  cve_id text,
  mitre_technique_id text,
  asset_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, asset_id) references assets (workspace_id, id)
);
create index threats_newest on threats (workspace_id, created_at desc, id desc);
create index threats_asset on threats (workspace_id, asset_id) where asset_id is not null;
