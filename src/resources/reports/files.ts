import type { FastifyInstance } from 'fastify';
import type { Services } from '../../app.js';

/** GET /files/:token — the signed PDF download (outside /v1, no API key). */
export function registerFileRoute(_app: FastifyInstance, _services: Services): void {}
