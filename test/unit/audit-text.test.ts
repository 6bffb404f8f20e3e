// The audit entry's canonical text as the writer sends it (docs/decisions.md P100): four parts that the
// database joins with `created_at`, `occurred_at` and `previous_hash`. Joined here the way the append statement
// joins them, they must give the text the verifiers hash (P97).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { auditEntryCanonicalText } from '../../sdk/src/audit-chain.js';
import { type AuditEntry, auditTextParts } from '../../src/storage/audit.js';

const createdAt = '2026-11-26T10:00:00.000001Z';
const occurredAt = '2026-11-26T10:00:00.123456Z';

/** What the append statement computes: concat(p1, iso(created), p2, iso(stamp), p3, json(previous), p4). */
function joined(parts: [string, string, string, string], previousHash: string | null): string {
  const [beforeCreated, beforeOccurred, beforePrevious, afterPrevious] = parts;
  const previous = previousHash === null ? 'null' : `"${previousHash}"`;
  return `${beforeCreated}${createdAt}${beforeOccurred}${occurredAt}${beforePrevious}${previous}${afterPrevious}`;
}

describe('the audit entry text the writer sends (P100)', () => {
  const entries: [string, AuditEntry][] = [
    [
      'every field set, metadata with escapes, unicode and nesting',
      {
        workspaceId: randomUUID(),
        action: 'supplier.created',
        actorType: 'api_key',
        actorId: randomUUID(),
        targetType: 'supplier',
        targetId: randomUUID(),
        requestId: 'req_ünïcødé "quoted"',
        metadata: { fields: ['name', 'domain'], b: { z: 1.5, a: null }, text: 'line\nbreak 😀 \u2028' },
      },
    ],
    [
      'nulls where an entry may have none',
      {
        workspaceId: randomUUID(),
        action: 'workspace.updated',
        actorType: 'system',
        actorId: null,
        targetType: null,
        targetId: null,
        requestId: null,
      },
    ],
  ];
  for (const [name, entry] of entries) {
    it(`${name}: the parts joined with the three values are the canonical text`, () => {
      const id = randomUUID();
      const metadata = JSON.parse(JSON.stringify(entry.metadata ?? {}));
      const parts = auditTextParts(entry, id, metadata);
      for (const previousHash of [null, 'ab'.repeat(32)]) {
        const expected = auditEntryCanonicalText({
          action: entry.action,
          actor_id: entry.actorId,
          actor_type: entry.actorType,
          created_at: createdAt,
          id,
          metadata,
          occurred_at: occurredAt,
          previous_hash: previousHash,
          request_id: entry.requestId,
          target_id: entry.targetId,
          target_type: entry.targetType,
        });
        assert.equal(joined(parts, previousHash), expected);
      }
    });
  }

  it('the parts hold none of the values the database fills in', () => {
    const parts = auditTextParts(entries[0]?.[1] as AuditEntry, randomUUID(), {});
    assert.ok(parts[0].endsWith('"created_at":"'));
    assert.ok(parts[1].startsWith('","id":"') && parts[1].endsWith('"occurred_at":"'));
    assert.equal(parts[2], '","previous_hash":');
    assert.ok(parts[3].startsWith(',"request_id":'));
  });
});
