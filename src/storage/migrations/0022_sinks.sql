-- Sinks (docs/decisions.md P203-P219): push destinations that receive a workspace's audit trail and/or its
-- events, delivered at least once, in order, in batches. A sink keeps its position in each log it follows, as
-- the feeds' cursors do: the (occurred_at, id) of the last record its collector acknowledged. Both logs are
-- stamped through the workspace's audit head (migrations 0014, 0020), so their order is commit order and a
-- position never passes a record that commits later. The worker that holds a sink's claim (a lease, as the
-- webhook dispatcher's) reads what follows the position, sends it, and moves the position only once the
-- collector acknowledged; a worker that dies leaves the position where it was, and the next claim sends the
-- same records again, with the same ids.
create table sinks (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  kind text not null check (kind in ('http', 'syslog')),
  description text,
  sources text[] not null,
  -- Null: every event type (the sink follows the whole event log).
  event_types text[],
  format text not null check (format in ('native', 'ocsf')),
  -- http: the collector's URL, and whether it is a Splunk HTTP Event Collector.
  url text,
  hec boolean not null default false,
  -- syslog: the receiver's TLS address, the CA that signs its certificate (PEM), the name checked in it.
  host text,
  port integer check (port between 1 and 65535),
  ca text,
  server_name text,
  -- The HEC token or the Authorization header's value: needed in clear to send, never returned (P206).
  credential text,
  enabled boolean not null default true,
  -- When the current run of failed batches began (null after a delivery), for WEBHOOK_DISABLE_AFTER.
  failing_since timestamptz,
  -- Failed sends of the batch at the position, for the retry schedule; 0 after a delivery.
  failures integer not null default 0,
  -- The last record acknowledged in each log (null: from the log's beginning).
  audit_at timestamptz,
  audit_id uuid,
  event_at timestamptz,
  event_id uuid,
  -- When the next batch may be sent: after a failure, the retry's time; while a batch fills, its age limit.
  due_at timestamptz not null default now(),
  -- The worker holding the sink, and until when; an expired lease is claimed again.
  claim_token uuid,
  lease_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (workspace_id, id),
  check (kind <> 'http' or url is not null),
  check (kind <> 'syslog' or (host is not null and port is not null))
);
create unique index sinks_id on sinks (id);
create index sinks_due on sinks (due_at) where enabled;

-- The delivery log: one row per batch attempt, newest first per sink.
create table sink_deliveries (
  workspace_id uuid not null,
  id uuid not null,
  sink_id uuid not null,
  first_id uuid not null,
  last_id uuid not null,
  count integer not null check (count >= 1),
  -- 1 for the batch's first send, then one more per retry.
  attempt integer not null check (attempt >= 1),
  outcome text not null check (outcome in ('delivered', 'failed')),
  status integer,
  error text,
  duration_ms integer not null,
  created_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, sink_id) references sinks (workspace_id, id) on delete cascade
);
create unique index sink_deliveries_id on sink_deliveries (id);
create index sink_deliveries_newest on sink_deliveries (workspace_id, sink_id, created_at desc, id desc);
-- EVENT_RETENTION prunes the log with the events.
create index sink_deliveries_age on sink_deliveries (created_at);
