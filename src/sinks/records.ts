// What follows a sink's positions in its workspace's logs, as the records a transport sends (P205, P209): the
// audit entries as GET /v1/audit-logs serves them and the events as GET /v1/events serves them (the stored
// payload, byte for byte), in each log's feed order (`occurred_at`, then id: commit order), native or OCSF.
// The two logs are merged by instant into one batch; each keeps its own position.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import {
  type AuditItem,
  auditEntryToOcsf,
  type EventItem,
  ocsfContext,
  webhookEventToOcsf,
} from '../ocsf/index.js';
import { AuditLog } from '../resources/audit-logs/schema.js';
import type { Queryable } from '../storage/db.js';
import type { SinkRecord } from './transport.js';

/** A log's position: the last record acknowledged, null before the first. */
export interface Position {
  at: string;
  id: string;
}

/** The part of a claimed sink that says what it reads. */
export interface SinkSelection {
  workspace_id: string;
  sources: string[];
  event_types: string[] | null;
  format: 'native' | 'ocsf';
  audit: Position | null;
  event: Position | null;
}

/** A record read, with where it sits in its log. */
export interface PositionedRecord extends SinkRecord {
  /** `occurred_at` as stored (microseconds), for the position. */
  at: string;
}

// The first record after the position in feed order, for the index (workspace_id, occurred_at, id).
const AFTER = `(t.occurred_at, t.id) > (coalesce($2::timestamptz, '-infinity'),
                                        coalesce($3::uuid, '00000000-0000-0000-0000-000000000000'))`;

// The entry exactly as the feed serves it: the resource's own JSON (nothing personal is in an entry, P72).
const AUDIT_SQL = `
  select iso(t.occurred_at) as at, t.id::text as id, t.action as kind, ${AuditLog.json('t', { pii: false })} as json
    from audit_logs t
   where t.workspace_id = $1 and ${AFTER}
   order by t.occurred_at, t.id
   limit $4`;

const EVENT_SQL = `
  select iso(t.occurred_at) as at, t.id::text as id, t.type as kind, t.payload as json
    from event_log t
   where t.workspace_id = $1 and ($5::text[] is null or t.type = any ($5::text[])) and ${AFTER}
   order by t.occurred_at, t.id
   limit $4`;

interface Row {
  at: string;
  id: string;
  kind: string;
  json: string;
}

/** RFC 5424 severities by OCSF severity_id (1 Informational … 5 Critical). */
const SYSLOG_SEVERITY: Readonly<Record<number, number>> = { 1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 1 };

const INFORMATIONAL = 6;

/** An audit entry as a record of the sink's format; every entry is informational, as in its OCSF form. */
function auditRecord(row: Row, sink: SinkSelection): PositionedRecord {
  const json =
    sink.format === 'ocsf'
      ? JSON.stringify(auditEntryToOcsf(JSON.parse(row.json) as AuditItem, ocsfContext(sink.workspace_id)))
      : row.json;
  return { ...base(row, 'audit'), severity: INFORMATIONAL, json };
}

/** An event as a record of the sink's format, with the severity of its OCSF form (an alert's own). */
function eventRecord(row: Row, sink: SinkSelection): PositionedRecord {
  const ocsf = webhookEventToOcsf(JSON.parse(row.json) as EventItem, ocsfContext(sink.workspace_id));
  return {
    ...base(row, 'event'),
    severity: SYSLOG_SEVERITY[ocsf.severity_id as number] ?? INFORMATIONAL,
    json: sink.format === 'ocsf' ? JSON.stringify(ocsf) : row.json,
  };
}

const base = (row: Row, source: SinkRecord['source']) => ({
  id: row.id,
  source,
  kind: row.kind,
  at: row.at,
  time: new Date(Date.parse(row.at)).toISOString(),
});

/**
 * Up to `limit` records after the sink's positions, oldest first: each log's in its own feed order, the two
 * merged by instant (an audit entry before an event of the same instant).
 */
export async function readRecords(
  q: Queryable,
  sink: SinkSelection,
  limit: number,
): Promise<PositionedRecord[]> {
  const read = (sql: string, position: Position | null, extra: unknown[] = []) =>
    q.query<Row>(sql, [sink.workspace_id, position?.at ?? null, position?.id ?? null, limit, ...extra]);
  const [audit, events] = await Promise.all([
    sink.sources.includes('audit') ? read(AUDIT_SQL, sink.audit) : [],
    sink.sources.includes('events') ? read(EVENT_SQL, sink.event, [sink.event_types]) : [],
  ]);
  const merged: PositionedRecord[] = [];
  let a = 0;
  let e = 0;
  while (merged.length < limit && (a < audit.length || e < events.length)) {
    const nextAudit = audit[a];
    const nextEvent = events[e];
    if (nextAudit && (!nextEvent || nextAudit.at <= nextEvent.at)) {
      merged.push(auditRecord(nextAudit, sink));
      a++;
    } else if (nextEvent) {
      merged.push(eventRecord(nextEvent, sink));
      e++;
    }
  }
  return merged;
}

/** Each log's last record in `records`: the positions once they are acknowledged (null: unchanged). */
export function lastPositions(records: readonly PositionedRecord[]): {
  audit: Position | null;
  event: Position | null;
} {
  const last = (source: SinkRecord['source']) => {
    const record = records.findLast((r) => r.source === source);
    return record ? { at: record.at, id: record.id } : null;
  };
  return { audit: last('audit'), event: last('event') };
}
