-- The event log (docs/decisions.md P172-P176): GET /v1/events serves every event of a workspace, oldest first
-- by occurred_at then id, with a cursor a poller stores and resumes, like the audit feed.
--
-- Feed order must be commit order, or a poller could pass an event whose transaction commits after a later
-- stamped one and never see it (the audit trail's problem, P99). Events are therefore stamped through the
-- workspace's audit head row, which every write of the workspace already locks until commit for its audit
-- entry: one row lock per workspace, taken by the event or the entry whichever comes first, so no new lock
-- order (and no deadlock) appears. `events_at` is the instant of the workspace's last event. (Written to run
-- again after audit_heads is made anew, as a test of migration 0014 does.)
alter table audit_heads add column if not exists events_at timestamptz not null default '-infinity';
update audit_heads h set events_at = coalesce(
  (select max(e.occurred_at) from events e where e.workspace_id = h.workspace_id), '-infinity');

-- What the feed serves: the events of the workspace, without the test events an operator sent to one endpoint
-- (P81), which no change caused.
create or replace view event_log as select workspace_id, id, type, occurred_at, payload from events where not test;

-- The feed's first page and its resumption, with and without `type`.
create index if not exists events_feed on events (workspace_id, occurred_at, id) where not test;
create index if not exists events_feed_type on events (workspace_id, type, occurred_at, id) where not test;
-- EVENT_RETENTION: the worker deletes the oldest events of every workspace in small batches.
create index if not exists events_age on events (occurred_at);
-- Their delivery attempts go with them.
create index if not exists webhook_deliveries_event on webhook_deliveries (workspace_id, event_id);
