// The OCSF schema compiler of the tests (test/support/ocsf-schema.ts) on the fixtures of the schema source: the
// classes it compiles, and that it refuses a broken item for each rule it checks (so a test that validates the
// service's items with it can fail). The mappings of src/ocsf/ are pure: checked here on one item each.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, test } from 'node:test';
import { listOperation } from '../../src/contract/list.js';
import { handleList, NEWEST_FIRST } from '../../src/http/list.js';
import { type AuditItem, auditEntryToOcsf, webhookEventToOcsf } from '../../src/ocsf/index.js';
import { AuditLog } from '../../src/resources/audit-logs/schema.js';
import { OCSF_FIXTURES, OcsfSchema, OcsfValidator, SERVICE_CLASSES } from '../support/ocsf-schema.js';

// biome-ignore lint/suspicious/noExplicitAny: OCSF events and API answers are arbitrary JSON, checked by the tests
type Json = Record<string, any>;

const schema = new OcsfSchema();
const validator = new OcsfValidator(schema, SERVICE_CLASSES);
const context = { workspaceId: '7f1c2d3e-4b5a-4c6d-8e9f-0a1b2c3d4e5f', productVersion: '9.9.9' };
const entry: AuditItem = {
  id: '0b5d3f0e-4c61-4a35-9a61-3f2b2a1c9d10',
  occurred_at: '2026-01-01T00:00:00.123456Z',
  action: 'supplier.created',
  actor_type: 'user',
  actor_id: '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f',
  target_type: 'supplier',
  target_id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
  request_id: 'req_1',
  metadata: { api_key_id: '5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b' },
  created_at: '2026-01-01T00:00:00.120001Z',
  previous_hash: null,
  hash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
};
const good = () => structuredClone(auditEntryToOcsf(entry, context)) as Json;

describe('the OCSF schema compiler (test support)', () => {
  test('compiles the classes the service emits from the fixtures: ids from the category and the class', () => {
    assert.deepEqual(
      validator.classes.map(({ name, classUid, categoryUid }) => [name, classUid, categoryUid]),
      [
        ['api_activity', 6003, 6],
        ['entity_management', 3004, 3],
        ['detection_finding', 2004, 2],
      ],
    );
    // Activities: the class's own added to base_event's Unknown and Other (extends).
    assert.deepEqual(validator.classes[0]?.activityIds, [0, 1, 2, 3, 4, 99]);
    assert.equal(schema.version, '1.8.0');
    // Every file read is one of the fixtures (the constructor's default root).
    assert.ok(schema.filesRead.has('events/base_event.json'));
    assert.ok(schema.filesRead.has('profiles/cloud.json'));
    assert.ok(schema.filesRead.has('objects/actor.json'));
  });

  test('the fixtures are the files it reads, with the licence and their README, and no other', () => {
    const files = readdirSync(OCSF_FIXTURES, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(OCSF_FIXTURES, `${entry.parentPath}/${entry.name}`))
      .sort();
    assert.deepEqual(files, [...schema.filesRead, 'LICENSE', 'README.md'].sort());
  });

  test('a mapped audit entry is valid', () => {
    assert.deepEqual(validator.problems(good()), []);
  });

  const broken: [string, (item: Json) => void, RegExp][] = [
    [
      'a required attribute is missing',
      (item) => {
        delete item.time;
      },
      /required property 'time'/,
    ],
    [
      'a class attribute is missing (API Activity needs api)',
      (item) => {
        delete item.api;
      },
      /required property 'api'/,
    ],
    [
      'a required attribute of an object is missing',
      (item) => {
        delete item.metadata.version;
      },
      /\/metadata .*'version'/,
    ],
    [
      'a timestamp is not an integer',
      (item) => {
        item.time = entry.occurred_at;
      },
      /\/time must be integer/,
    ],
    [
      'an enum id is not one of the values',
      (item) => {
        item.severity_id = 7;
      },
      /\/severity_id must be equal to one of/,
    ],
    [
      'an enum id of an object is not one of the values',
      (item) => {
        item.actor.user.type_id = 5;
      },
      /\/actor\/user\/type_id/,
    ],
    [
      'type_uid is not class_uid * 100 + activity_id',
      (item) => {
        item.type_uid = 600303;
      },
      /must match exactly one schema in oneOf/,
    ],
    [
      'an activity the class does not have',
      (item) => Object.assign(item, { activity_id: 9, type_uid: 600309 }),
      /oneOf/,
    ],
    [
      'category_uid does not match the class',
      (item) => {
        item.category_uid = 3;
      },
      /\/category_uid must be equal to constant/,
    ],
    [
      'an attribute the class does not define',
      (item) => {
        item.vendor = 'x';
      },
      /must NOT have additional properties/,
    ],
    [
      'an attribute an object does not define',
      (item) => {
        item.metadata.product.vendor = 'x';
      },
      /\/metadata\/product/,
    ],
    [
      'a constraint (actor: at least one of user, process, app_name, …)',
      (item) => {
        item.actor = {};
      },
      /\/actor must match a schema in anyOf/,
    ],
    [
      'an array attribute given one value',
      (item) => {
        item.resources = item.resources[0];
      },
      /\/resources must be array/,
    ],
    [
      'a string-typed attribute given a number',
      (item) => {
        item.message = 1;
      },
      /\/message must be string/,
    ],
    [
      'a profile named in metadata.profiles without its required attributes (cloud)',
      (item) => {
        item.metadata.profiles = ['cloud'];
      },
      /required property 'cloud'/,
    ],
    [
      'a class it did not compile',
      (item) => Object.assign(item, { class_uid: 4001, type_uid: 400101 }),
      /class_uid 4001/,
    ],
  ];
  for (const [what, breakIt, expected] of broken)
    test(`refuses an item where ${what}`, () => {
      const item = good();
      breakIt(item);
      const problems = validator.problems(item);
      assert.ok(problems.length > 0, 'the broken item passed');
      assert.match(problems.join('\n'), expected);
    });
});

