// A webhook event (risk-data-api.md "Payload": the exact body its deliveries carry) as an OCSF 1.8.0 event
// (docs/ocsf.md; docs/decisions.md P189): an alert is a Detection Finding (2004) with the alert's severity;
// every other change is API Activity (6003) made by the service, Create for `*.created`, Delete for
// `*.deleted`, Update otherwise, so a type added to the catalogue maps without a change here. The records the
// event names (`data`'s `*_id`) are its `resources`; `data` itself is kept whole under `unmapped`. A pure
// function of one payload, for the events feed and the sinks to apply item by item.
import {
  type Activity,
  classification,
  epochMillis,
  metadata,
  type OcsfContext,
  type OcsfEvent,
  PRODUCT_NAME,
  SERVICE_ACTOR,
  type Severity,
  severity,
} from './common.js';

/** A webhook event's payload (src/contract/events.ts `EventPayloads`). */
export interface EventItem {
  event_id: string;
  type: string;
  occurred_at: string;
  organization_id: string;
  data: Record<string, unknown>;
}

const ALERT_SEVERITIES: Readonly<Record<string, Severity>> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  critical: 'critical',
};

function activityOf(type: string): Activity {
  if (type.endsWith('.created')) return 'create';
  if (type.endsWith('.deleted')) return 'delete';
  return 'update';
}

/** The records an event names: each `<noun>_id` of its data, as a resource of type `<noun>`. */
function resourcesOf(data: Record<string, unknown>): { uid: string; type: string }[] {
  return Object.entries(data)
    .filter((entry): entry is [string, string] => entry[0].endsWith('_id') && typeof entry[1] === 'string')
    .map(([name, uid]) => ({ uid, type: name.slice(0, -'_id'.length) }));
}

/** The webhook event `event` of the workspace in `context` as an OCSF 1.8.0 event. */
export function webhookEventToOcsf(event: EventItem, context: OcsfContext): OcsfEvent {
  const common = {
    time: epochMillis(event.occurred_at),
    message: event.type,
    metadata: metadata(context, event.event_id, 'events'),
    resources: resourcesOf(event.data),
    unmapped: { occurred_at: event.occurred_at, type: event.type, data: event.data },
  };
  if (event.type === 'alert.created') {
    const level = ALERT_SEVERITIES[String(event.data.severity)] ?? 'informational';
    return {
      ...classification('detection_finding', 'create'),
      ...severity(level),
      // Finding status: New (the alert was just raised).
      status_id: 1,
      status: 'New',
      finding_info: {
        uid: String(event.data.alert_id),
        types: [`${String(event.data.scope)} alert`],
        created_time: common.time,
      },
      is_alert: true,
      ...common,
    };
  }
  return {
    ...classification('api_activity', activityOf(event.type)),
    ...severity('informational'),
    status_id: 1,
    status: 'Success',
    actor: { ...SERVICE_ACTOR },
    api: { operation: event.type, service: { name: PRODUCT_NAME } },
    src_endpoint: { name: PRODUCT_NAME },
    ...common,
  };
}
