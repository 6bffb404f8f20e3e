// A syslog sink end to end (docs/decisions.md P203-P226): registered through the management API, fed by the
// sink worker from the workspace's audit trail, delivered over TLS to a real rsyslogd whose certificate a CA
// made in the test signs. rsyslog's own parse of each message proves the framing (RFC 6587 octet counting) and
// the RFC 5424 header; the records arrive in the feed's order, each once, carrying the audit entry's id.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { useHarness } from '../support/harness.js';
import { findRsyslogd, Rsyslog } from '../support/rsyslog.js';

const rsyslogd = findRsyslogd();
let server: Rsyslog | undefined;

const { h } = useHarness(
  {
    env: {
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
      SINK_BATCH_SIZE: '3',
      SINK_BATCH_AGE: '200ms',
    },
  },
  async () => {
    if (rsyslogd) server = await Rsyslog.start(rsyslogd);
    h.sinkWorker();
  },
);
after(() => server?.stop());

describe('a syslog sink delivers the audit trail to rsyslogd over TLS', {
  skip: rsyslogd
    ? false
    : 'rsyslogd is not installed (Debian packages rsyslog rsyslog-gnutls; .ci/run installs them)',
}, () => {
  test('every audit entry from the registration on, once, in the feed order, parsed by rsyslog as sent', async () => {
    const rsyslog = server as Rsyslog;
    const ws = await h.workspace();
    const created = await h.admin('POST', `/admin/workspaces/${ws.id}/sinks`, {
      kind: 'syslog',
      host: '127.0.0.1',
      port: rsyslog.port,
      ca: rsyslog.ca,
      sources: ['audit'],
    });
    assert.equal(created.status, 201, created.body);
    for (const name of ['Syslog one', 'Syslog two', 'Syslog three', 'Syslog four'])
      assert.equal(
        (
          await h.api('POST', '/suppliers', {
            key: ws.key,
            body: { name },
            headers: { 'idempotency-key': randomUUID() },
          })
        ).status,
        201,
      );
    // A sink starts at its own registration (P207): its `sink.created` entry, then what follows it.
    const feed = await h.api('GET', '/audit-logs?limit=100', { key: ws.key });
    const all = feed.json.data as Record<string, unknown>[];
    const entries = all.slice(all.findIndex((entry) => entry.action === 'sink.created'));
    const ids = entries.map((entry) => entry.id as string);
    assert.equal(ids.length, 5, 'sink.created and four supplier.created');
    const sinkId = (created.json as { id: string }).id;
    const lines = await rsyslog.waitFor(ids.length).catch(async (error) => {
      const log = await h.admin('GET', `/admin/sinks/${sinkId}/deliveries`);
      throw new Error(`${error.message}: ${log.body}; received ${JSON.stringify(rsyslog.received())}`);
    });
    const mine = lines.filter((line) => ids.includes(line.sd['tprm@32473']?.id ?? ''));
    assert.deepEqual(
      mine.map((line) => line.sd['tprm@32473']?.id),
      ids,
      'each entry once, in the order of the audit feed',
    );
    for (const [i, line] of mine.entries()) {
      const entry = entries[i] as Record<string, unknown>;
      assert.equal(
        line.pri,
        13 * 8 + 6,
        'facility 13 (log audit), an audit entry Informational (P217, P221)',
      );
      assert.equal(line.appName, 'tprm-api');
      assert.equal(line.msgId, entry.action);
      assert.equal(line.sd['tprm@32473']?.source, 'audit');
      assert.deepEqual(
        JSON.parse(line.msg.replace(/^\uFEFF/, '')),
        entry,
        'the feed item, as the feed serves it',
      );
    }
    const log = await h.admin('GET', `/admin/sinks/${sinkId}/deliveries`);
    assert.ok(
      (log.json.data as { outcome: string }[]).every((batch) => batch.outcome === 'delivered'),
      'the delivery log says delivered',
    );
  });

  test("an event's syslog severity is its OCSF severity: a high alert is Error (3) (P217)", async () => {
    const rsyslog = server as Rsyslog;
    const ws = await h.workspace();
    const created = await h.admin('POST', `/admin/workspaces/${ws.id}/sinks`, {
      kind: 'syslog',
      host: '127.0.0.1',
      port: rsyslog.port,
      ca: rsyslog.ca,
      sources: ['events'],
      event_types: ['alert.created'],
    });
    assert.equal(created.status, 201, created.body);
    const before = rsyslog.received().length;
    for (const severity of ['high', 'low'])
      assert.equal(
        (
          await h.admin('POST', `/admin/workspaces/${ws.id}/alerts`, {
            scope: 'org',
            severity,
            title: `A ${severity} alert`,
            body: 'Seen by the syslog sink.',
          })
        ).status,
        201,
      );
    const lines = (await rsyslog.waitFor(before + 2)).slice(before);
    assert.deepEqual(
      lines.map((line) => [line.msgId, line.pri, line.sd['tprm@32473']?.source]),
      [
        ['alert.created', 13 * 8 + 3, 'event'],
        ['alert.created', 13 * 8 + 5, 'event'],
      ],
    );
  });
});