describe('the OCSF mappings are pure functions of one item', () => {
  test('the same item gives the same event; no clock, no state', () => {
    assert.deepEqual(auditEntryToOcsf(entry, context), auditEntryToOcsf(structuredClone(entry), context));
    assert.equal(auditEntryToOcsf(entry, context).time, Date.parse('2026-01-01T00:00:00.123Z'));
  });

  test('a webhook event of a type added later maps by its name (created, deleted, otherwise updated)', () => {
    for (const [type, activity] of [
      ['supplier.created', 1],
      ['asset.deleted', 4],
      ['assessment.status_changed', 3],
    ] as const) {
      const item = webhookEventToOcsf(
        {
          event_id: entry.id,
          type,
          occurred_at: entry.occurred_at,
          organization_id: context.workspaceId,
          data: { supplier_id: entry.target_id },
        },
        context,
      ) as Json;
      assert.deepEqual(validator.problems(item), [], type);
      assert.deepEqual([item.class_uid, item.activity_id], [6003, activity]);
      assert.deepEqual(item.resources, [{ uid: entry.target_id, type: 'supplier' }]);
    }
  });
});

describe('a list offers the OCSF form by its contract and its binding together (P185)', () => {
  const list = (ocsf: boolean) =>
    listOperation({
      id: 'listThings',
      path: '/things',
      scope: 'audit:read',
      tag: 'Audit',
      summary: 'x',
      resource: AuditLog,
      ocsf,
    });
  const mapping = (item: unknown) => auditEntryToOcsf(item as AuditItem, context);

  test('the contract declares `format` (native or ocsf) and names the OCSF item schema', () => {
    const operation = list(true);
    const format = ((operation.query?.properties ?? {}) as Json).format;
    assert.deepEqual(format.enum, ['native', 'ocsf']);
    assert.equal((operation.responses[200] as Json).itemFormats.ocsf.title, 'OcsfEvent');
    assert.equal(((list(false).query?.properties ?? {}) as Json).format, undefined);
  });

  test('binding one without the other fails at start', () => {
    assert.throws(() => handleList(list(true), { order: NEWEST_FIRST }), /OCSF form needs both/);
    assert.throws(
      () => handleList(list(false), { order: NEWEST_FIRST, ocsf: mapping }),
      /OCSF form needs both/,
    );
    assert.doesNotThrow(() => handleList(list(true), { order: NEWEST_FIRST, ocsf: mapping }));
  });
});
