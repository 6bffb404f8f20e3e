-- Run: createdb i28_search_plan && psql -d i28_search_plan -f bench/supplier-search-plan.sql (P160).
-- Plan of GET /suppliers?q= on PostgreSQL: 200,000 suppliers in 20 workspaces, the predicate as the handler
-- sends it (a bound parameter), with the indexes of migration 0019.
drop table if exists s;
create table s (workspace_id uuid not null, id uuid not null, name text not null, domain text,
  created_at timestamptz not null default now(), primary key (workspace_id, id));
insert into s select ('00000000-0000-4000-8000-' || lpad((g % 20)::text, 12, '0'))::uuid, gen_random_uuid(),
  'Supplier ' || md5(g::text), md5(g::text) || '.example', now() - g * interval '1 minute'
  from generate_series(1, 200000) g;
create index s_newest on s (workspace_id, created_at desc, id desc);
create index s_name_prefix on s (workspace_id, lower(name) text_pattern_ops);
create index s_domain_prefix on s (workspace_id, lower(domain) text_pattern_ops);
analyze s;
prepare q(uuid, text, int) as
  select id from s t where t.workspace_id = $1
    and (lower(t.name) like (replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%')
      or lower(t.domain) like (replace(replace(replace(lower($2::text), '\', '\\'), '%', '\%'), '_', '\_') || '%'))
  order by t.created_at desc, t.id desc limit $3;
explain (analyze, costs off, timing on) execute q('00000000-0000-4000-8000-000000000007', 'Supplier a1', 51);
explain (analyze, costs off, timing on) execute q('00000000-0000-4000-8000-000000000007', 'a1b', 51);
drop table s;
