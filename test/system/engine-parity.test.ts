// One JSON rendering on both engines (docs/decisions.md P124, P125): the same data, loaded into the embedded
// store and into a PostgreSQL server, gives byte-equal answers to every GET of the public API and of the
// management API, once ids, instants and what is made of them (cursors, hashes, request ids, key prefixes)
// are masked; and each engine's answers follow the rendering rules (no whitespace between tokens, numbers in
// their shortest form) outside stored documents. Both engines run in the PostgreSQL run of the suite (PGlite
// is always in-process); the embedded-store run checks PGlite's answers and has no server to compare with.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { adminOperations } from '../../src/management/admin-operations.js';
import { publicOperations } from '../../src/resources/operations.js';
import { SCOPES } from '../../src/schema/fields.js';
import { DAY } from '../../src/seed/format.js';
import { generateSeedDocument } from '../../src/seed/index.js';
import { ENGINE, Harness, type Response } from '../support/harness.js';

const skip =
  ENGINE !== 'postgres' &&
  'needs a PostgreSQL server (TEST_DATABASE_URL) to compare with the embedded store: runs in the PostgreSQL run';

// The data's "now", shared by both engines: the start of the UTC day, so that the default windows (risk
// scores: the last 90 days) hold the seeded points.
const NOW = new Date(Math.floor(Date.now() / DAY) * DAY);

// Text JSON must escape, and amounts of every shape: integer-valued, one decimal, cents, the largest stored.
const AWKWARD = [
  'quote " backslash \\ slash /',
  'controls \u0001\t\n\u001f DEL \u007f',
  '\u2028 東京 🦊 </script>',
];
const AMOUNTS = [134829, 1234.5, 0.07, 99999999999999.98];

/** Everything in a body that depends on when or where it was made, rather than on the data. */
const MASKS: [RegExp, string][] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>'],
  [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, '<instant>'],
  // Made of ids and instants: cursors (a row's sort key), the audit chain's hashes, request ids, key prefixes.
  [/"(next_cursor|hash|previous_hash|head_hash|request_id|prefix)":"[^"]*"/g, '"$1":"<masked>"'],
];

const mask = (text: string) => MASKS.reduce((out, [pattern, by]) => out.replace(pattern, by), text);

/** The data of one answer as compared: status, content type and the masked body. */
const answerText = (response: Response) =>
  `${response.status} ${response.headers['content-type'] ?? ''}\n${mask(response.body)}`;

interface Answers {
  /** Request ("GET /suppliers?limit=20 (all scopes)", masked) and answer, in the order they were made. */
  bodies: [string, string][];
  /** The routes answered, by operationId. */
  operations: Set<string>;
  /** The names of the stored documents: the jsonb columns (free-form objects, the service's histories). */
  documents: Set<string>;
}

