-- A new asset's review status is the field's `initial` value (src/resources/assets/schema.ts), which every
-- writer binds: the column default no longer repeats it, so a writer that forgets fails loudly.
alter table assets alter column review_status drop default;
