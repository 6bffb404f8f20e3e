// The ceiling of list-first (`npm run bench -- --ceiling`): not a server anyone should run, but the least any
// server must do to answer tprm-api's first page. It runs the page's statement exactly as tprm-api does
// (prepared, generic plan, text columns, 51 rows of the workspace the bench names in `x-workspace-id`) and
// answers with bytes built once: no authentication, rate limit, rendering, cursor, validation or log. The
// ratio of tprm-api to it bounds what any change to tprm-api's Node side can gain (docs/performance.md).
//
// Env: DATABASE_URL (PostgreSQL only), PORT.
import { createServer } from 'node:http';
import pg from 'pg';
import { Supplier } from '../../src/resources/suppliers/schema.js';

const shape = Supplier.row('t', { pii: true, engine: 'postgres' });
const page = {
  name: 'ceiling_page',
  // The sort key is read in the served cells, as tprm-api's page reads it (P236).
  text: `select ${shape.sql} from suppliers t where t.workspace_id = $1
          order by t.created_at desc, t.id desc limit $2`,
  rowMode: 'array' as const,
};
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  options: '-c TimeZone=UTC -c plan_cache_mode=force_generic_plan',
});
let body: Buffer | null = null;

const server = createServer(async (request, response) => {
  if (request.url === '/readyz') {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ready"}');
    return;
  }
  try {
    const { rows } = await pool.query({ ...page, values: [request.headers['x-workspace-id'], 51] });
    // The first answer's bytes, kept: the size of a real page, none of the work of making one.
    body ??= Buffer.from(
      `{"data":[${rows
        .slice(0, 50)
        .map((row) => shape.render(row))
        .join(',')}],"meta":{"has_more":true,"next_cursor":null}}`,
    );
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  } catch (error) {
    response.writeHead(500).end((error as Error).message);
  }
});
server.listen(Number(process.env.PORT ?? 8090), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
