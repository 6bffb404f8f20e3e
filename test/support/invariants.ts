// What every response of the public listener must satisfy, whatever the request, beyond the OpenAPI document
// (which test/support/contract.ts checks on every injected response: declared status, body schema, declared
// headers): never a 5xx, X-Request-Id, no CORS header, no-store, and the one error shape with a code whose
// status is the response's (risk-data-api.md "What the service does" 2, "Errors"; decisions 5, 31, 39).
import { ERROR_STATUS } from '../../src/contract/errors.js';
import type { Operation } from '../../src/contract/operation.js';
import type { Response } from './harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Every way the response breaks the invariants (empty when it keeps them). HEAD answers have headers only. */
export function invariantProblems(res: Response, method = 'GET'): string[] {
  const problems: string[] = [];
  const header = (name: string) => res.headers[name] as string | undefined;
  if (res.status >= 500) problems.push(`status ${res.status}`);
  if (!UUID.test(header('x-request-id') ?? '')) problems.push('no X-Request-Id');
  for (const name of Object.keys(res.headers))
    if (name.startsWith('access-control-')) problems.push(`CORS header ${name}`);
  if (header('cache-control') !== 'no-store') problems.push('Cache-Control is not no-store');
  if (method === 'HEAD' || res.status < 400) return problems;

  const error = res.json?.error;
  if (typeof error?.code !== 'string' || typeof error.message !== 'string')
    return [...problems, 'not the error shape'];
  if (ERROR_STATUS[error.code as keyof typeof ERROR_STATUS] !== res.status)
    problems.push(`code ${error.code} with status ${res.status}`);
  // A replay repeats the stored body, request_id included; only the header is new (decision 39).
  if (error.request_id !== header('x-request-id') && header('idempotent-replayed') !== 'true')
    problems.push('error.request_id differs from X-Request-Id');
  if (res.status === 401 && header('x-ratelimit-limit') !== undefined)
    problems.push('a 401 carries rate-limit headers');
  if (res.status === 429 && !/^\d+$/.test(header('retry-after') ?? ''))
    problems.push('429 without Retry-After');
  if (res.status === 422 && (typeof error.details?.fields !== 'object' || error.details.fields === null))
    problems.push('422 without details.fields');
  if (error.code === 'insufficient_scope' && typeof error.details?.required_scope !== 'string')
    problems.push('insufficient_scope without details.required_scope');
  return problems;
}

/** `METHOD /url` of a route, as ROUTE_COVERAGE and the reports name it. */
export const routeKey = (route: Pick<Operation, 'method' | 'path'>) => `${route.method} ${route.path}`;

/**
 * The properties a record in a success body may leave out, found in the declared response schemas: the
 * redacted fields (every other property of a resource is required, src/resources/resource.ts). The
 * collection `meta` is no record (its `message` comes with a feature status), so it is not walked.
 */
export function omissibleFields(routes: readonly Operation[]): string[] {
  const found = new Set<string>();
  const seen = new Set<object>();
  const walk = (schema: unknown): void => {
    if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
    seen.add(schema);
    const {
      type,
      properties = {},
      required = [],
    } = schema as {
      type?: string;
      properties?: Record<string, unknown>;
      required?: string[];
    };
    if (type === 'object')
      for (const name of Object.keys(properties)) if (!required.includes(name)) found.add(name);
    for (const [name, value] of Object.entries(schema)) if (name !== 'properties') walk(value);
    for (const [name, value] of Object.entries(properties)) if (name !== 'meta') walk(value);
  };
  for (const route of routes) for (const response of Object.values(route.responses)) walk(response.schema);
  return [...found].sort();
}
