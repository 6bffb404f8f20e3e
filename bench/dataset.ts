// The benchmark's data: big workspaces holding the supplier and audit volumes (deep cursors need depth), and
// many small workspaces with keys, over which load is spread as real traffic is (rate limits are per
// workspace). Records are shaped by the seed generator (src/seed/, the one source of
// realistic, schema-valid records): a few thousand of its records serve as templates, and PostgreSQL
// multiplies them with `insert ... select ... generate_series`, so a million rows take seconds, not an hour of
// row-by-row inserts. The same SQL builds the embedded store. A dataset is reused while its spec matches.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { SingleBar } from 'cli-progress';
import pg from 'pg';
import { SCOPES } from '../src/schema/fields.js';
import { sha256 } from '../src/security/secrets.js';
import { generateSeedDocument } from '../src/seed/index.js';
import { type Db, openEmbedded, openPostgres } from '../src/storage/db.js';
import { migrate } from '../src/storage/migrate.js';
import type { Store } from './scenario.js';

export interface DatasetSpec {
  store: Store;
  /** Suppliers spread over the big workspaces. */
  suppliers: number;
  /** Audit entries spread over the big workspaces. */
  auditEntries: number;
  /** Assets, 250 per small workspace from the first one on (a PUT /assets batch changes 250 of them). */
  assets: number;
  bigWorkspaces: number;
  /** Workspaces with a key and a little of everything: the load of most scenarios is spread over them. */
  smallWorkspaces: number;
  suppliersPerSmallWorkspace: number;
  /** Gaps of the one assessment of each small workspace. */
  gapsPerAssessment: number;
}

export const ASSETS_PER_WORKSPACE = 250;

export function defaultSpec(store: Store, scale: number, smallWorkspaces: number): DatasetSpec {
  const base = store === 'postgres' ? 1_000_000 : 100_000;
  return {
    store,
    suppliers: Math.round(base * scale),
    auditEntries: Math.round(base * scale),
    assets: Math.round((store === 'postgres' ? 10_000 : 2_500) * scale),
    bigWorkspaces: 10,
    smallWorkspaces,
    suppliersPerSmallWorkspace: 60,
    gapsPerAssessment: 300,
  };
}

export interface BenchWorkspace {
  id: string;
  name: string;
  /** Bearer key with every scope. */
  key: string;
}

export interface Dataset {
  spec: DatasetSpec;
  big: BenchWorkspace[];
  small: BenchWorkspace[];
  /** Small workspaces holding ASSETS_PER_WORKSPACE assets each. */
  withAssets: BenchWorkspace[];
}

/**
 * The key of a bench workspace, derived from its name so that a reused dataset needs no stored secret (only
 * the hash is in the database, as always). Bench databases only: the derivation is public.
 */
export function benchKey(workspaceName: string): string {
  const digest = (label: string) =>
    createHash('sha256').update(`tprm-bench:${label}:${workspaceName}`).digest();
  return `tprm_${digest('prefix').toString('hex').slice(0, 8)}_${digest('secret').toString('base64url')}`;
}

const TEMPLATE_SUPPLIERS = 1000;

/** Records to multiply, per table: the seed generator's, as JSON for json_populate_recordset. */
function templates() {
  const seed = generateSeedDocument({ size: { suppliers: TEMPLATE_SUPPLIERS }, seed: 4242 });
  return {
    suppliers: seed.suppliers ?? [],
    audit_logs: seed.audit_logs ?? [],
    assessments: (seed.assessments ?? []).filter((a) => a.status === 'completed'),
    gaps: seed.gaps ?? [],
    assets: seed.assets ?? [],
  };
}

const SUPPLIER_COLUMNS =
  'name, domain, industry, size, country, status, criticality, risk_group, vendor_profile, tags, source, email, contacts, onboarding_data, annual_spend';

/** Rows each step writes, for the progress bar. */
function plan(spec: DatasetSpec) {
  return {
    suppliers: spec.suppliers,
    audit: spec.auditEntries,
    small: spec.smallWorkspaces * (spec.suppliersPerSmallWorkspace + spec.gapsPerAssessment + 1),
    assets: Math.min(spec.assets, spec.smallWorkspaces * ASSETS_PER_WORKSPACE),
  };
}

const CHUNK = 50_000;

