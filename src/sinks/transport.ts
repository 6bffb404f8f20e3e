// The contract between a sink's delivery loop and the wire (issue 26 point 5): the loop hands a transport one
// batch of records in the workspace's order; the transport sends them and says what happened, never throwing.
// Decisions cited as `P<n>`: docs/decisions.md.

/** One entry of a sink's stream as it is sent. */
export interface SinkRecord {
  /** The audit entry's id or the event's event_id: the same in every resend (delivery is at least once). */
  id: string;
  /** Which log the record comes from. */
  source: 'audit' | 'event';
  /** The audit action or the event type (syslog MSGID, HEC sourcetype suffix). */
  kind: string;
  /** The record's instant, ISO 8601 UTC with milliseconds. */
  time: string;
  /** Syslog severity 0-7 (RFC 5424 table 2) the record maps to. */
  severity: number;
  /** The record, native or OCSF as the sink asks, as one line of JSON (no newline). */
  json: string;
}

/** What one batch's send did. */
export interface SendOutcome {
  ok: boolean;
  /** The HTTP status for an http sink; null for syslog or when no response came. */
  status: number | null;
  /** Why it failed, one line, never a credential; null when ok. */
  error: string | null;
  durationMs: number;
}

export interface SinkTransport {
  /** Sends one batch, in order. Resolves with the outcome; never rejects. */
  send(records: readonly SinkRecord[]): Promise<SendOutcome>;
  /** Closes any connection kept between batches. */
  close(): Promise<void>;
}
