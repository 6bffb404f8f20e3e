-- The suppliers table as it was before the issue-26 features: without the search prefixes (migration 0019), the
-- `updated_since` index and the updated_at trigger (0021). For post-supplier-before-26.sql, on a scratch copy.
drop index suppliers_name_prefix, suppliers_domain_prefix, suppliers_updated;
drop trigger suppliers_updated_at on suppliers;
