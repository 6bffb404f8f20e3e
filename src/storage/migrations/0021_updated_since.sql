-- `updated_since` on every collection whose records change (docs/decisions.md P177-P179): each record's
-- `updated_at` moves on every change, and each collection has an index for the filter.
--
-- Maintained by construction: an UPDATE that leaves `updated_at` as it was gets the transaction's instant
-- (now(), as the handlers that set it themselves use); one that sets `updated_at` keeps its own value. (A
-- trigger's WHEN may not compare the whole row, which holds generated columns: the service's updates change
-- what they touch, and the asset upsert skips the rows it would not change.)
create function touch_updated_at() returns trigger
  language plpgsql
  as $$
  begin
    new.updated_at := now();
    return new;
  end
  $$;

do $$
  declare
    t text;
  begin
    foreach t in array array['suppliers', 'assessments', 'gaps', 'reports', 'assets', 'business_processes',
                             'products_services', 'processing_activities', 'bia', 'threats', 'risks',
                             'risk_treatments', 'risk_acceptances', 'action_plans', 'action_plan_items',
                             'alerts', 'insights', 'webhook_endpoints', 'webhook_deliveries']
    loop
      execute format(
        'create trigger %1$s_updated_at before update on %1$I for each row
           when (new.updated_at is not distinct from old.updated_at)
           execute function touch_updated_at()', t);
    end loop;
  end
$$;

create index suppliers_updated on suppliers (workspace_id, updated_at);
create index assessments_updated on assessments (workspace_id, updated_at);
create index reports_updated on reports (workspace_id, updated_at);
create index assets_updated on assets (workspace_id, updated_at);
create index business_processes_updated on business_processes (workspace_id, updated_at);
create index products_services_updated on products_services (workspace_id, updated_at);
create index processing_activities_updated on processing_activities (workspace_id, updated_at);
create index bia_updated on bia (workspace_id, updated_at);
create index threats_updated on threats (workspace_id, updated_at);
create index risks_updated on risks (workspace_id, updated_at);
create index risk_acceptances_updated on risk_acceptances (workspace_id, updated_at);
create index action_plans_updated on action_plans (workspace_id, updated_at);
create index action_plan_items_updated on action_plan_items (workspace_id, action_plan_id, updated_at);
create index alerts_updated on alerts (workspace_id, updated_at);
create index insights_updated on insights (workspace_id, updated_at);
create index webhook_endpoints_updated on webhook_endpoints (workspace_id, updated_at);
create index webhook_deliveries_updated on webhook_deliveries (workspace_id, updated_at);
