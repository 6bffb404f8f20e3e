// The client: one namespace per resource of the API, each method typed from the OpenAPI document by the path
// it calls. Lists are async iterables that follow cursors (`list`), or one page at a time (`listPage`).
import type { paths } from './generated/openapi.js';
import { Paginated } from './pagination.js';
import { type ClientOptions, type RequestOptions, Transport, unexpected } from './transport.js';
import type { Body, Query, Result } from './types.js';
import { webhooks } from './webhooks.js';

/**
 * A client of one workspace (the API key's).
 *
 * ```ts
 * const client = createClient({ baseUrl: 'https://tprm.example.com/v1', apiKey: process.env.TPRM_API_KEY });
 * for await (const supplier of client.suppliers.list({ tag: 'cloud' })) console.log(supplier.name);
 * ```
 */
export function createClient(options: ClientOptions) {
  const api = new Transport(options);

  /** A collection: every item across pages, or one page (pass `cursor` to continue from one). */
  const collection = <P extends keyof paths>(path: P) => ({
    list: (query?: Query<P>) =>
      new Paginated<Result<P>>(
        (cursor) => api.json('GET', path, { query: { ...query, cursor } }),
        (query as { cursor?: string } | undefined)?.cursor,
      ),
    listPage: (query?: Query<P>): Promise<Result<P>> => api.json('GET', path, { query }),
  });
  /** One resource by id. */
  const byId =
    <P extends keyof paths>(path: P) =>
    (id: string): Promise<Result<P>> =>
      api.json('GET', path, { id });
  /** A response addressed by query only, or by id and query (collections answered in one response). */
  const read =
    <P extends keyof paths>(path: P) =>
    (query?: Query<P>): Promise<Result<P>> =>
      api.json('GET', path, { query });
  const readOf =
    <P extends keyof paths>(path: P) =>
    (id: string, query?: Query<P>): Promise<Result<P>> =>
      api.json('GET', path, { id, query });
  /** A POST: the SDK sends a new Idempotency-Key, the same on each retry, unless one is given. */
  const create =
    <P extends keyof paths>(path: P) =>
    (body: Body<P, 'post'>, options?: RequestOptions): Promise<Result<P, 'post'>> =>
      api.json('POST', path, { body }, options);

  const pdfPath = '/reports/{id}/pdf' satisfies keyof paths;
  /** The report's PDF: follows the 302 to the signed URL, which is its own credential (no key is sent). */
  async function pdf(id: string): Promise<Uint8Array> {
    const url = api.url(pdfPath, id);
    const redirect = await api.send('GET', url, {});
    const signed = redirectTarget(url, redirect);
    if (!signed) throw await unexpected(redirect, url.pathname);
    await redirect.body?.cancel();
    const file = await api.send('GET', signed, { authenticated: false });
    // The URL is not named: it is a credential for five minutes.
    if (!file.ok) throw await unexpected(file, 'the signed PDF URL');
    return new Uint8Array(await file.arrayBuffer());
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
      upsert: (body: Body<'/assets', 'put'>): Promise<Result<'/assets', 'put'>> =>
        api.json('PUT', '/assets', { body }),
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
      ): Promise<Result<'/action-plan-items/{id}', 'patch'>> =>
        api.json('PATCH', '/action-plan-items/{id}', { id, body }),
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
    get: async (path: string, request: { id?: string; query?: object } = {}): Promise<unknown> => {
      const url = api.url(path, request.id, request.query);
      const response = await api.send('GET', url, { headers: { accept: 'application/json' } });
      const signed = redirectTarget(url, response);
      if (signed) {
        await response.body?.cancel();
        return { location: signed.href };
      }
      if (!response.ok) throw await unexpected(response, url.pathname);
      return response.json();
    },
  };
}

/** The target of an answer 302 (a signed URL, its own credential), or null for any other answer. */
function redirectTarget(url: URL, response: Response): URL | null {
  const location = response.status === 302 ? response.headers.get('location') : null;
  return location ? new URL(location, url) : null;
}

export type TprmClient = ReturnType<typeof createClient>;
