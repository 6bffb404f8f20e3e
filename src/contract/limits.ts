// Budgets that an operation's contract states in its own words, defined once for the contract and for the
// limiter's buckets (http/rate-limit.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.

/** Test events sent to one webhook endpoint per minute of the clock (P107). */
export const WEBHOOK_TESTS_PER_MINUTE = 5;

/** Whole-collection exports (a list asked for `application/x-ndjson`) per workspace and hour (P197). */
export const EXPORTS_PER_HOUR = 60;

/** Exports of one workspace running at once in one process (P202): each holds a database connection. */
export const EXPORTS_AT_ONCE = 2;

/** Exports of all workspaces running at once in one process (P202), so that pages always find a connection. */
export const EXPORTS_PER_PROCESS = 4;