async function build(db: Db, spec: DatasetSpec, progress: SingleBar | null): Promise<void> {
  const rows = plan(spec);
  progress?.start(rows.suppliers + rows.audit + rows.small + rows.assets + 1, 0, { step: 'templates' });
  let done = 0;
  const advance = (count: number, step: string) => {
    done += count;
    progress?.update(done, { step });
  };
  const tpl = templates();
  for (const [table, records] of Object.entries(tpl)) {
    await db.query(`drop table if exists bench_tpl_${table}`);
    await db.query(
      `create table bench_tpl_${table} as
         select (row_number() over () - 1)::int as k, t.* from json_populate_recordset(null::${table}, $1::json) t`,
      [JSON.stringify(records)],
    );
  }
  const count = (table: keyof typeof tpl) => tpl[table].length;

  // Workspaces, one user each (keys are created by a user), one key with every scope each.
  await db.query(
    `insert into workspaces (id, name, plan)
     select gen_random_uuid(), format('bench-big-%s', lpad(i::text, 4, '0')), 'enterprise' from generate_series(0, $1::int - 1) i
     union all
     select gen_random_uuid(), format('bench-small-%s', lpad(i::text, 5, '0')), 'enterprise' from generate_series(0, $2::int - 1) i`,
    [spec.bigWorkspaces, spec.smallWorkspaces],
  );
  await db.query(
    `insert into users (workspace_id, id, name, email)
     select id, gen_random_uuid(), 'Bench Owner', 'owner@' || name || '.example' from workspaces where name like 'bench-%'`,
  );
  const owners = await db.query<{ workspace_id: string; user_id: string; name: string }>(
    `select w.id as workspace_id, u.id as user_id, w.name from workspaces w join users u on u.workspace_id = w.id
      where w.name like 'bench-%'`,
  );
  const keys = owners.map((owner) => ({ ...owner, secret: benchKey(owner.name) }));
  await db.query(
    `insert into api_keys (workspace_id, id, name, prefix, secret_hash, scopes, created_by)
     select k.workspace_id, gen_random_uuid(), 'bench key', k.prefix, k.hash, $4::text[], k.user_id
       from unnest($1::uuid[], $2::uuid[], $3::text[], $5::bytea[]) as k(workspace_id, user_id, prefix, hash)`,
    [
      keys.map((k) => k.workspace_id),
      keys.map((k) => k.user_id),
      keys.map((k) => k.secret.slice(0, 13)),
      [...SCOPES],
      keys.map((k) => sha256(k.secret)),
    ],
  );
  advance(1, 'suppliers');

  const big = (
    await db.query<{ id: string }>(`select id from workspaces where name like 'bench-big-%' order by name`)
  ).map((row) => row.id);
  // Two years of history, oldest first: row n of the whole sequence is created `n` steps after the start.
  const span = { start: new Date(Date.now() - 730 * 86_400_000).toISOString(), days: 729 };
  const step = (total: number) => `${(span.days * 86_400) / Math.max(total, 1)} seconds`;

  const supplierChunk = (from: number, to: number) =>
    db.query(
      `insert into suppliers (workspace_id, id, ${SUPPLIER_COLUMNS}, created_at, updated_at)
       select ($1::uuid[])[1 + n % $2], gen_random_uuid(), t.name, 's' || n || '-' || t.domain,
              t.industry, t.size, t.country, t.status, t.criticality, t.risk_group, t.vendor_profile, t.tags, t.source,
              t.email, t.contacts, t.onboarding_data, t.annual_spend,
              $4::timestamptz + n * $5::interval, $4::timestamptz + n * $5::interval + interval '3 days'
         from generate_series($6::int, $7::int) n join bench_tpl_suppliers t on t.k = n % $3`,
      [big, big.length, count('suppliers'), span.start, step(spec.suppliers), from, to],
    );
  // Audit entries wait in a table of their own until they are appended to the chain (below).
  await db.query('create table bench_audit_pending (like audit_logs)');
  const auditChunk = (from: number, to: number) =>
    db.query(
      `insert into bench_audit_pending (workspace_id, id, occurred_at, action, actor_type, actor_id, target_type,
                                        target_id, request_id, metadata, created_at)
       select ($1::uuid[])[1 + n % $2], gen_random_uuid(), $4::timestamptz + n * $5::interval, t.action, t.actor_type,
              t.actor_id, t.target_type, t.target_id, t.request_id, t.metadata, $4::timestamptz + n * $5::interval
         from generate_series($6::int, $7::int) n join bench_tpl_audit_logs t on t.k = n % $3`,
      [big, big.length, count('audit_logs'), span.start, step(spec.auditEntries), from, to],
    );
  // Chunks of both tables, two at a time (PostgreSQL spends them on two cores; the embedded store has one).
  const chunks: (() => Promise<unknown>)[] = [];
  for (let from = 0; from < Math.max(spec.suppliers, spec.auditEntries); from += CHUNK) {
    for (const [total, insert, label] of [
      [spec.suppliers, supplierChunk, 'suppliers'],
      [spec.auditEntries, auditChunk, 'audit entries'],
    ] as const) {
      if (from >= total) continue;
      const to = Math.min(total, from + CHUNK) - 1;
      chunks.push(async () => {
        await insert(from, to);
        advance(to - from + 1, label);
      });
    }
  }
  const workers = db.engine === 'postgres' ? 2 : 1;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let next = chunks.shift(); next; next = chunks.shift()) await next();
    }),
  );

  // Small workspaces: suppliers, one completed assessment of the oldest supplier, its gaps.
  const small = `(select id, (row_number() over (order by name) - 1)::int as o from workspaces where name like 'bench-small-%')`;
  await db.query(
    `insert into suppliers (workspace_id, id, ${SUPPLIER_COLUMNS}, created_at, updated_at)
     select w.id, gen_random_uuid(), t.name, 'w' || j || '-' || t.domain, t.industry, t.size,
            t.country, t.status, t.criticality, t.risk_group, t.vendor_profile, t.tags, t.source, t.email, t.contacts,
            t.onboarding_data, t.annual_spend,
            $3::timestamptz + j * interval '5 days', $3::timestamptz + j * interval '5 days' + interval '1 day'
       from ${small} w cross join generate_series(0, $1::int - 1) j join bench_tpl_suppliers t on t.k = (w.o * $1 + j) % $2`,
    [spec.suppliersPerSmallWorkspace, count('suppliers'), span.start],
  );
  await db.query(
    `insert into assessments (workspace_id, id, supplier_id, assessment_type, status, decision, vendor_profile, score,
                              deadline, validity_days, sent_at, completed_at, contract_value, created_at, updated_at)
     select w.id, gen_random_uuid(), s.id, t.assessment_type, t.status, t.decision, t.vendor_profile, t.score,
            t.deadline, t.validity_days, t.sent_at, t.completed_at, t.contract_value, t.created_at, t.updated_at
       from ${small} w
       cross join lateral (select id from suppliers where workspace_id = w.id order by created_at, id limit 1) s
       join bench_tpl_assessments t on t.k = w.o % $1`,
    [count('assessments')],
  );
  await db.query(
    `insert into gaps (workspace_id, id, assessment_id, control_code, control_title, gap_description, domain, status,
                      severity, evidence_status, evidence, created_at, updated_at)
     select a.workspace_id, gen_random_uuid(), a.id, t.control_code || '.' || lpad(j::text, 3, '0'), t.control_title,
            t.gap_description, t.domain, t.status, t.severity, t.evidence_status, t.evidence, a.created_at, a.updated_at
       from assessments a join ${small} w on w.id = a.workspace_id
       cross join generate_series(0, $1::int - 1) j join bench_tpl_gaps t on t.k = (w.o * 7 + j) % $2`,
    [spec.gapsPerAssessment, count('gaps')],
  );
  advance(rows.small, 'assets');

  // Assets: one cloud inventory (aws) per workspace, as a PUT /assets sync keeps it.
  await db.query(
    `insert into assets (workspace_id, id, external_id, name, asset_type, technical_criticality, exposure, region,
                         cloud_metadata, source, cloud_provider, review_status, created_at, updated_at)
     select w.id, gen_random_uuid(),
            format('arn:aws:ec2:%s:210987654321:instance/i-%s', r.region, substr(md5(w.id::text || j), 1, 17)),
            t.name || '-' || j, t.asset_type, t.technical_criticality, t.exposure, r.region, t.cloud_metadata,
            'cloud', 'aws', t.review_status, t.created_at, t.updated_at
       from ${small} w cross join generate_series(0, $1::int - 1) j
       join bench_tpl_assets t on t.k = (w.o * $1 + j) % $2
       cross join lateral (select (array['us-east-1', 'eu-west-1', 'eu-central-1', 'ap-southeast-1'])[1 + j % 4] as region) r
      where w.o < $3`,
    [ASSETS_PER_WORKSPACE, count('assets'), Math.ceil(spec.assets / ASSETS_PER_WORKSPACE)],
  );
  // The audit hash chain (docs/decisions.md P102): a big workspace's trail is empty (made in SQL, it has no
  // workspace.created), so its whole history is appended to it as an import appends entries.
  await db.transaction(async (tx) => {
    // A million entries take longer than the pool's statement timeout, which is meant for requests.
    await tx.query('set local statement_timeout = 0');
    for (const workspaceId of big) {
      const [row] = await tx.query<{ appended: { refused?: number[] } }>(
        `select audit_append_imported($1::uuid, (select coalesce(json_agg(p), '[]') from bench_audit_pending p
                                                  where p.workspace_id = $1)) as appended`,
        [workspaceId],
      );
      if (row?.appended.refused) throw new Error(`bench: the audit history of ${workspaceId} was refused`);
    }
  });
  await db.query('drop table bench_audit_pending');
  advance(rows.assets, 'analyze');
  for (const table of Object.keys(tpl)) await db.query(`drop table bench_tpl_${table}`);
  await db.query(
    'vacuum analyze workspaces, users, api_keys, suppliers, audit_logs, assessments, gaps, assets',
  );
  await db.query(
    'create table bench_dataset (spec jsonb not null, built_at timestamptz not null default now())',
  );
  await db.query('insert into bench_dataset (spec) values ($1::jsonb)', [JSON.stringify(spec)]);
  progress?.stop();
}

