// What the operator's operations (auth `operator()`, under /admin) share in their contracts: the responses of
// success and the errors their handlers answer, each described once for every operation and for the
// management document (openapi/admin-document.ts), and the shape of an admin listing.
import { type TSchema, Type } from 'typebox';
import { ambiguousId, notFound } from './errors.js';
import type { ResponseSpec } from './operation.js';

/** 200 with `schema`. */
export const ok = <T extends TSchema>(schema: T) => ({ description: 'OK', schema }) satisfies ResponseSpec;
/** 201 with the record made. */
export const created = <T extends TSchema>(schema: T) =>
  ({ description: 'Created', schema }) satisfies ResponseSpec;
/** 204: done, nothing to say. */
export const NO_CONTENT: ResponseSpec = { description: 'No Content' };

/** 404 of a record named by a path id (also answered for a path id that is not a uuid). */
export const NO_RECORD: ResponseSpec = {
  description: 'No such record (or a path id that is not a uuid).',
  errors: [notFound()],
};
/** 409 of an action the record's state refuses, or of an id several workspaces hold (`ambiguousId`). */
export const REFUSED: ResponseSpec = {
  description: 'The record is in a state that refuses this action, or its id is ambiguous.',
  errors: [ambiguousId('record')],
};
/** 422 of a bad body field; without `errors`, the examples are those of the listener's body validation. */
export const INVALID_FIELD: ResponseSpec = {
  description: 'A field of the body is invalid: `details.fields` maps each bad field to a message.',
};

/** An admin listing: every record at once, under `data` (no paging: the operator's lists are short). */
export function listOf<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item) }, { additionalProperties: false });
}
