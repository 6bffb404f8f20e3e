// The layers of src/ (docs/architecture.md), checked on the source: shared machinery never reaches into the
// slices, the operator side or the wiring, and no module depends on itself through others (type imports
// included, since they still tie the modules' designs together).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { OperatorContext } from '../src/http/operator.js';
import type { RouteContext } from '../src/http/route.js';
import type { Queryable } from '../src/storage/db.js';
import type { OperatorStore } from '../src/storage/operator.js';
import type { TenantDb } from '../src/storage/tenant.js';
import type { UnitOfWork } from '../src/storage/unit-of-work.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
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

/**
 * The members of a handler's context that reach the database other than through one workspace's TenantDb: a
 * pool or transaction (a Queryable), something holding one (`db`), or a function answering one.
 */
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

/** Source text of every module, by path relative to src/. */
const sources = () =>
  new Map(sourceFiles(src).map((file) => [relative(src, file), readFileSync(file, 'utf8')]));

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
      (module) => contractModule(module) && !module.startsWith('contract/') && !module.startsWith('schema/'),
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
      (module) => !contractModule(module) && module !== 'mcp/catalog.ts' && module !== 'openapi/examples.ts',
    );
    assert.deepEqual(loaded, []);
  });

  it('a write goes through the context: only the unit of work and the events write audit entries and events', () => {
    const writers = /\b(recordAudit|recordEvent|storeEvent|appendImportedAudit)\s*\(/g;
    const violations = [...sources()].flatMap(([module, text]) =>
      module === 'storage/unit-of-work.ts' || module.startsWith('events/')
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
