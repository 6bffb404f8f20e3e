-- Risks: the register, its treatments and acceptance letters, and the workspace's score history
-- (resources.md "Risk", "Risk treatment", "Risk scores", "Risk acceptance letter").
-- A risk's score (likelihood x impact) and band are computed when read, never stored.

-- resources.md "Risk": low <= 4 < medium <= 9 < high <= 16 < critical. One definition, used by the risk list,
-- the matrix (rows and the risk_band filter) and, scaled, by the workspace score (see /risk-scores).
create function risk_band(score numeric) returns text
  language sql immutable parallel safe
  as $$ select case when score <= 4 then 'low' when score <= 9 then 'medium' when score <= 16 then 'high'
                    else 'critical' end $$;

create table risks (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  -- Byte order, the same on every database (decision 38): the matrix breaks score ties on it.
  code text collate "C" not null,
  title text not null,
  description text,
  risk_type text not null,
  status text not null default 'open',
  category text not null,
  source_domain text not null,
  supplier_id uuid,
  -- The asset and threat a cyber risk is about (risk matrix rows).
  asset_id uuid,
  threat_id uuid,
  likelihood smallint not null check (likelihood between 1 and 5),
  impact smallint not null check (impact between 1 and 5),
  financial_exposure numeric(16, 2),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, supplier_id) references suppliers (workspace_id, id),
  foreign key (workspace_id, asset_id) references assets (workspace_id, id),
  foreign key (workspace_id, threat_id) references threats (workspace_id, id),
  unique (workspace_id, code)
);
create index risks_newest on risks (workspace_id, created_at desc, id desc);
create index risks_supplier on risks (workspace_id, supplier_id);
-- GET /risk-matrix, one index per scope: highest score first, then code; closed risks never appear.
create index risks_matrix_cyber on risks (workspace_id, (likelihood * impact) desc, code)
  where status <> 'closed' and source_domain = 'cyber';
create index risks_matrix_organizational on risks (workspace_id, (likelihood * impact) desc, code)
  where status <> 'closed' and source_domain <> 'cyber';

create table risk_treatments (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  risk_id uuid not null,
  strategy text not null,
  description text,
  status text not null default 'planned',
  cost numeric(16, 2),
  due_date date,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, risk_id) references risks (workspace_id, id)
);
create index risk_treatments_of_risk on risk_treatments (workspace_id, risk_id, created_at desc, id desc);

-- The workspace's overall score over time (0-100). The public shape is {at, score}: the id exists only so
-- the row has a key, and is generated here because imported points carry none.
create table risk_score_points (
  workspace_id uuid not null references workspaces (id),
  id uuid not null default gen_random_uuid(),
  at timestamptz not null,
  score smallint not null check (score between 0 and 100),
  created_at timestamptz not null default now(),
  primary key (workspace_id, id)
);
create index risk_score_points_series on risk_score_points (workspace_id, at, id);

create table risk_acceptances (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  risk_id uuid not null,
  status text not null default 'active',
  justification text,
  accepted_exposure numeric(16, 2),
  valid_from timestamptz not null,
  -- Exclusive end; the import refuses a letter that ends before it starts (422) before this check is met.
  valid_until timestamptz not null check (valid_until > valid_from),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, risk_id) references risks (workspace_id, id)
);
create index risk_acceptances_newest on risk_acceptances (workspace_id, created_at desc, id desc);
