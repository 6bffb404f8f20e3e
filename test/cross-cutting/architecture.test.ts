// The layers of src/ (docs/architecture.md), checked on the source: shared machinery never reaches into the
// slices, the operator side or the wiring, and no module depends on itself through others (type imports
// included, since they still tie the modules' designs together).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Module → the src modules it imports (static, dynamic and type-only), as paths relative to src/. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.[^']+)'/g)].map(
      (m) => m[1] as string,
    );
    const targets = specifiers
      .map((specifier) => relative(src, normalize(join(dirname(file), specifier))).replace(/\.js$/, '.ts'))
      .filter((target) => !target.startsWith('..'));
    graph.set(relative(src, file), targets);
  }
  return graph;
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

  it('reads the source tree', () => {
    assert.ok(graph.size > 50, `only ${graph.size} modules found under ${src}`);
    assert.ok(
      graph.get('app.ts')?.includes('http/route.ts'),
      'the import parser sees app.ts → http/route.ts',
    );
  });

  it('has no import circle', () => {
    assert.deepEqual(circles(graph), []);
  });

  it('shared layers never import the slices, the operator side or the wiring', () => {
    const shared = ['http/', 'storage/', 'events/', 'schema/', 'security/'];
    const above = ['resources/', 'management/', 'app.ts', 'main.ts', 'openapi/'];
    const violations = [...graph.entries()].flatMap(([module, targets]) =>
      shared.some((layer) => module.startsWith(layer))
        ? targets
            .filter((target) => above.some((layer) => target.startsWith(layer)))
            .map((target) => `${module} → ${target}`)
        : [],
    );
    assert.deepEqual(violations, []);
  });

  it('the circle check catches a circle', () => {
    const sample = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    assert.deepEqual(circles(sample), [['a.ts', 'b.ts', 'c.ts']]);
  });
});
