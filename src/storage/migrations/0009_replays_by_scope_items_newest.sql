-- docs/decisions.md P76: a stored idempotent response is kept with and without its personal fields, and a
-- replay sends each key the one its scopes allow (null: the body has no personal field).
alter table idempotency_keys add column response_body_without_pii text;
-- A response stored before held the body as the first caller's key saw it. One with personal fields (a
-- supplier created with pii:read) gets its copy without them now, so that no replay shows them to a key
-- without pii:read. (PostgreSQL's own JSON text: the same fields, spaced differently.)
update idempotency_keys
   set response_body_without_pii = (response_body::jsonb - 'email' - 'contacts' - 'onboarding_data')::text
 where endpoint = 'createSupplier' and response_status = 201
   and response_body::jsonb ?| array['email', 'contacts', 'onboarding_data'];

-- Decision 12: the items of a plan are listed newest first by created_at, then id (was due date, then id).
drop index action_plan_items_plan;
create index action_plan_items_plan_newest
  on action_plan_items (workspace_id, action_plan_id, created_at desc, id desc);
