// Builds the two HTTP applications from their services. Wiring only: behaviour lives in http/, resources/
// and management/.
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { Dispatcher, type DispatcherOptions } from './events/dispatcher.js';
import { startEventPruner } from './events/retention.js';
import { createSender } from './events/sender.js';
import { registerRoutes } from './http/route.js';
import { createServer } from './http/server.js';
import { buildAdminRoutes } from './management/app.js';
import { boundAdminOperations } from './management/handlers.js';
import { PUBLIC_DOCUMENT_OPERATIONS } from './openapi/document.js';
import { apiReferenceRoutes } from './openapi/reference.js';
import { publicRoutes } from './resources/index.js';
import type { Services } from './services.js';
import { SinkWorker, type SinkWorkerOptions } from './sinks/worker.js';

export function buildPublicApp(services: Services): FastifyInstance {
  const app = createServer('public', services);
  // Every operation the document describes, each bound once (checked as they are registered).
  registerRoutes(app, services, [...publicRoutes, ...apiReferenceRoutes], PUBLIC_DOCUMENT_OPERATIONS);
  return app;
}

export function buildAdminApp(services: Services): FastifyInstance {
  const app = createServer('admin', services);
  buildAdminRoutes(app, services, boundAdminOperations);
  return app;
}

/** The webhook worker of a process whose ROLE includes it (not started: call start()). */
export function createDispatcher(
  services: Services,
  options: Partial<Pick<DispatcherOptions, 'concurrency' | 'pollIntervalMs' | 'leaseMarginMs'>> = {},
): { dispatcher: Dispatcher; close: () => Promise<void> } {
  const { config } = services;
  const sender = createSender({
    timeoutMs: config.webhookTimeoutMs,
    allowInsecure: config.webhookAllowInsecureUrls,
    userAgent: 'tprm-api-webhooks/1',
  });
  const dispatcher = new Dispatcher(services.db, sender, {
    retryDelaysMs: config.webhookRetryDelaysMs,
    timeoutMs: config.webhookTimeoutMs,
    disableAfterMs: config.webhookDisableAfterMs,
    logger: services.logger.child({ component: 'webhooks' }),
    metrics: services.metrics,
    ...options,
  });
  return {
    dispatcher,
    close: async () => {
      await dispatcher.stop();
      sender.close();
    },
  };
}

/** The worker's pruning of events older than EVENT_RETENTION (P175), started now; `stop` ends it. */
export function startEventRetention(services: Services): { stop: () => Promise<void> } {
  return startEventPruner(
    services.db,
    services.config.eventRetentionMs,
    services.logger.child({ component: 'events' }),
  );
}

/** The sinks' delivery loop of a process whose ROLE includes the worker (not started: call start()). */
export function createSinkWorker(
  services: Services,
  options: Partial<Pick<SinkWorkerOptions, 'concurrency' | 'pollIntervalMs' | 'leaseMarginMs'>> = {},
): SinkWorker {
  const { config } = services;
  return new SinkWorker(services.db, {
    batchSize: config.sinkBatchSize,
    batchAgeMs: config.sinkBatchAgeMs,
    retryDelaysMs: config.webhookRetryDelaysMs,
    timeoutMs: config.webhookTimeoutMs,
    disableAfterMs: config.webhookDisableAfterMs,
    allowInsecure: config.webhookAllowInsecureUrls,
    hostname: hostname(),
    logger: services.logger.child({ component: 'sinks' }),
    metrics: services.metrics,
    ...options,
  });
}