/** Loads the data into a new harness on `engine` and records the answer to every GET of both listeners. */
async function answersOf(engine: 'pglite' | 'postgres'): Promise<Answers> {
  const h = await Harness.start({ engine });
  try {
    const ws = await h.workspace({ name: 'Parity workspace' });
    const narrow = await h.key(
      ws.id,
      ws.userId,
      SCOPES.filter((scope) => scope !== 'pii:read' && scope !== 'evidence:read'),
    );
    const document = generateSeedDocument({ size: { suppliers: 8 }, seed: 124, now: NOW });
    document.suppliers = [
      ...(document.suppliers ?? []),
      ...AWKWARD.map((text, i) => ({
        id: `00000000-0000-4000-8000-00000000000${i}`,
        created_at: NOW.toISOString(),
        name: `Awkward ${i} ${text}`,
        industry: text,
        tags: [text, `tag-${i}`],
        contacts: [{ name: text, email: null }],
        onboarding_data: { note: text, nested: { list: [text, 1.5, null, true, AMOUNTS[i]] } },
        annual_spend: AMOUNTS[i],
      })),
      {
        id: '00000000-0000-4000-8000-000000000009',
        created_at: NOW.toISOString(),
        name: 'Largest spend',
        annual_spend: AMOUNTS[3],
      },
    ];
    await h.import(ws.id, document);

    // Records made through the APIs, as an operator and a client would: an endpoint and an alert (with its
    // pending delivery), a created supplier, an item's status change (its history).
    const endpoint = await h.admin('POST', `/admin/workspaces/${ws.id}/webhook-endpoints`, {
      url: 'https://hooks.example.com/tprm',
      events: ['alert.created', 'action_plan_item.status_changed'],
      description: AWKWARD[0],
    });
    assert.equal(endpoint.status, 201, endpoint.body);
    // A sink, so that its GET and its (empty) delivery log are read too; no worker runs here.
    const sink = await h.admin('POST', `/admin/workspaces/${ws.id}/sinks`, {
      kind: 'http',
      url: 'https://collector.example.com/tprm',
      sources: ['audit', 'events'],
      description: AWKWARD[0],
    });
    assert.equal(sink.status, 201, sink.body);
    const alert = await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
      scope: 'org',
      severity: 'high',
      title: AWKWARD[1],
      body: AWKWARD[2],
    });
    assert.equal(alert.status, 201, alert.body);
    const created = await h.api('POST', '/suppliers', {
      key: ws.key,
      body: { name: `Created ${AWKWARD[0]}`, domain: 'created.example', tags: [AWKWARD[2]] },
      headers: { 'idempotency-key': 'parity-create' },
    });
    assert.equal(created.status, 201, created.body);
    const plans = await h.api('GET', '/action-plans?limit=1', { key: ws.key });
    const items = await h.api('GET', `/action-plans/${plans.json.data[0].id}/items`, { key: ws.key });
    const changed = await h.api('PATCH', `/action-plan-items/${items.json.data[0].id}`, {
      key: ws.key,
      body: { status: 'in_progress', note: AWKWARD[1] },
    });
    assert.equal(changed.status, 200, changed.body);

    const columns = await h.db.query<{ column_name: string }>(
      "select distinct column_name from information_schema.columns where data_type = 'jsonb' and table_schema = 'public'",
    );
    const answers: Answers = {
      bodies: [],
      operations: new Set(),
      documents: new Set(columns.map((column) => column.column_name)),
    };
    const record = (operationId: string, label: string, response: Response) => {
      answers.operations.add(operationId);
      answers.bodies.push([mask(label), answerText(response)]);
    };

    // Public GETs, with every scope and without the personal ones; lists page by page. A path id is each id
    // of its parent list (`/assessments/:id/gaps`: every assessment).
    const ids = new Map<string, string[]>();
    const gets = publicOperations.filter((route) => route.method === 'GET');
    for (const [key, who] of [
      [ws.key, 'all scopes'],
      [narrow.secret, 'without pii:read, evidence:read'],
    ] as const) {
      const fetchAll = async (operationId: string, path: string, paged: boolean) => {
        let cursor: string | undefined;
        do {
          const url = paged
            ? `${path}?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
            : path;
          const response = await h.api('GET', url, { key });
          record(operationId, `GET ${url} (${who})`, response);
          const data = response.json?.data;
          if (Array.isArray(data))
            for (const item of data)
              if (typeof item?.id === 'string') ids.set(path, [...(ids.get(path) ?? []), item.id]);
          cursor = response.json?.has_more ? response.json.next_cursor : undefined;
        } while (cursor);
      };
      ids.clear();
      for (const route of gets.filter((r) => !r.path.includes(':')))
        await fetchAll(route.id, route.path, Boolean(route.query?.properties.limit));
      // An action plan item has no list of its own: its ids are those of every plan's items (read before).
      const idsOf = (parent: string) =>
        ids.get(parent) ??
        (parent === '/action-plan-items'
          ? [...ids].flatMap(([path, found]) => (/^\/action-plans\/[^/]+\/items$/.test(path) ? found : []))
          : []);
      for (const route of gets.filter((r) => r.path.includes(':'))) {
        const parent = route.path.slice(0, route.path.indexOf('/:'));
        for (const id of idsOf(parent))
          await fetchAll(route.id, route.path.replace(':id', id), Boolean(route.query?.properties.limit));
      }
    }

    // Management GETs: `/workspaces/:id…` of this workspace, `/webhook-endpoints/:id…` of its endpoints,
    // `/sinks/:id…` of its sink.
    const endpoints = (await h.admin('GET', `/admin/workspaces/${ws.id}/webhook-endpoints`)).json.data as {
      id: string;
    }[];
    const adminIds: Record<string, string[]> = {
      '/workspaces': [ws.id],
      '/webhook-endpoints': endpoints.map((e) => e.id),
      '/sinks': [(sink.json as { id: string }).id],
    };
    for (const [operationId, route] of Object.entries(adminOperations)) {
      if (route.method !== 'GET') continue;
      const parent = route.path.includes(':') ? route.path.slice(0, route.path.indexOf('/:')) : undefined;
      for (const id of parent ? (adminIds[parent] ?? []) : [undefined]) {
        const url = `/admin${id ? route.path.replace(':id', id) : route.path}`;
        record(operationId, `GET ${url}`, await h.admin('GET', url));
      }
    }
    return answers;
  } finally {
    await h.close();
  }
}

/**
 * Where `text` (valid JSON) departs from the one rendering outside stored documents (the values of the
 * `documents` keys, served as PostgreSQL prints jsonb): whitespace between tokens (P124), a number not in its
 * shortest form (P125: no exponent, no trailing zero after the point, no point for an integer).
 */
function renderingFaults(text: string, documents: ReadonlySet<string>): string[] {
  const faults: string[] = [];
  let at = 0;
  const space = (path: string, free: boolean) => {
    const start = at;
    while (' \t\n\r'.includes(text[at] ?? 'end')) at += 1;
    if (at > start && !free) faults.push(`whitespace at byte ${start} (${path})`);
  };
  const string = () => {
    at += 1;
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at += 1;
  };
  const scalar = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
  const value = (path: string, free: boolean): void => {
    const opening = text[at];
    if (opening === '"') {
      string();
      return;
    }
    if (opening !== '{' && opening !== '[') {
      scalar.lastIndex = at;
      const token = scalar.exec(text)?.[0] ?? '';
      at += token.length;
      if (!free && /^-?\d/.test(token) && !/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/.test(token))
        faults.push(`${path}: ${token} is not a number's shortest form`);
      return;
    }
    const close = opening === '{' ? '}' : ']';
    at += 1;
    space(path, free);
    for (let index = 0; text[at] !== close; index += 1) {
      if (index > 0) {
        at += 1; // the comma
        space(path, free);
      }
      if (close === ']') value(`${path}[${index}]`, free);
      else {
        const keyStart = at;
        string();
        const key = JSON.parse(text.slice(keyStart, at)) as string;
        space(path, free);
        at += 1; // the colon
        space(path, free);
        value(`${path}.${key}`, free || documents.has(key));
      }
      space(path, free);
    }
    at += 1;
  };
  value('$', false);
  return faults;
}

