// The syslog sink's wire against a real rsyslogd over TLS (test/support/rsyslog.ts): what rsyslog parsed is
// what was sent (P220, P221), certificates and addresses are checked (P223), a lost server costs a failed
// batch and a reconnect, never a record (P222, P224).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSyslogTransport, type SyslogTransportOptions } from '../../src/sinks/syslog.js';
import type { SinkRecord } from '../../src/sinks/transport.js';
import { findRsyslogd, makeCertificateAuthority, Rsyslog } from '../support/rsyslog.js';

const rsyslogd = findRsyslogd();

let sequence = 0;
/** A record with a fresh id; `time` a millisecond apart from the previous one's. */
function record(fields: Partial<SinkRecord> = {}): SinkRecord {
  sequence += 1;
  const json = JSON.stringify({ id: `rec-${sequence}`, action: 'supplier.create' });
  return {
    id: `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
    source: 'audit',
    kind: 'supplier.create',
    time: new Date(Date.UTC(2026, 10, 28, 6, 0, 0, sequence)).toISOString(),
    severity: 6,
    json,
    ...fields,
  };
}

/** A TCP relay to `port` that counts the connections it is asked for. */
async function countingRelay(port: number) {
  let connections = 0;
  const server = net.createServer((client) => {
    connections += 1;
    const upstream = net.connect(port, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () => {
      server.close();
    },
  };
}

describe('syslog transport against rsyslogd over TLS', {
  skip: rsyslogd
    ? false
    : 'rsyslogd is not installed (Debian packages rsyslog rsyslog-gnutls; .ci/run installs them)',
}, () => {
  let server: Rsyslog;
  let options: SyslogTransportOptions;
  const otherCa = mkdtempSync(join(tmpdir(), 'tprm-other-ca-'));

  before(async () => {
    server = await Rsyslog.start(rsyslogd as string);
    options = {
      host: '127.0.0.1',
      port: server.port,
      ca: server.ca,
      hostname: 'api-1.example',
      timeoutMs: 5000,
      allowInsecure: true,
    };
  });
  after(async () => {
    await server?.stop();
    rmSync(otherCa, { recursive: true, force: true });
  });

  /** The messages received since `before` messages were there. */
  const receivedAfter = async (before: number, count: number) =>
    (await server.waitFor(before + count)).slice(before);

  it('every record arrives once, in order, its RFC 5424 fields parsed as sent; one connection for both batches', async () => {
    const relay = await countingRelay(server.port);
    const transport = createSyslogTransport({ ...options, port: relay.port });
    const first = [
      record({
        severity: 0,
        json: JSON.stringify({ name: 'Zoë Ærøskøbing 漢字 🚀', note: 'line one\nline two\r\n\tend' }),
      }),
      record({
        severity: 1,
        id: 'quote " backslash \\ bracket ] end',
        source: 'event',
        kind: 'supplier.created',
      }),
      record({ severity: 2, kind: 'a kind with spaces, é and more than thirty-two characters' }),
      record({
        severity: 3,
        json: JSON.stringify({ looks: '<13>1 2026-01-01T00:00:00Z h a - m - injected\n12 <14>1 x' }),
      }),
    ];
    const second = [
      record({ severity: 4 }),
      record({ severity: 5 }),
      record({ severity: 6 }),
      record({ severity: 7 }),
    ];
    const already = server.received().length;
    for (const batch of [first, second]) {
      const outcome = await transport.send(batch);
      assert.equal(outcome.ok, true, outcome.error ?? '');
      assert.equal(outcome.status, null);
      assert.equal(outcome.error, null);
    }
    const lines = await receivedAfter(already, 8);
    await transport.close();
    relay.close();
    assert.equal(relay.connections(), 1, 'the connection is kept between batches');
    const sent = [...first, ...second];
    assert.equal(server.received().length, already + sent.length, 'nothing more than the records');
    sent.forEach((r, i) => {
      const line = lines[i];
      assert.ok(line);
      assert.equal(line.pri, 13 * 8 + r.severity, 'PRI: facility 13 (log audit) and the record severity');
      assert.equal(new Date(line.timestamp).toISOString(), r.time);
      assert.equal(line.hostname, 'api-1.example');
      assert.equal(line.appName, 'tprm-api');
      assert.equal(line.procId, '-');
      assert.deepEqual(
        line.sd,
        { 'tprm@32473': { id: r.id, source: r.source } },
        'SD-PARAMs unescape to the id',
      );
      assert.equal(line.msg, `\uFEFF${r.json}`, 'MSG: the BOM then the JSON, byte for byte');
      assert.deepEqual(JSON.parse(line.msg.slice(1)), JSON.parse(r.json));
    });
    assert.equal(lines[0]?.msgId, 'supplier.create');
    assert.equal(lines[1]?.msgId, 'supplier.created');
    assert.equal(lines[2]?.msgId, 'a_kind_with_spaces,___and_more_t', 'PRINTUSASCII, 32 characters at most');
    assert.equal(
      lines[1]?.structuredData,
      '[tprm@32473 id="quote \\" backslash \\\\ bracket \\] end" source="event"]',
    );
  });

  it('a server certificate from another CA or for another name is refused', async () => {
    const other = makeCertificateAuthority(otherCa, 'other');
    const already = server.received().length;
    const foreign = createSyslogTransport({ ...options, ca: readFileSync(other.ca, 'utf8') });
    const outcome = await foreign.send([record()]);
    await foreign.close();
    assert.equal(outcome.ok, false);
    assert.match(outcome.error ?? '', /^tls: the server certificate is refused: [A-Z_]+: /);

    const misnamed = createSyslogTransport({ ...options, serverName: 'syslog.example' });
    const named = await misnamed.send([record()]);
    await misnamed.close();
    assert.equal(named.ok, false);
    assert.equal(named.error, 'tls: the server certificate is not valid for syslog.example');
    assert.equal(server.received().length, already, 'nothing was written to a server not trusted');
  });

  it('a loopback target is refused unless allowInsecure, by literal and by name', async () => {
    const already = server.received().length;
    for (const host of ['127.0.0.1', 'localhost']) {
      const transport = createSyslogTransport({ ...options, host, allowInsecure: false });
      const outcome = await transport.send([record()]);
      await transport.close();
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error, 'blocked: the target is refused: sinks reach public addresses only', host);
    }
    const byName = createSyslogTransport({ ...options, host: 'localhost' });
    assert.equal((await byName.send([record()])).ok, true, 'allowInsecure lets loopback through');
    await byName.close();
    await receivedAfter(already, 1);
    assert.equal(server.received().length, already + 1);
  });

  it('rsyslogd killed and restarted between batches: the next batch goes on a new connection', async () => {
    const transport = createSyslogTransport(options);
    const before = record();
    const afterRestart = record();
    const already = server.received().length;
    assert.equal((await transport.send([before])).ok, true);
    await receivedAfter(already, 1);
    await server.kill();
    await server.restart();
    const outcome = await transport.send([afterRestart]);
    await transport.close();
    assert.equal(outcome.ok, true, outcome.error ?? '');
    const lines = await receivedAfter(already, 2);
    assert.deepEqual(
      lines.map((l) => l.sd['tprm@32473']?.id),
      [before.id, afterRestart.id],
    );
  });

  it('a batch sent while the server is down fails, one line naming no address, and arrives once when resent', async () => {
    const transport = createSyslogTransport(options);
    const batch = [record(), record()];
    const already = server.received().length;
    await server.kill();
    const down = await transport.send(batch);
    assert.equal(down.ok, false);
    assert.equal(down.error, 'ECONNREFUSED: connect failed');
    await server.restart();
    const resent = await transport.send(batch);
    await transport.close();
    assert.equal(resent.ok, true, resent.error ?? '');
    const lines = await receivedAfter(already, 2);
    assert.deepEqual(
      lines.map((l) => l.sd['tprm@32473']?.id),
      batch.map((r) => r.id),
    );
    assert.equal(server.received().length, already + 2);
  });

  it('a server that never completes the handshake costs the timeout; an invalid severity fails the batch', async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const transport = createSyslogTransport({
      ...options,
      port: (silent.address() as net.AddressInfo).port,
      timeoutMs: 300,
    });
    const outcome = await transport.send([record()]);
    await transport.close();
    silent.close();
    assert.equal(outcome.ok, false);
    assert.equal(outcome.error, 'timeout: the batch was not written within 300 ms');
    assert.ok(outcome.durationMs >= 290 && outcome.durationMs < 2000, String(outcome.durationMs));

    const checked = createSyslogTransport(options);
    const invalid = await checked.send([record({ severity: 8 })]);
    await checked.close();
    assert.equal(invalid.ok, false);
    assert.match(invalid.error ?? '', /severity must be an integer from 0 to 7$/);
  });
});
