// The layers of src/, checked on the source against the table of docs/architecture.md "Layers": every folder
// and file of src/ is in a row, every row names something, and every import (static, dynamic and type-only,
// since type imports still tie the modules' designs together) goes to a module its row may import. No module
// depends on itself through others.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

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

describe('architecture', () => {
  const graph = importGraph();
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
