#!/usr/bin/env node
// A tprm-api webhook receiver on the SDK: verifies the Service-Signature (webhooks.constructEvent), answers
// 400 when it does not verify (never 5xx, so the service does not retry a forgery), deduplicates on event_id
// (delivery is at-least-once), and fetches the full resource through the API, where redaction rules still
// apply.
//
//   WEBHOOK_SECRET=whsec_… TPRM_API_KEY=tprm_… node examples/webhook-receiver.mjs
//
// Settings: WEBHOOK_SECRET (required: the endpoint's signing secret), TPRM_API_KEY (optional: without it
// the resource is not fetched), TPRM_API_URL (default http://127.0.0.1:8080/v1), PORT (default 4000),
// SEEN_FILE (default ./seen-events.txt: the event ids already processed, kept across restarts).
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createClient, TprmApiError, WebhookSignatureError, webhooks } from '@tprm/client';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the signing secret shown when the endpoint was registered.');
  process.exit(2);
}
const apiKey = process.env.TPRM_API_KEY;
const client = apiKey
  ? createClient({ baseUrl: process.env.TPRM_API_URL ?? 'http://127.0.0.1:8080/v1', apiKey })
  : undefined;
const port = Number(process.env.PORT ?? 4000);
const seenFile = process.env.SEEN_FILE ?? 'seen-events.txt';

const seen = new Set(existsSync(seenFile) ? readFileSync(seenFile, 'utf8').split('\n').filter(Boolean) : []);

/** The resource an event is about, read through the API (the payload is thin: ids and minimum state). */
async function fetchResource(event) {
  const { data } = event;
  switch (event.type) {
    case 'assessment.completed':
      return client.assessments.get(data.assessment_id);
    case 'report.ready':
      return client.reports.get(data.report_id);
    case 'alert.created': {
      // Alerts are read as a list (newest first); the new one is among the latest of its scope.
      const alerts = await client.alerts.listPage({ scope: data.scope, limit: 200 });
      return alerts.data.find((alert) => alert.id === data.alert_id) ?? null;
    }
    case 'action_plan_item.status_changed': {
      const items = await client.actionPlans.items(data.action_plan_id, { limit: 200 });
      return items.data.find((item) => item.id === data.action_plan_item_id) ?? null;
    }
    default:
      return null;
  }
}

async function handle(event) {
  let resource = null;
  if (client) {
    try {
      resource = await fetchResource(event);
    } catch (error) {
      // A 4xx will not change on redelivery (a key without the scope, a resource since deleted): record it.
      // Anything else (5xx or no answer, after the SDK's retries) is thrown: the delivery is retried later.
      if (!(error instanceof TprmApiError) || error.status >= 500) throw error;
      resource = { error: error.code, request_id: error.request_id };
    }
  }
  console.log(
    JSON.stringify({ msg: 'event processed', event_id: event.event_id, type: event.type, resource }),
  );
}

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', async () => {
    // Verify the raw bytes as received: re-serialized JSON would not match the signature.
    let event;
    try {
      event = webhooks.constructEvent(Buffer.concat(chunks), req.headers['service-signature'], secret);
    } catch (error) {
      // A bad signature, or (signed, so from the service) a body that is not JSON.
      const reason = error instanceof WebhookSignatureError ? error.reason : 'body is not JSON';
      console.log(JSON.stringify({ msg: 'rejected', reason }));
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`rejected: ${reason}`);
      return;
    }
    if (seen.has(event.event_id)) {
      console.log(JSON.stringify({ msg: 'duplicate', event_id: event.event_id }));
      res.writeHead(200, { 'content-type': 'text/plain' }).end('duplicate');
      return;
    }
    try {
      await handle(event);
    } catch (error) {
      // Not acknowledged: the service retries later, and the event is processed then.
      console.log(
        JSON.stringify({ msg: 'processing failed', event_id: event.event_id, error: String(error) }),
      );
      res.writeHead(503).end();
      return;
    }
    seen.add(event.event_id);
    appendFileSync(seenFile, `${event.event_id}\n`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});

server.listen(port, '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', url: `http://127.0.0.1:${server.address().port}/` }));
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