async function storedSpec(db: Db): Promise<DatasetSpec | null> {
  const [table] = await db.query<{ exists: boolean }>(
    "select to_regclass('bench_dataset') is not null as exists",
  );
  if (!table?.exists) return null;
  const [row] = await db.query<{ spec: DatasetSpec }>('select spec from bench_dataset');
  return row?.spec ?? null;
}

// jsonb stores keys in its own order, which deep equality ignores.
const sameSpec = (a: DatasetSpec | null, b: DatasetSpec) => isDeepStrictEqual(a, b);

async function recreateDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]*$/.test(name))
    throw new Error(`bench database name must be a plain identifier: ${name}`);
  target.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: target.href });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
}

async function databaseExists(url: string): Promise<boolean> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  target.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: target.href });
  await admin.connect();
  try {
    const result = await admin.query('select 1 from pg_database where datname = $1', [name]);
    return result.rowCount === 1;
  } finally {
    await admin.end();
  }
}

export type Location = { store: 'postgres'; url: string } | { store: 'embedded'; dataDir: string };

export async function openStore(location: Location): Promise<Db> {
  if (location.store === 'postgres') return openPostgres(location.url, { max: 4 });
  mkdirSync(location.dataDir, { recursive: true });
  return openEmbedded(join(location.dataDir, 'pgdata'));
}

