-- `updated_since` on the lists that are not cursor-paged (docs/decisions.md P227): each reads the records of one
-- parent, so each filter's index leads with the parent, as action_plan_items_updated (0021) does for a plan's
-- items. The alerts are read by workspace and scope: alerts_updated (0021) serves them. The records' updated_at
-- is kept by the trigger of 0021 on each of these tables.
create index gaps_updated on gaps (workspace_id, assessment_id, updated_at);
create index risk_treatments_updated on risk_treatments (workspace_id, risk_id, updated_at);
