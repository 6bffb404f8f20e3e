// The layers of src/, checked on the source against the table of docs/architecture.md "Layers": every folder
// and file of src/ is in a row, every row names something, and every import (static, dynamic and type-only,
// since type imports still tie the modules' designs together) goes to a module its row may import. No module
// depends on itself through others.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { OperatorContext } from '../../src/http/operator.js';
import type { RouteContext } from '../../src/http/route.js';
import type { Queryable } from '../../src/storage/db.js';
import type { OperatorStore } from '../../src/storage/operator.js';
import type { TenantDb } from '../../src/storage/tenant.js';
import type { UnitOfWork } from '../../src/storage/unit-of-work.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const src = join(root, 'src');

/** Every file and folder under `dir`, as paths relative to the project root (folders end in `/`). */
function entries(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    const rel = relative(root, path);
    return entry.isDirectory() ? [`${rel}/`, ...entries(path)] : [rel];
  });
}

/** Module → the modules it imports (static, dynamic and type-only), as paths relative to the project root. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const module of entries(src).filter((path) => path.endsWith('.ts'))) {
    const text = readFileSync(join(root, module), 'utf8');
    const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.[^']+)'/g)].map(
      (m) => m[1] as string,
    );
    graph.set(
      module,
      specifiers.map((specifier) => normalize(join(dirname(module), specifier)).replace(/\.js$/, '.ts')),
    );
  }
  return graph;
}

/** A row of the layer table: the paths it holds and the paths its modules may import. */
interface LayerRow {
  layer: string;
  paths: string[];
  mayImport: string[];
}

/** The rows of the table under `## Layers` in `markdown`: each backquoted path of the 2nd and 4th columns. */
function layerTable(markdown: string): LayerRow[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Layers\n'));
  assert.ok(section, 'docs/architecture.md has no "## Layers" section');
  const quoted = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|').slice(1, -1))
    .filter((cells) => cells.length === 4 && quoted(cells[1] as string).length > 0)
    .map((cells) => ({
      layer: (cells[0] as string).trim(),
      paths: quoted(cells[1] as string),
      mayImport: quoted(cells[3] as string),
    }));
}

/**
 * Whether `path` is in `pattern` (a file, or a folder ending in `/` that holds itself and all below it), where
 * `*` is any one folder and `<area>` one folder, which `area` fixes when given: returns the folder `<area>`
 * stood for (`''` when the pattern has none), or null.
 */
function match(pattern: string, path: string, area = ''): string | null {
  const folder = pattern.endsWith('/');
  const parts = pattern.replace(/\/$/, '').split('/');
  const segments = path.replace(/\/$/, '').split('/');
  if (folder ? segments.length < parts.length : segments.length !== parts.length || path.endsWith('/'))
    return null;
  let bound = '';
  for (const [i, part] of parts.entries()) {
    const segment = segments[i] as string;
    if (part === '<area>' && (area === '' || segment === area)) bound = segment;
    else if (part !== '*' && part !== segment) return null;
  }
  return bound;
}

/** The row that holds `path`: the most specific one (a file before a folder, a deeper folder before another). */
function rowOf(rows: readonly LayerRow[], path: string): { row: LayerRow; area: string } | null {
  let best: { row: LayerRow; area: string; rank: number } | null = null;
  for (const row of rows)
    for (const pattern of row.paths) {
      const area = match(pattern, path);
      if (area === null) continue;
      const rank = (pattern.endsWith('/') ? 0 : 100) + pattern.split('/').length;
      if (!best || rank > best.rank) best = { row, area, rank };
    }
  return best && { row: best.row, area: best.area };
}

/** The imports that go against the table, as "module → target (row)". */
function violations(rows: readonly LayerRow[], graph: Map<string, string[]>): string[] {
  return [...graph.entries()].flatMap(([module, targets]) => {
    const home = rowOf(rows, module);
    if (!home) return [`${module}: in no row`];
    const allowed = [...home.row.paths, ...home.row.mayImport];
    return targets
      .filter((target) => !allowed.some((pattern) => match(pattern, target, home.area) !== null))
      .map((target) => `${module} → ${target} (${home.row.layer} ${home.row.paths.join(', ')})`);
  });
}

