-- Supplier search (docs/decisions.md P160): GET /suppliers?q= matches a case-insensitive prefix of the name or
-- of the domain. One btree index per column, on the lowered text with text_pattern_ops so that `like 'abc%'`
-- uses it whatever the database's collation; both engines (PostgreSQL and PGlite) have it without an extension
-- (pg_trgm would need one loaded in PGlite). The planner combines the two in a BitmapOr.
create index suppliers_name_prefix on suppliers (workspace_id, lower(name) text_pattern_ops);
create index suppliers_domain_prefix on suppliers (workspace_id, lower(domain) text_pattern_ops);
