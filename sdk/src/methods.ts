// The kinds of method the client's namespaces are made of, one per shape of operation in the document. Which
// operation gets which kind, under which name, is decided by sdk/scripts/client-methods.mjs from the document
// and written to generated/client.ts; this file says what each kind does.

import { Export, NDJSON } from './export.js';
import type { paths } from './generated/openapi.js';
import { type ItemOf, Paginated } from './pagination.js';
import {
  type PostRequestOptions,
  type RequestOptions,
  type Transport,
  unexpected,
  type WithResponse,
  withResponse,
} from './transport.js';
import type { Body, Query, Result } from './types.js';

/** The method factories of a client, bound to its transport. */
export function methodKinds(api: Transport) {
  return {
    /** A collection: every item across pages, following the cursors (start at `cursor` if given). */
    list:
      <P extends keyof paths>(path: P) =>
      (query?: Query<P>, options?: RequestOptions) =>
        new Paginated<WithResponse<Result<P>>>(
          (cursor) => api.json('GET', path, { query: { ...query, cursor } }, options),
          (query as { cursor?: string } | undefined)?.cursor,
        ),
    /**
     * A collection: every item in one streamed response (application/x-ndjson), one snapshot; `nextCursor` is
     * set once the loop ends. `options.timeoutMs` bounds the wait for the response, not the stream.
     */
    export:
      <P extends keyof paths>(path: P) =>
      (query?: Omit<Query<P>, 'limit'>, options?: RequestOptions) =>
        new Export<ItemOf<Result<P>>>(async () => {
          const url = api.url(path, undefined, query);
          const response = await api.send('GET', url, { headers: { accept: NDJSON }, stream: true }, options);
          if (!response.ok) throw await unexpected(response, url.pathname);
          return response;
        }),
    /** A collection: one page (pass `cursor` to continue from one). */
    listPage:
      <P extends keyof paths>(path: P) =>
      (query?: Query<P>, options?: RequestOptions): Promise<WithResponse<Result<P>>> =>
        api.json('GET', path, { query }, options),
    /** One resource by id. */
    retrieve:
      <P extends keyof paths>(path: P) =>
      (id: string, options?: RequestOptions): Promise<WithResponse<Result<P>>> =>
        api.json('GET', path, { id }, options),
    /** A response addressed by query only. */
    read:
      <P extends keyof paths>(path: P) =>
      (query?: Query<P>, options?: RequestOptions): Promise<WithResponse<Result<P>>> =>
        api.json('GET', path, { query }, options),
    /** A response addressed by id and query (a collection of the resource answered in one response). */
    readOf:
      <P extends keyof paths>(path: P) =>
      (id: string, query?: Query<P>, options?: RequestOptions): Promise<WithResponse<Result<P>>> =>
        api.json('GET', path, { id, query }, options),
    /** A POST: the SDK sends a new Idempotency-Key, the same on each retry, unless one is given. */
    create:
      <P extends keyof paths>(path: P) =>
      (body: Body<P, 'post'>, options?: PostRequestOptions): Promise<WithResponse<Result<P, 'post'>>> =>
        api.json('POST', path, { body }, options),
    /** A PUT of a body at a path without id. */
    put:
      <P extends keyof paths>(path: P) =>
      (body: Body<P, 'put'>, options?: RequestOptions): Promise<WithResponse<Result<P, 'put'>>> =>
        api.json('PUT', path, { body }, options),
    /** A PATCH of the resource `id`. */
    patch:
      <P extends keyof paths>(path: P) =>
      (
        id: string,
        body: Body<P, 'patch'>,
        options?: RequestOptions,
      ): Promise<WithResponse<Result<P, 'patch'>>> =>
        api.json('PATCH', path, { id, body }, options),
    /**
     * A file behind an answer 302: follows it to the signed URL, which is its own credential (no key is sent).
     * `lastResponse` is the API's 302 (its request id and rate-limit headers); the options apply to both requests.
     */
    download:
      <P extends keyof paths>(path: P) =>
      async (id: string, options?: RequestOptions): Promise<WithResponse<Uint8Array>> => {
        const url = api.url(path, id);
        const redirect = await api.send('GET', url, {}, options);
        const signed = redirectTarget(url, redirect);
        if (!signed) throw await unexpected(redirect, url.pathname);
        await redirect.body?.cancel();
        const file = await api.send('GET', signed, { authenticated: false }, options);
        // The URL is not named: it is a credential for five minutes. (The API's one download is the PDF.)
        if (!file.ok) throw await unexpected(file, 'the signed PDF URL');
        return withResponse(new Uint8Array(await file.arrayBuffer()), redirect);
      },
  };
}

export type MethodKinds = ReturnType<typeof methodKinds>;

/** The target of an answer 302 (a signed URL, its own credential), or null for any other answer. */
export function redirectTarget(url: URL, response: Response): URL | null {
  const location = response.status === 302 ? response.headers.get('location') : null;
  return location ? new URL(location, url) : null;
}
