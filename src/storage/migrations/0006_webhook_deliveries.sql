-- Webhook delivery (decisions 21-24, 30, 43): the queue is the table of attempts itself. An event fans out,
-- in the transaction that records it, into one `pending` attempt per subscribed endpoint; a dispatcher
-- claims due attempts with FOR UPDATE SKIP LOCKED, sends them outside any transaction, and writes the
-- outcome and, after a failure, the next attempt as a new `pending` row.

-- Secret rotation: during the overlap both secrets sign (`v1=new,v1=old`).
alter table webhook_endpoints
  add column previous_signing_secret text,
  add column previous_secret_expires_at timestamptz;

create table webhook_deliveries (
  workspace_id uuid not null references workspaces (id),
  id uuid not null,
  -- No foreign key to the endpoint: the history of a deleted endpoint stays readable.
  endpoint_id uuid not null,
  event_id uuid not null,
  event_type text not null,
  attempt integer not null check (attempt >= 1),
  status text not null check (status in ('pending', 'delivering', 'delivered', 'failed', 'exhausted')),
  response_status integer,
  response_body text,
  error text,
  -- The due time while pending; the start of the attempt once claimed (decision 43).
  attempted_at timestamptz not null,
  next_retry_at timestamptz,
  -- A manual replay is one attempt: no automatic retry follows it.
  replay boolean not null default false,
  -- The dispatcher holding a `delivering` attempt, and until when; an expired lease (its worker died) is
  -- claimed again, so an attempt is never lost.
  claim_token uuid,
  lease_expires_at timestamptz,
  created_at timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, event_id) references events (workspace_id, id)
);
create unique index webhook_deliveries_id on webhook_deliveries (id);
-- One row per attempt number: two dispatchers can never both schedule the same retry.
create unique index webhook_deliveries_attempt on webhook_deliveries (workspace_id, endpoint_id, event_id, attempt);
create index webhook_deliveries_newest on webhook_deliveries (workspace_id, attempted_at desc, id desc);
create index webhook_deliveries_due on webhook_deliveries (attempted_at) where status = 'pending';
create index webhook_deliveries_leases on webhook_deliveries (lease_expires_at) where status = 'delivering';
