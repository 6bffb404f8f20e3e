-- Foundation: service settings, workspaces and their people, keys, webhook endpoints, suppliers,
-- audit trail, idempotency records and the event outbox.
-- Every tenant table's primary key starts with workspace_id; children use composite foreign keys,
-- so a row can never point into another workspace.

create table service_settings (
  name text primary key,
  value text not null
);

-- Instants leave the database in one fixed form with microseconds, e.g. 2024-05-01T09:30:00.123456Z.
create function iso(ts timestamptz) returns text
  language sql immutable parallel safe
  as $$ select to_char(ts at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') $$;

create table workspaces (
  id uuid primary key,
  name text not null,
  plan text not null check (plan in ('enterprise', 'business', 'starter')),
  assessment_quota integer not null default 100 check (assessment_quota >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table users (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  name text not null,
  email text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id)
);
create unique index users_id on users (id);

create table api_keys (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  name text not null,
  prefix text not null,
  secret_hash bytea not null,
  scopes text[] not null,
  created_by uuid not null,
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, created_by) references users (workspace_id, id)
);
create unique index api_keys_secret_hash on api_keys (secret_hash);
create unique index api_keys_id on api_keys (id);

-- The key of a live request: its workspace when the key is neither revoked nor expired and the workspace is
-- on Enterprise, else null. Tenant queries filter on it, so a cached authentication can never outlive a
-- revocation or a downgrade (storage/tenant.ts).
create function live_workspace(p_key uuid, p_workspace uuid) returns uuid
  language sql stable parallel safe
  as $$
    select k.workspace_id from api_keys k join workspaces w on w.id = k.workspace_id
    where k.id = p_key and k.workspace_id = p_workspace and k.revoked_at is null
      and (k.expires_at is null or k.expires_at > now()) and w.plan = 'enterprise'
  $$;

create table webhook_endpoints (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  url text not null,
  description text,
  events text[] not null,
  enabled boolean not null default true,
  -- Needed in clear to sign deliveries (HMAC key); never returned after registration.
  signing_secret text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id)
);
create unique index webhook_endpoints_id on webhook_endpoints (id);

create table suppliers (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  name text not null,
  domain text,
  industry text,
  size text,
  country text,
  status text not null default 'pending',
  criticality text,
  risk_group text,
  vendor_profile text,
  tags text[] not null default '{}',
  source text not null default 'import',
  email text,
  contacts jsonb not null default '[]',
  onboarding_data jsonb,
  annual_spend numeric(16, 2),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id)
);
create unique index suppliers_domain on suppliers (workspace_id, domain) where domain is not null;
create index suppliers_newest on suppliers (workspace_id, created_at desc, id desc);
create index suppliers_tags on suppliers using gin (tags);

create table audit_logs (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  occurred_at timestamptz not null default now(),
  action text not null,
  actor_type text not null check (actor_type in ('user', 'api_key', 'system')),
  actor_id uuid,
  target_type text,
  target_id uuid,
  request_id text,
  metadata jsonb not null default '{}',
  created_at timestamptz not null default now(),
  primary key (workspace_id, id)
);
create index audit_logs_feed on audit_logs (workspace_id, occurred_at, id);

create table idempotency_keys (
  workspace_id uuid not null references workspaces (id),
  endpoint text not null,
  key text not null,
  request_hash text not null,
  response_status integer not null,
  response_body text not null,
  created_at timestamptz not null default now(),
  primary key (workspace_id, endpoint, key)
);
create index idempotency_keys_age on idempotency_keys (created_at);

-- The outbox: an event is written in the same transaction as the change that caused it.
create table events (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  type text not null,
  occurred_at timestamptz not null default now(),
  payload text not null,
  primary key (workspace_id, id)
);

create table assessments (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  supplier_id uuid not null,
  assessment_type text not null,
  status text not null default 'draft',
  decision text,
  vendor_profile text,
  score numeric(5, 2),
  deadline timestamptz,
  validity_days integer not null default 365,
  sent_at timestamptz,
  completed_at timestamptz,
  contract_value numeric(16, 2),
  -- Set once, when the assessment first enters completed: assessment.completed is emitted once, ever.
  completion_emitted_at timestamptz,
  -- Created through the API: supplier assessments count against the workspace quota (decision 11).
  via_api boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, supplier_id) references suppliers (workspace_id, id)
);
create index assessments_supplier on assessments (workspace_id, supplier_id);
create index assessments_newest on assessments (workspace_id, created_at desc, id desc);

create table gaps (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  assessment_id uuid not null,
  control_code text not null,
  control_title text not null,
  gap_description text,
  domain text,
  status text not null,
  severity text not null,
  evidence_status text not null default 'missing',
  evidence jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, assessment_id) references assessments (workspace_id, id),
  unique (workspace_id, assessment_id, control_code)
);
