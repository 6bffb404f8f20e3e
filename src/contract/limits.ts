// Budgets that an operation's contract states in its own words, defined once for the contract and for the
// limiter's buckets (http/rate-limit.ts).
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.

/** Test events sent to one webhook endpoint per minute of the clock (P107). */
export const WEBHOOK_TESTS_PER_MINUTE = 5;
