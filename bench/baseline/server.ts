// The baseline: the naive bare server of each scenario. node:http, the pg driver with its default type parsing
// (PGlite on the embedded store), a plain SELECT of the resource's columns and JSON.stringify of the rows in the
// same envelope tprm-api answers with. No framework, authentication, rate limit, validation or logging: the
// bench tells it the workspace in `x-workspace-id`. Columns come from the resource definitions, so both servers
// read the same columns in the same order, page size and sort.
//
// Env: DATABASE_URL (PostgreSQL) or DATA_DIR (embedded store), PORT.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { Gap } from '../../src/resources/assessments/schema.js';
import { AuditLog } from '../../src/resources/audit-logs/schema.js';
import { Supplier, SupplierDetail } from '../../src/resources/suppliers/schema.js';
import type { Resource } from '../../src/schema/resource.js';

type Row = Record<string, unknown>;
type Query = (sql: string, params: unknown[]) => Promise<Row[]>;

async function connect(): Promise<Query> {
  if (process.env.DATABASE_URL) {
    const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
    return async (sql, params) => (await pool.query(sql, params)).rows;
  }
  const db = await PGlite.create(join(process.env.DATA_DIR ?? './data', 'pgdata'));
  return async (sql, params) => (await db.query<Row>(sql, params)).rows;
}

/** The resource's columns, computed ones as their SQL expression. */
const columns = (resource: Resource) =>
  Object.entries(resource.fields)
    .map(([name, spec]) => (spec.sql ? `${spec.sql.replaceAll('$t', 't')} as ${name}` : `t.${name}`))
    .join(', ');
const SUPPLIER = columns(Supplier);
const SUPPLIER_DETAIL = columns(SupplierDetail);
const AUDIT = columns(AuditLog);
const GAP = columns(Gap);

const encodeCursor = (values: unknown[]) => Buffer.from(JSON.stringify(values)).toString('base64url');
const decodeCursor = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString()) as unknown[];

/** A keyset page: `limit + 1` rows tell whether there is more. */
async function page(
  query: Query,
  options: { table: string; columns: string; key: string; direction: 'asc' | 'desc'; feed: boolean },
  workspace: string,
  url: URL,
) {
  const limit = Number(url.searchParams.get('limit') ?? 50);
  const cursor = url.searchParams.get('cursor');
  const params: unknown[] = [workspace, limit + 1];
  let after = '';
  if (cursor) {
    params.push(...decodeCursor(cursor));
    after = `and (t.${options.key}, t.id) ${options.direction === 'desc' ? '<' : '>'} ($3, $4)`;
  }
  const rows = await query(
    `select ${options.columns} from ${options.table} t where t.workspace_id = $1 ${after}
      order by t.${options.key} ${options.direction}, t.id ${options.direction} limit $2`,
    params,
  );
  const data = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const last = data[data.length - 1];
  const lastCursor = last ? encodeCursor([last[options.key], last.id]) : null;
  return {
    data,
    meta: {
      has_more: hasMore,
      next_cursor: options.feed ? (lastCursor ?? cursor) : hasMore ? lastCursor : null,
      feature_status: 'available',
    },
  };
}

async function readBody(request: IncomingMessage): Promise<Row> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

type Handler = (
  query: Query,
  workspace: string,
  url: URL,
  request: IncomingMessage,
  id: string,
) => Promise<[number, unknown]>;

