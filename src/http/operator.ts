// What an operator operation's handler works with, and its type read off the operation's contract. The
// management listener (management/app.ts) binds each contract to its handler and makes the context for each
// request; the handlers of the operator's own operations live in management/, a resource area's lifecycle
// actions in its slice (resources/<area>/admin.ts). No handler gets the pool: workspace data through `read`,
// every change through `write`'s unit of work.
import type { Static, TObject } from 'typebox';
import type { Auth, Operation, OperationInput, PathParams } from '../contract/operation.js';
import type { ObjectStorage } from '../reports/storage.js';
import type { OperatorStore } from '../storage/operator.js';
import type { CursorCodec } from './pagination.js';

export interface OperatorContext extends OperatorStore {
  /** Report PDFs. */
  objects: ObjectStorage;
  /** Signs and reads the cursors of chunked answers (the audit chain's). */
  cursors: CursorCodec;
  /** WEBHOOK_ALLOW_INSECURE_URLS: plain http and private addresses accepted for webhook endpoints. */
  allowInsecureWebhookUrls: boolean;
  /** To call after a change that affects authentication (a revocation, a plan change). */
  authChanged(): void;
}

/**
 * What a handler receives, typed from the contract's own schemas: path parameters, the query as validated
 * (a parameter left out stays out), and the body (validated, or judged by the handler: `validateBody: false`).
 */
export type OperatorInput<O> =
  O extends Operation<Auth, infer U, infer Q, infer B, infer V>
    ? {
        params: PathParams<U>;
        query: Q extends TObject ? Static<Q> : Record<never, never>;
        body: OperationInput<U, Q, B, V>['body'];
      }
    : never;

/** Answers the JSON of the success response, or nothing for a 204. */
export type OperatorHandler<O> = (
  ctx: OperatorContext,
  input: OperatorInput<O>,
) => Promise<string | undefined>;

/** One handler per operation of a table of contracts, by operationId. */
export type OperatorHandlers<T> = { [K in keyof T]: OperatorHandler<T[K]> };

/** An operator operation and its handler: what the management listener registers (route.ts). */
export interface BoundOperation {
  operation: Operation;
  handler: OperatorHandler<Operation>;
}