/** Opens the dataset described by `spec`, building it first when it is missing, different, or `fresh`. */
export async function openDataset(
  location: Location,
  spec: DatasetSpec,
  options: { fresh: boolean; log: (line: string) => void; progress: boolean },
): Promise<{ db: Db; dataset: Dataset; built: boolean }> {
  let db: Db | null = null;
  if (!options.fresh) {
    const exists =
      location.store === 'embedded'
        ? existsSync(join(location.dataDir, 'pgdata', 'PG_VERSION'))
        : await databaseExists(location.url);
    if (exists) {
      db = await openStore(location);
      if (!sameSpec(await storedSpec(db), spec)) {
        await db.close();
        db = null;
      }
    }
  }
  let built = false;
  if (!db) {
    options.log(`Building the ${spec.store} dataset: ${JSON.stringify(spec)}`);
    if (location.store === 'postgres') await recreateDatabase(location.url);
    else rmSync(location.dataDir, { recursive: true, force: true });
    db = await openStore(location);
    await migrate(db);
    const bar = options.progress
      ? new SingleBar({
          format: '  {bar} {percentage}% | {value}/{total} rows | {step} | {duration}s',
          hideCursor: true,
        })
      : null;
    const started = Date.now();
    await build(db, spec, bar);
    options.log(`Dataset built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    built = true;
  } else {
    // New migrations (another branch merged) apply to a reused dataset too.
    await migrate(db);
  }
  return { db, dataset: await loadWorkspaces(db, spec), built };
}

async function loadWorkspaces(db: Db, spec: DatasetSpec): Promise<Dataset> {
  const rows = await db.query<{ id: string; name: string }>(
    `select id, name from workspaces where name like 'bench-%' order by name`,
  );
  const all = rows.map((row) => ({ id: row.id, name: row.name, key: benchKey(row.name) }));
  const small = all.filter((w) => w.name.startsWith('bench-small-'));
  return {
    spec,
    big: all.filter((w) => w.name.startsWith('bench-big-')),
    small,
    withAssets: small.slice(0, Math.ceil(spec.assets / ASSETS_PER_WORKSPACE)),
  };
}
