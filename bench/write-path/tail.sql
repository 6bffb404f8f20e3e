-- The end of the request: its answer stored under the Idempotency-Key, and the commit.
insert into idempotency_keys (workspace_id, endpoint, key, request_hash, response_status, response_body, response_body_without_pii)
  values ('00000000-0000-4000-8000-000000000001', 'createSupplier', 'k' || :n, 'd/azCCJoqr0rdZruH6rWVEz1wUFBTvb6dvoaNGa/RfE=', 201,
          repeat('r', 440),
          repeat('r', 390))
  on conflict (workspace_id, endpoint, key) do update
    set request_hash = excluded.request_hash, response_status = excluded.response_status,
        response_body = excluded.response_body,
        response_body_without_pii = excluded.response_body_without_pii, created_at = now();
commit;