/** Every import circle, as its modules (Tarjan's strongly connected components of more than one module). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next))
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

type RawDatabase<T> = {
  [K in keyof T]-?: T[K] extends TenantDb
    ? never
    : T[K] extends Queryable | { db: unknown }
      ? K
      : T[K] extends (...args: never[]) => infer R
        ? Awaited<R> extends TenantDb
          ? never
          : Awaited<R> extends Queryable
            ? K
            : never
        : never;
}[keyof T];

/** Source text of every module of src/, by path relative to src/. */
const sources = () =>
  new Map(
    entries(src)
      .filter((path) => path.endsWith('.ts'))
      .map((path) => [relative('src', path), readFileSync(join(root, path), 'utf8')]),
  );

describe('architecture', () => {
  const graph = importGraph();
  const fullGraph = graph;
  const rows = layerTable(readFileSync(join(root, 'docs/architecture.md'), 'utf8'));

  it('reads the source tree and the table', () => {
    assert.ok(graph.size > 50, `only ${graph.size} modules found under ${src}`);
    assert.ok(
      graph.get('src/app.ts')?.includes('src/http/route.ts'),
      'the import parser sees app.ts → http/route.ts',
    );
    assert.ok(rows.length > 10, `only ${rows.length} rows read from docs/architecture.md`);
  });

  it('every folder and file of src/ is in a row of the table', () => {
    const unplaced = entries(src).filter(
      (path) => !rowOf(rows, path) && !rows.some((row) => row.paths.some((p) => p.startsWith(path))),
    );
    assert.deepEqual(unplaced, []);
  });

  it('every row names something that exists', () => {
    const all = entries(src);
    const empty = rows.flatMap((row) =>
      row.paths.filter((pattern) => !all.some((path) => match(pattern, path) !== null)),
    );
    assert.deepEqual(empty, []);
  });

  it("every import goes to its row or to what the row's last column names", () => {
    assert.deepEqual(violations(rows, graph), []);
  });

  it('has no import circle', () => {
    assert.deepEqual(circles(graph), []);
  });

  describe('operations and writes', () => {
    // The same graph with paths relative to src/ (imports from outside src/ left out).
    const graph = new Map(
      [...fullGraph.entries()]
        .filter(([module]) => module.startsWith('src/'))
        .map(([module, targets]) => [
          module.slice(4),
          targets.filter((target) => target.startsWith('src/')).map((target) => target.slice(4)),
        ]),
    );

    it('the resource slices never import the operator side', () => {
      const violations = [...graph.entries()].flatMap(([module, targets]) =>
        module.startsWith('resources/')
          ? targets
              .filter((target) => target.startsWith('management/'))
              .map((target) => `${module} → ${target}`)
          : [],
      );
      assert.deepEqual(violations, []);
    });

    // A contract module (docs/architecture.md "Operations") declares operations, public or operator: it imports
    // only contracts and schemas, so whatever reads the operations loads no handler, no Fastify and no storage.
    const contractModule = (module: string) =>
      module.startsWith('contract/') ||
      module.startsWith('schema/') ||
      /^resources\/([\w-]+\/)?(operations|lifecycle|schema)\.ts$/.test(module) ||
      module === 'management/operations.ts' ||
      module === 'openapi/reference-operations.ts';

    it('contract modules import only contracts and schemas', () => {
      const contracts = [...graph.keys()].filter(
        (module) =>
          contractModule(module) && !module.startsWith('contract/') && !module.startsWith('schema/'),
      );
      assert.ok(contracts.length >= 20, `contract modules found: ${contracts.join(', ')}`);
      const violations = contracts.flatMap((module) => {
        const slice = /^resources\/([\w-]+)\/(operations|lifecycle)\.ts$/.exec(module)?.[1];
        const allowed = (target: string) =>
          target.startsWith('contract/') ||
          target.startsWith('schema/') ||
          // A slice's operations read its own schema; the list of all operations reads each slice's.
          (slice !== undefined && target === `resources/${slice}/schema.ts`) ||
          (module === 'management/operations.ts' && target === 'management/schemas.ts') ||
          (module === 'resources/operations.ts' && /^resources\/[\w-]+\/operations\.ts$/.test(target)) ||
          // The webhook payloads name other slices' enumerations (until the event catalogue has its own home).
          (/^resources\/[\w-]+\/schema\.ts$/.test(module) && /^resources\/[\w-]+\/schema\.ts$/.test(target));
        return (graph.get(module) ?? [])
          .filter((target) => !allowed(target))
          .map((target) => `${module} → ${target}`);
      });
      assert.deepEqual(violations, []);
    });

    /** Every src module `module` loads, itself included. */
    const closure = (module: string): Set<string> => {
      const seen = new Set<string>();
      const visit = (node: string) => {
        if (seen.has(node)) return;
        seen.add(node);
        for (const next of graph.get(node) ?? []) visit(next);
      };
      visit(module);
      return seen;
    };

    it('the document, the code samples and the MCP catalogue read contracts, never handlers', () => {
      for (const reader of ['openapi/document.ts', 'openapi/code-samples.ts', 'mcp/catalog.ts']) {
        const handlers = [...closure(reader)].filter(
          (module) => module.startsWith('resources/') && !contractModule(module),
        );
        assert.deepEqual(handlers, [], `${reader} loads handler modules`);
      }
      // The catalogue loads contracts alone (and the JSON Schema helpers): `tprm mcp` starts without the pipeline.
      const loaded = [...closure('mcp/catalog.ts')].filter(
        (module) =>
          !contractModule(module) && module !== 'mcp/catalog.ts' && module !== 'openapi/examples.ts',
      );
      assert.deepEqual(loaded, []);
    });

    it('a write goes through the context: only the unit of work and the workers write audit entries and events', () => {
      const writers = /\b(recordAudit|recordEvent|storeEvent|appendImportedAudit)\s*\(/g;
      const violations = [...sources()].flatMap(([module, text]) =>
        // The workers' own entries: an endpoint or a sink they disable.
        module === 'storage/unit-of-work.ts' || module.startsWith('events/') || module === 'sinks/worker.ts'
          ? []
          : // Their definitions (storage/audit.ts) are not calls.
            [...text.replace(/function\s+\w+\s*\(/g, '').matchAll(writers)].map((m) => `${module}: ${m[1]}`),
      );
      assert.deepEqual(violations, []);
    });

    it('no handler context hands out the pool or a transaction', () => {
      // Checked by the compiler: each is `never` (no such member), or this assignment does not compile.
      const none: [
        RawDatabase<OperatorContext> | RawDatabase<OperatorStore> | RawDatabase<UnitOfWork>,
        RawDatabase<RouteContext> | RawDatabase<RouteContext['services']>,
      ] extends [never, never]
        ? true
        : false = true;
      assert.equal(none, true);
    });
  });

  it('the checks catch a module outside the table, an import against a row, and a circle', () => {
    const sample: LayerRow[] = [
      { layer: 'Shared', paths: ['src/http/'], mayImport: ['src/schema/'] },
      {
        layer: 'Slices',
        paths: ['src/resources/<area>/'],
        mayImport: ['src/resources/<area>/', 'src/http/'],
      },
      { layer: 'Slices', paths: ['src/resources/<area>/schema.ts'], mayImport: ['src/schema/'] },
      { layer: 'Shared', paths: ['src/schema/'], mayImport: [] },
    ];
    const imports = new Map([
      ['src/http/route.ts', ['src/schema/fields.ts', 'src/resources/suppliers/routes.ts']],
      [
        'src/resources/suppliers/routes.ts',
        ['src/resources/suppliers/schema.ts', 'src/resources/risks/routes.ts'],
      ],
      ['src/resources/suppliers/schema.ts', ['src/schema/fields.ts', 'src/http/route.ts']],
      ['src/telemetry/tracing.ts', []],
    ]);
    assert.deepEqual(violations(sample, imports), [
      'src/http/route.ts → src/resources/suppliers/routes.ts (Shared src/http/)',
      'src/resources/suppliers/routes.ts → src/resources/risks/routes.ts (Slices src/resources/<area>/)',
      'src/resources/suppliers/schema.ts → src/http/route.ts (Slices src/resources/<area>/schema.ts)',
      'src/telemetry/tracing.ts: in no row',
    ]);
    const circle = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    assert.deepEqual(circles(circle), [['a.ts', 'b.ts', 'c.ts']]);
  });
});
