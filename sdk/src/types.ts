// Types of the API, all derived from the OpenAPI document through the generated file: a path, a method and
// a status select the query, body and result types, so the client never restates a field.
import type { components, paths } from './generated/openapi.js';

/** Every named schema of the document: `Schemas['Supplier']`, `Schemas['Error']`, … */
export type Schemas = components['schemas'];

export type Method = 'get' | 'post' | 'put' | 'patch';

/** The operation of the document at `path` and `method`. */
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

type JsonOf<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;

/** The query parameters of an operation (its filters, `limit` and `cursor`). */
export type Query<P extends keyof paths, M extends Method = 'get'> = NonNullable<
  Operation<P, M>['parameters']['query']
>;

/** The JSON request body of an operation. */
export type Body<P extends keyof paths, M extends Method> = JsonOf<
  NonNullable<Operation<P, M>['requestBody']>
>;

/** The JSON body of an operation's success response (200, or 201 for a creation). */
export type Result<P extends keyof paths, M extends Method = 'get'> = JsonOf<
  Operation<P, M>['responses'][Extract<keyof Operation<P, M>['responses'], 200 | 201>]
>;

/** What every collection response has in common. */
export interface Collection<Item = unknown> {
  data: Item[];
  meta: { has_more: boolean; next_cursor: string | null };
}
