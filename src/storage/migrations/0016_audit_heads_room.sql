-- Every audit entry updates its workspace's head (migration 0014). Half of each page is left free, so the new
-- version of a head fits on the page of the old one: the update is HOT (the primary key is not touched) and
-- the page is pruned in place. Packed pages send each update to another page and through the index (P100).
-- CLUSTER rewrites the existing heads with that room.
alter table audit_heads set (fillfactor = 50);
cluster audit_heads using audit_heads_pkey;
