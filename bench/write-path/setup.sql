-- The fixture of the write-path scripts (README.md): one Enterprise workspace, its user and key, and one webhook
-- endpoint subscribed to a contract type (as most are), so the fan-out reads an endpoint that does not take
-- `supplier.created`. Run once on a scratch database migrated by `tprm migrate`.
insert into workspaces (id, name, plan) values ('00000000-0000-4000-8000-000000000001', 'bench', 'enterprise');
insert into users (workspace_id, id, name, email)
  values ('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002', 'bench', 'bench@example.com');
insert into api_keys (workspace_id, id, name, prefix, secret_hash, scopes, created_by)
  values ('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000003', 'bench', 'tprm_live_bench',
          '\x00', '{suppliers:write}', '00000000-0000-4000-8000-000000000002');
insert into webhook_endpoints (workspace_id, id, url, events, signing_secret)
  values ('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000004',
          'https://hooks.example.com/tprm', '{alert.created}', 'whsec_bench');
