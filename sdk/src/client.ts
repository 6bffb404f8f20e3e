// The client: one namespace per resource of the API, each method typed from the OpenAPI document by the path
// it calls. The namespaces and their methods are generated from the document (generated/client.ts, written by
// sdk/scripts/client-methods.mjs); the kinds of method they use are in methods.ts. Lists are async iterables
// that follow cursors (`list`), or one page at a time (`listPage`).
import { namespaces } from './generated/client.js';
import { methodKinds, redirectTarget } from './methods.js';
import {
  type ClientEventListener,
  type ClientEventName,
  type ClientOptions,
  type RequestOptions,
  Transport,
  unexpected,
} from './transport.js';
import { webhooks } from './webhooks.js';

/**
 * A client of one workspace (the API key's). Every method takes {@link RequestOptions} as its last argument
 * (a POST also its `idempotencyKey`); every result carries the response's metadata on `lastResponse`.
 *
 * ```ts
 * const client = createClient({ baseUrl: 'https://tprm.example.com/v1', apiKey: process.env.TPRM_API_KEY });
 * for await (const supplier of client.suppliers.list({ tag: 'cloud' })) console.log(supplier.name);
 * const page = await client.suppliers.listPage({ limit: 10 }, { timeoutMs: 5000, maxRetries: 0 });
 * console.log(page.lastResponse.requestId, page.lastResponse.rateLimit?.remaining);
 * client.on('response', (event) => metrics.observe(event.path, event.status, event.elapsedMs));
 * ```
 */
export function createClient(options: ClientOptions) {
  const api = new Transport(options);
  return {
    ...namespaces(methodKinds(api)),
    webhooks,
    /**
     * Any GET of the document by its path (`/suppliers/{id}`), untyped: for callers that walk the document
     * instead of naming operations (the MCP server of `tprm mcp`). Resolves with the answer's JSON, or with
     * `{ location }` for an answer 302 (`GET /reports/{id}/pdf`: the signed URL, not followed); errors and
     * retries as for every call.
     */
    get: async (
      path: string,
      request: { id?: string; query?: object } = {},
      options?: RequestOptions,
    ): Promise<unknown> => {
      const url = api.url(path, request.id, request.query);
      const response = await api.send('GET', url, { headers: { accept: 'application/json' } }, options);
      const signed = redirectTarget(url, response);
      if (signed) {
        await response.body?.cancel();
        return { location: signed.href };
      }
      if (!response.ok) throw await unexpected(response, url.pathname);
      return response.json();
    },
    /**
     * Observes every attempt: `request` before it is sent, `response` when an answer (any status) arrives.
     * Listeners run synchronously; one that throws fails the call.
     */
    on: <E extends ClientEventName>(event: E, listener: ClientEventListener<E>) => {
      api.on(event, listener);
    },
    off: <E extends ClientEventName>(event: E, listener: ClientEventListener<E>) => {
      api.off(event, listener);
    },
  };
}

export type TprmClient = ReturnType<typeof createClient>;
