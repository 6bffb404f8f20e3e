// The client: one namespace per resource of the API, each method typed from the OpenAPI document by the path
// it calls. Lists are async iterables that follow cursors (`list`), or one page at a time (`listPage`).
import type { paths } from './generated/openapi.js';
import { Paginated } from './pagination.js';
import {
  type ClientEventListener,
  type ClientEventName,
  type ClientOptions,
  type PostRequestOptions,
  type RequestOptions,
  Transport,
  unexpected,
  type WithResponse,
  withResponse,
} from './transport.js';
import type { Body, Query, Result } from './types.js';
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

  /** A collection: every item across pages, or one page (pass `cursor` to continue from one). */
  const collection = <P extends keyof paths>(path: P) => ({
    list: (query?: Query<P>, options?: RequestOptions) =>
      new Paginated<WithResponse<Result<P>>>(
        (cursor) => api.json('GET', path, { query: { ...query, cursor } }, options),
        (query as { cursor?: string } | undefined)?.cursor,
      ),
    listPage: (query?: Query<P>, options?: RequestOptions): Promise<WithResponse<Result<P>>> =>
      api.json('GET', path, { query }, options),
  });
  /** One resource by id. */
  const byId =
    <P extends keyof paths>(path: P) =>
    (id: string, options?: RequestOptions): Promise<WithResponse<Result<P>>> =>
      api.json('GET', path, { id }, options);
  /** A response addressed by query only, or by id and query (collections answered in one response). */
  const read =
    <P extends keyof paths>(path: P) =>
    (query?: Query<P>, options?: RequestOptions): Promise<WithResponse<Result<P>>> =>
      api.json('GET', path, { query }, options);
  const readOf =
    <P extends keyof paths>(path: P) =>
    (id: string, query?: Query<P>, options?: RequestOptions): Promise<WithResponse<Result<P>>> =>
      api.json('GET', path, { id, query }, options);
  /** A POST: the SDK sends a new Idempotency-Key, the same on each retry, unless one is given. */
  const create =
    <P extends keyof paths>(path: P) =>
    (body: Body<P, 'post'>, options?: PostRequestOptions): Promise<WithResponse<Result<P, 'post'>>> =>
      api.json('POST', path, { body }, options);

  const pdfPath = '/reports/{id}/pdf' satisfies keyof paths;
  /**
   * The report's PDF: follows the 302 to the signed URL, which is its own credential (no key is sent).
   * `lastResponse` is the API's 302 (its request id and rate-limit headers); the options apply to both requests.
   */
  async function pdf(id: string, options?: RequestOptions): Promise<WithResponse<Uint8Array>> {
    const url = api.url(pdfPath, id);
    const redirect = await api.send('GET', url, {}, options);
    const signed = redirectTarget(url, redirect);
    if (!signed) throw await unexpected(redirect, url.pathname);
    await redirect.body?.cancel();
    const file = await api.send('GET', signed, { authenticated: false }, options);
    // The URL is not named: it is a credential for five minutes.
    if (!file.ok) throw await unexpected(file, 'the signed PDF URL');
    return withResponse(new Uint8Array(await file.arrayBuffer()), redirect);
  }

  return {
    suppliers: {
      ...collection('/suppliers'),
      get: byId('/suppliers/{id}'),
      create: create('/suppliers'),
    },
    assessments: {
      ...collection('/assessments'),
      get: byId('/assessments/{id}'),
      create: create('/assessments'),
      /** Every gap of the assessment, in one response. */
      gaps: readOf('/assessments/{id}/gaps'),
    },
    reports: {
      ...collection('/reports'),
      get: byId('/reports/{id}'),
      pdf,
    },
    assets: {
      ...collection('/assets'),
      /** Bulk upsert of up to 500 assets, matched on (source, cloud_provider, external_id). */
      upsert: (
        body: Body<'/assets', 'put'>,
        options?: RequestOptions,
      ): Promise<WithResponse<Result<'/assets', 'put'>>> => api.json('PUT', '/assets', { body }, options),
    },
    businessProcesses: collection('/business-processes'),
    productsServices: collection('/products-services'),
    processingActivities: collection('/processing-activities'),
    bia: collection('/bia'),
    threats: collection('/threats'),
    risks: {
      ...collection('/risks'),
      /** Every treatment of the risk, in one response. */
      treatments: readOf('/risks/{id}/treatments'),
    },
    riskScores: { get: read('/risk-scores') },
    riskMatrix: { get: read('/risk-matrix') },
    riskAcceptances: collection('/risk-acceptances'),
    actionPlans: {
      ...collection('/action-plans'),
      /** The plan's items, in one response (`has_more` says whether `limit` cut some). */
      items: readOf('/action-plans/{id}/items'),
    },
    actionPlanItems: {
      update: (
        id: string,
        body: Body<'/action-plan-items/{id}', 'patch'>,
        options?: RequestOptions,
      ): Promise<WithResponse<Result<'/action-plan-items/{id}', 'patch'>>> =>
        api.json('PATCH', '/action-plan-items/{id}', { id, body }, options),
    },
    /** Not cursor-paged: `list` yields the one response's alerts (up to `limit` per source). */
    alerts: collection('/alerts'),
    insights: collection('/insights'),
    /** A resumable feed, oldest first: store `meta.next_cursor` of the last page and pass it later. */
    auditLogs: collection('/audit-logs'),
    webhookEndpoints: collection('/webhook-endpoints'),
    webhookDeliveries: collection('/webhook-deliveries'),
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

/** The target of an answer 302 (a signed URL, its own credential), or null for any other answer. */
function redirectTarget(url: URL, response: Response): URL | null {
  const location = response.status === 302 ? response.headers.get('location') : null;
  return location ? new URL(location, url) : null;
}

export type TprmClient = ReturnType<typeof createClient>;
