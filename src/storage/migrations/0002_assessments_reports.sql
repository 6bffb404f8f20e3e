-- Assessments, their gaps, and reports (risk-data-api.md "Assessments", "Reports"; resources.md).
-- The assessments and gaps tables come from 0001; this adds their value checks and list indexes, and the
-- reports table.

-- Enumerations of risk-data-api.md, enforced where the data lives: the API and the import validate first,
-- these make any other writer fail loudly instead of storing a value no client can parse.
alter table assessments
  add constraint assessments_status check (status in ('draft', 'sent', 'in_progress', 'paused', 'completed', 'expired')),
  add constraint assessments_type check (assessment_type in ('self', 'supplier')),
  add constraint assessments_decision check (decision in ('approved', 'approved_with_caveats', 'rejected')),
  add constraint assessments_validity check (validity_days > 0);

-- The quota count (decision 11) reads the API-created supplier assessments of one workspace.
create index assessments_quota on assessments (workspace_id) where via_api and assessment_type = 'supplier';

alter table gaps add constraint gaps_severity check (severity in ('low', 'medium', 'high'));

-- GET /assessments/{id}/gaps serves every gap of one assessment ordered by control code in plain byte order
-- (decision 38): the index matches that collation, whatever the database default is.
create index gaps_by_code on gaps (workspace_id, assessment_id, control_code collate "C");

create table reports (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  supplier_id uuid not null,
  assessment_id uuid,
  title text not null,
  report_type text not null,
  narrative text not null default '',
  generated_at timestamptz not null default now(),
  -- Where the rendered PDF is stored (services.objects); null until rendered. Never leaves the server: the
  -- public API derives `pdf_status` from it and hands out signed URLs that encrypt it.
  pdf_object_key text,
  pdf_rendered_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, supplier_id) references suppliers (workspace_id, id),
  -- MATCH SIMPLE: a report without an assessment (assessment_id null) is not checked.
  foreign key (workspace_id, assessment_id) references assessments (workspace_id, id)
);
-- List order of GET /reports: generation time, newest first (ties on id, decision 38).
create index reports_newest on reports (workspace_id, generated_at desc, id desc);
create index reports_supplier on reports (workspace_id, supplier_id, generated_at desc, id desc);
create index reports_assessment on reports (workspace_id, assessment_id, generated_at desc, id desc);
