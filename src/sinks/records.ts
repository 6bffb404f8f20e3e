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

// The records after the two positions, in one statement (one snapshot: a transaction that commits between two
// reads could otherwise put its entry after its event). Each log's part is read in feed order through the index
// (workspace_id, occurred_at, id); a log the sink does not follow reads nothing.
const after = (at: string, id: string) =>
  `(t.occurred_at, t.id) > (coalesce(${at}::timestamptz, '-infinity'),
                            coalesce(${id}::uuid, '00000000-0000-0000-0000-000000000000'))`;
const RECORDS_SQL = `
  (select 'audit' as source, iso(t.occurred_at) as at, t.id::text as id, t.action as kind,
          ${AuditLog.json('t', { pii: false })} as json
     from audit_logs t
    where $2 and t.workspace_id = $1 and ${after('$3', '$4')}
    order by t.occurred_at, t.id
    limit $9)
  union all
  (select 'event', iso(t.occurred_at), t.id::text, t.type, t.payload
     from event_log t
    where $5 and t.workspace_id = $1 and ($8::text[] is null or t.type = any ($8::text[]))
      and ${after('$6', '$7')}
    order by t.occurred_at, t.id
    limit $9)
  order by at, source, id
  limit $9`;

interface Row {
  source: SinkRecord['source'];
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
  const rows = await q.query<Row>(RECORDS_SQL, [
    sink.workspace_id,
    sink.sources.includes('audit'),
    sink.audit?.at ?? null,
    sink.audit?.id ?? null,
    sink.sources.includes('events'),
    sink.event?.at ?? null,
    sink.event?.id ?? null,
    sink.event_types,
    limit,
  ]);
  return rows.map((row) => (row.source === 'audit' ? auditRecord(row, sink) : eventRecord(row, sink)));
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