const routes: [method: string, pattern: RegExp, handler: Handler][] = [
  [
    'GET',
    /^\/v1\/suppliers$/,
    async (query, workspace, url) => [
      200,
      {
        ...(await page(
          query,
          { table: 'suppliers', columns: SUPPLIER, key: 'created_at', direction: 'desc', feed: false },
          workspace,
          url,
        )),
        currency: 'USD',
      },
    ],
  ],
  [
    'GET',
    /^\/v1\/suppliers\/([^/]+)$/,
    async (query, workspace, _url, _request, id) => {
      const [row] = await query(
        `select ${SUPPLIER_DETAIL} from suppliers t where t.workspace_id = $1 and t.id = $2`,
        [workspace, id],
      );
      return row ? [200, row] : [404, { error: { code: 'resource_not_found' } }];
    },
  ],
  [
    'POST',
    /^\/v1\/suppliers$/,
    async (query, workspace, _url, request) => {
      const body = await readBody(request);
      const [row] = await query(
        `insert into suppliers as t (workspace_id, id, name, domain, email, industry, size, country, criticality, risk_group,
                                     vendor_profile, tags, source, status)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'import', 'pending')
         returning ${SUPPLIER}`,
        [
          workspace,
          randomUUID(),
          body.name,
          body.domain ?? null,
          body.email ?? null,
          body.industry ?? null,
          body.size ?? null,
          body.country ?? null,
          body.criticality ?? null,
          body.risk_group ?? null,
          body.vendor_profile ?? null,
          body.tags ?? [],
        ],
      );
      return [201, row];
    },
  ],
  [
    'GET',
    /^\/v1\/audit-logs$/,
    async (query, workspace, url) => [
      200,
      await page(
        query,
        { table: 'audit_logs', columns: AUDIT, key: 'occurred_at', direction: 'asc', feed: true },
        workspace,
        url,
      ),
    ],
  ],
  [
    'GET',
    /^\/v1\/assessments\/([^/]+)\/gaps$/,
    async (query, workspace, _url, _request, id) => {
      const data = await query(
        `select ${GAP} from gaps t where t.workspace_id = $1 and t.assessment_id = $2 order by t.control_code collate "C", t.id`,
        [workspace, id],
      );
      return [200, { data, meta: { has_more: false, next_cursor: null, feature_status: 'available' } }];
    },
  ],
  [
    'PUT',
    /^\/v1\/assets$/,
    async (query, workspace, _url, request) => {
      const body = await readBody(request);
      // The whole batch in one statement.
      const [counts] = await query(
        `with written as (
           insert into assets as t (workspace_id, id, external_id, name, asset_type, technical_criticality, exposure,
                                    region, cloud_metadata, source, cloud_provider, review_status)
           select $1, gen_random_uuid(), i.external_id, i.name, i.asset_type, i.technical_criticality, i.exposure,
                  i.region, coalesce(i.cloud_metadata, '{}'), $3, $4, 'discovered'
             from json_populate_recordset(null::assets, $2::json) i
           on conflict (workspace_id, match_key) do update
              set name = excluded.name, asset_type = excluded.asset_type,
                  technical_criticality = excluded.technical_criticality, exposure = excluded.exposure,
                  region = excluded.region, cloud_metadata = excluded.cloud_metadata, updated_at = now()
           returning (t.xmax = 0) as inserted)
         select count(*) filter (where inserted) as created, count(*) filter (where not inserted) as updated from written`,
        [workspace, JSON.stringify(body.assets), body.source, body.cloud_provider ?? null],
      );
      return [200, { created: Number(counts?.created), updated: Number(counts?.updated), skipped: [] }];
    },
  ],
];

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

const query = await connect();
const server = createServer(async (request, response) => {
  const url = new URL(request.url ?? '/', 'http://baseline');
  if (url.pathname === '/readyz') return send(response, 200, { status: 'ready' });
  const workspace = String(request.headers['x-workspace-id'] ?? '');
  for (const [method, pattern, handler] of routes) {
    const match = request.method === method ? pattern.exec(url.pathname) : null;
    if (!match) continue;
    try {
      const [status, body] = await handler(query, workspace, url, request, match[1] ?? '');
      return send(response, status, body);
    } catch (error) {
      return send(response, 500, { error: { code: 'internal_error', message: (error as Error).message } });
    }
  }
  send(response, 404, { error: { code: 'resource_not_found' } });
});
server.listen(Number(process.env.PORT ?? 8090), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
