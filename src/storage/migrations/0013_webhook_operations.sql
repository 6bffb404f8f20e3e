-- Webhook operations (docs/decisions.md P81-P84): test events, the duration of each attempt, and the state
-- that disables an endpoint whose deliveries have all failed for WEBHOOK_DISABLE_AFTER.

-- A test event (POST /admin/webhook-endpoints/{id}/test) is stored like any event, for its payload and the
-- foreign key of its one delivery, but it is never fanned out and never counted.
alter table events add column test boolean not null default false;

-- Milliseconds from the start of the request to its outcome; null until the outcome is recorded.
alter table webhook_deliveries add column duration_ms integer check (duration_ms >= 0);

-- When the endpoint's current run of failed attempts began (the first failure after its last delivery);
-- null while its last finished attempt was delivered, and again when it is re-enabled.
alter table webhook_endpoints add column failing_since timestamptz;