describe('one JSON rendering on both engines', () => {
  let embedded: Answers;
  let server: Answers | undefined;
  before(async () => {
    embedded = await answersOf('pglite');
    if (ENGINE === 'postgres') server = await answersOf('postgres');
  });

  test('every GET of both listeners was answered, on the same requests', () => {
    const everyGet = [
      ...publicOperations.filter((route) => route.method === 'GET').map((route) => route.id),
      ...Object.entries(adminOperations)
        .filter(([, route]) => route.method === 'GET')
        .map(([operationId]) => operationId),
    ];
    for (const answers of server ? [embedded, server] : [embedded])
      assert.deepEqual([...answers.operations].sort(), [...new Set(everyGet)].sort());
    if (server)
      assert.deepEqual(
        server.bodies.map(([request]) => request),
        embedded.bodies.map(([request]) => request),
      );
  });

  test('no whitespace between tokens and every number in its shortest form, on each engine', () => {
    for (const [engine, answers] of [
      ['PGlite', embedded],
      ['PostgreSQL', server],
    ] as const) {
      if (!answers) continue;
      let checked = 0;
      for (const [request, answer] of answers.bodies) {
        const [statusAndType = '', body = ''] = answer.split(/\n(.*)/s);
        if (!statusAndType.includes('application/json')) continue;
        assert.deepEqual(renderingFaults(body, answers.documents).slice(0, 5), [], `${engine}, ${request}`);
        checked += 1;
      }
      assert.ok(checked > 100, `${engine}: ${checked} JSON answers checked`);
    }
  });

  test('one answer fetched from each engine on the same data is byte-equal, ids and instants masked', {
    skip,
  }, () => {
    const other = server as Answers;
    assert.ok(embedded.bodies.length > 100, `${embedded.bodies.length} answers compared`);
    embedded.bodies.forEach(([request, expected], i) => {
      const actual = other.bodies[i]?.[1] ?? '';
      if (actual === expected) return;
      // The first difference, in context: a whole page would bury it.
      let at = 0;
      while (actual[at] === expected[at]) at += 1;
      const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 120), at + 120));
      assert.fail(
        `${request}: the answers differ at byte ${at}\n  PGlite:     ${around(expected)}\n  PostgreSQL: ${around(actual)}`,
      );
    });
  });
});
