-- Action plans and their items, alerts and insights (resources.md "Action plan", "Action plan item",
-- "Alert", "Insight"). Primary keys start with workspace_id and children use composite foreign keys, so a
-- row can never point into another workspace.

create table action_plans (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  supplier_id uuid not null,
  assessment_id uuid,
  title text not null,
  -- Free string (risk-data-api.md: its value set is not shown), e.g. open, in_progress, closed.
  status text not null default 'open',
  due_date date,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, supplier_id) references suppliers (workspace_id, id),
  foreign key (workspace_id, assessment_id) references assessments (workspace_id, id)
);
create index action_plans_newest on action_plans (workspace_id, created_at desc, id desc);
create index action_plans_supplier on action_plans (workspace_id, supplier_id, created_at desc, id desc);

create table action_plan_items (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  action_plan_id uuid not null,
  title text not null,
  description text,
  status text not null default 'pending'
    check (status in ('pending', 'in_progress', 'completed', 'overdue', 'not_applicable', 'rejected')),
  due_date date,
  completed_at timestamptz,
  -- The item's own control, resolved for display; the catalogue itself is never exposed.
  control_code text,
  control_title text,
  -- [{at, from_status, to_status, note, actor_id}], oldest first: appended by each change.
  history jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, action_plan_id) references action_plans (workspace_id, id)
);
-- The items of one plan in their list order (due date, then id).
create index action_plan_items_plan on action_plan_items (workspace_id, action_plan_id, due_date, id);
-- The management API addresses an item by its id alone. Not unique: imported ids are unique per workspace.
create index action_plan_items_id on action_plan_items (id);

create table alerts (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  scope text not null check (scope in ('supplier', 'org')),
  supplier_id uuid,
  severity text not null check (severity in ('critical', 'high', 'medium', 'low')),
  title text not null,
  body text not null,
  resolved_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, supplier_id) references suppliers (workspace_id, id),
  -- A supplier alert names its supplier; an organizational alert names none.
  check ((scope = 'supplier') = (supplier_id is not null))
);
-- GET /alerts reads each scope newest first, up to `limit` rows per scope (decision 15).
create index alerts_scope_newest on alerts (workspace_id, scope, created_at desc, id desc);

create table insights (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  category text not null,
  severity text not null,
  title text not null,
  body text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id)
);
create index insights_newest on insights (workspace_id, created_at desc, id desc);

-- GET /audit-logs?actor_id=…: one actor's entries in feed order (the feed itself uses audit_logs_feed).
create index audit_logs_actor on audit_logs (workspace_id, actor_id, occurred_at, id);
