// Opt-in OpenTelemetry traces (docs/decisions.md P133): incoming requests (named by route), PostgreSQL queries
// and outgoing HTTP requests (webhook sends carry `traceparent`), exported over OTLP/HTTP. Configured only by
// the standard OTEL_* variables. When they do not ask for traces, nothing of OpenTelemetry is loaded:
// `tracingRequested` reads the environment, and `startTracing` imports the SDK only once called. It must run
// before the service's modules are imported (`tprm serve` does so), so that the instrumentations see pg and
// node:http load.
import { subscribe } from 'node:diagnostics_channel';

export class TracingConfigError extends Error {}

/** Whether OTEL_* asks for traces: an OTLP endpoint, or OTEL_TRACES_EXPORTER=otlp; never when disabled. */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unsupported = exporters.filter((name) => name !== 'otlp' && name !== 'none');
  if (unsupported.length > 0)
    throw new TracingConfigError(
      `OTEL_TRACES_EXPORTER must be otlp or none, got "${env.OTEL_TRACES_EXPORTER}" (traces are sent over OTLP/HTTP)`,
    );
  if (exporters.length > 0) return exporters.includes('otlp');
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/** OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL, else the specification's default. */
function protocol(env: NodeJS.ProcessEnv): 'http/protobuf' | 'http/json' {
  const value = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ||
    env.OTEL_EXPORTER_OTLP_PROTOCOL ||
    'http/protobuf'
  ).trim();
  if (value === 'http/protobuf' || value === 'http/json') return value;
  throw new TracingConfigError(
    `OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json, got "${value}" (gRPC is not supported)`,
  );
}

// URL attributes can hold secrets: a signed download's token is in its path, a webhook receiver's URL may
// carry its own token in the query. Spans keep the route pattern and the target's origin only.
const PATH_ATTRIBUTES = ['http.target', 'url.path'];
const FULL_URL_ATTRIBUTES = ['http.url', 'url.full'];
const DROPPED_ATTRIBUTES = ['url.query'];

type Attributes = Record<string, unknown>;

/** The attributes with every URL reduced to the route (server spans) or the origin (client spans). */
export function redactUrls(attributes: Attributes): Attributes {
  const redacted: Attributes = { ...attributes };
  const route = typeof attributes['http.route'] === 'string' ? attributes['http.route'] : '(redacted)';
  for (const name of PATH_ATTRIBUTES) if (name in redacted) redacted[name] = route;
  for (const name of DROPPED_ATTRIBUTES) delete redacted[name];
  for (const name of FULL_URL_ATTRIBUTES) {
    const value = redacted[name];
    if (typeof value !== 'string') continue;
    redacted[name] = URL.canParse(value) ? new URL(value).origin : '(redacted)';
  }
  return redacted;
}

export interface Tracing {
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

export async function startTracing(options: { version: string }): Promise<Tracing> {
  const env = process.env;
  const useProtobuf = protocol(env) === 'http/protobuf';
  // Only the modules the instrumentations hook are wrapped when imported (pg, node:http, node:https).
  const [{ register }, iitm] = await Promise.all([import('node:module'), import('import-in-the-middle')]);
  const { registerOptions, waitForAllMessagesAcknowledged } = iitm.createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);

  const [
    api,
    sdk,
    resources,
    instrumentation,
    { HttpInstrumentation },
    { PgInstrumentation },
    exporterModule,
  ] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    useProtobuf
      ? import('@opentelemetry/exporter-trace-otlp-proto')
      : import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  // Endpoint, headers, timeout and compression come from OTEL_EXPORTER_OTLP_* (read by the exporter).
  const exporter = new exporterModule.OTLPTraceExporter();
  const batch = new sdk.BatchSpanProcessor(exporter);
  // A span's attributes are redacted as it is handed to the exporter (ReadableSpan is read-only: a view).
  const redacting: InstanceType<typeof sdk.BatchSpanProcessor> = Object.assign(Object.create(batch), {
    onEnd(span: Parameters<typeof batch.onEnd>[0]) {
      batch.onEnd(
        Object.create(span, { attributes: { value: redactUrls(span.attributes), enumerable: true } }),
      );
    },
  });
  const provider = new sdk.NodeTracerProvider({
    // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over these.
    resource: resources
      .defaultResource()
      .merge(
        resources.resourceFromAttributes({ 'service.name': 'tprm-api', 'service.version': options.version }),
      )
      .merge(resources.detectResources({ detectors: [resources.envDetector] })),
    spanProcessors: [redacting],
  });
  provider.register();
  instrumentation.registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes would be most of the spans and tell nothing.
        ignoreIncomingRequestHook: (request) => /^\/(healthz|readyz|metrics)(\?|$)/.test(request.url ?? ''),
        // Outgoing requests get a span even outside a trace: webhook sends start in the worker, not in a
        // request, and each carries its span's `traceparent` to the receiver.
        requireParentforOutgoingSpans: false,
      }),
      // Statements without their parameter values (enhancedDatabaseReporting off), inside a trace only: the
      // worker's polling would otherwise be a trace every second.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
    ],
  });
  await waitForAllMessagesAcknowledged();

  // Server spans are named by the route pattern, as the request log and the metrics are (Fastify announces
  // each instance it creates on this channel).
  subscribe('fastify.initialization', (message) => {
    const { fastify } = message as {
      fastify: {
        addHook(name: 'onRequest', hook: (request: FastifyRequestLike) => Promise<void>): void;
      };
    };
    fastify.addHook('onRequest', async (request) => {
      const span = api.trace.getSpan(api.context.active());
      const route = request.routeOptions.url;
      if (!span || !route) return;
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('http.route', route);
    });
  });
  return { shutdown: () => provider.shutdown() };
}

interface FastifyRequestLike {
  method: string;
  routeOptions: { url?: string };
}
