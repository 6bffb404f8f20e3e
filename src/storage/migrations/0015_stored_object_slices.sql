-- Report PDFs are streamed out of the database slice by slice (src/reports/storage.ts, docs/decisions.md P80).
-- Stored uncompressed out of line, a slice (`substring`) reads only the TOAST chunks it covers rather than
-- decompressing the whole value; a PDF's streams are compressed already. Applies to PDFs stored from now on.
alter table stored_objects alter column content set storage external;

-- Each write of a key is a new version: a download reads every slice from the version it started with, and
-- stops (the response cut short) if a render replaces the PDF meanwhile, rather than mixing the two.
alter table stored_objects add column version integer not null default 1;
