// The management listener's routes for machines: liveness, readiness (for a load balancer: migrations
// applied, database reachable, disk not full) and Prometheus metrics. No token: they reveal no data.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { StringEnum } from '../schema/fields.js';
import type { Services } from '../services.js';
import { StorageFullError } from '../storage/db.js';
import { pendingMigrations } from '../storage/migrate.js';

export const Liveness = Type.Object(
  { status: StringEnum(['ok'] as const) },
  { additionalProperties: false, title: 'Liveness' },
);
export const Readiness = Type.Object(
  {
    status: StringEnum(['ready', 'migrations_pending', 'storage_full', 'database_unreachable'] as const),
    pending: Type.Optional(Type.Integer({ minimum: 1, description: 'Migrations not yet applied.' })),
  },
  { additionalProperties: false, title: 'Readiness' },
);

export function registerProbes(app: FastifyInstance, services: Services): void {
  app.get('/healthz', async (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    try {
      const pending = await pendingMigrations(services.db);
      if (pending > 0) return reply.code(503).send({ status: 'migrations_pending', pending });
      return reply.send({ status: 'ready' });
    } catch (error) {
      // The embedded store refuses statements while its disk is nearly full (storage/db.ts).
      const status = error instanceof StorageFullError ? 'storage_full' : 'database_unreachable';
      return reply.code(503).send({ status });
    }
  });
  app.get('/metrics', async (_request, reply) => {
    return reply
      .header('content-type', services.metrics.registry.contentType)
      .send(await services.metrics.registry.metrics());
  });
}
