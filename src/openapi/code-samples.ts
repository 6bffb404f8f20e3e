// The `x-codeSamples` of each operation (P89): a curl command and the same call through the SDK, generated from
// the operations' contracts and the document's own examples; on the management API, a curl command (P122). The SDK method is found on a real client by the rule its
// namespaces follow (first path segment in camelCase; list/get, create, upsert, update, or the sub-resource's
// name), and the build fails when a route has no method there, so a sample cannot name a method that does not
// exist.
import { createClient } from '../../sdk/src/client.js';
import { type ApiKeyAuth, type Operation, PATH_PREFIX, pathParameters } from '../contract/operation.js';
import type { Json } from './examples.js';

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/**
 * Where the samples send their requests: the API's address and a key, both from the environment. The SDK
 * samples are TypeScript that is also plain JavaScript (an ES module), so that they run as they are.
 */
const BASE_URL = '$TPRM_API_URL';
/** The service's origin: the API's address without its version prefix (a POSIX shell expansion). */
const ORIGIN = `\${TPRM_API_URL%${PATH_PREFIX.apiKey}}`;
const SDK_SETUP = [
  "import { createClient } from '@tprm/client';",
  '',
  'const client = createClient({',
  '  baseUrl: String(process.env.TPRM_API_URL),',
  '  apiKey: String(process.env.TPRM_API_KEY),',
  '});',
];

// A client that is never called: only its shape is read.
const client = createClient({ baseUrl: 'http://sdk.invalid/v1', apiKey: 'shape-only' }) as unknown as Record<
  string,
  Record<string, unknown>
>;

const camel = (segment: string) => segment.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());

/** `client.<namespace>.<method>` for an operation, or an error naming the operation the SDK lacks. */
export function sdkMethodOf(operation: Pick<Operation, 'method' | 'path'>): {
  namespace: string;
  method: string;
} {
  const [collection = '', id, sub] = operation.path.split('/').filter(Boolean);
  const namespace = camel(collection);
  const members = client[namespace] ?? {};
  const candidates =
    sub !== undefined
      ? [camel(sub)]
      : operation.method === 'GET'
        ? id === undefined
          ? ['list', 'get']
          : ['get']
        : { POST: ['create'], PUT: ['upsert'], PATCH: ['update'], DELETE: [] }[operation.method];
  const method = candidates.find((name) => typeof members[name] === 'function');
  if (!method)
    throw new Error(`the SDK has no method for ${operation.method} ${operation.path} (client.${namespace})`);
  return { namespace, method };
}

/** A JSON value in single quotes for a POSIX shell. */
const shellQuoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * A new Idempotency-Key per run: 128 random bits in hex, from tools every POSIX system has (od, tr and
 * /dev/urandom on Linux, macOS and the BSDs), where `uuidgen` often is not installed (P122).
 */
const NEW_IDEMPOTENCY_KEY = "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')";

/** `-d '<json>'` with its content type, or nothing. */
const jsonBody = (body: Json | undefined) =>
  body !== undefined
    ? ['-H "Content-Type: application/json"', `-d ${shellQuoted(JSON.stringify(body))}`]
    : [];

/** The samples of an operation of the versioned API. */
export function routeSamples(
  route: Operation<ApiKeyAuth>,
  examples: { ids: (param: string) => string; query: Record<string, Json>; body: Json | undefined },
): CodeSample[] {
  let path = route.path;
  for (const param of pathParameters(route.path)) path = path.replace(`:${param}`, examples.ids(param));
  const search = new URLSearchParams(
    Object.entries(examples.query).map(([name, value]): [string, string] => [name, String(value)]),
  ).toString();
  // A redirect is read, not followed: curl -L would send the key on to the signed URL, which needs none.
  const redirects = '302' in route.responses;
  const curl = [
    `curl${redirects ? " -s -o /dev/null -w '%{redirect_url}'" : ''}${route.method === 'GET' ? '' : ` -X ${route.method}`} ${JSON.stringify(
      `${BASE_URL}${path}${search ? `?${search}` : ''}`,
    )}`,
    '-H "Authorization: Bearer $TPRM_API_KEY"',
    ...(route.idempotent ? [`-H "Idempotency-Key: ${NEW_IDEMPOTENCY_KEY}"`] : []),
    ...jsonBody(examples.body),
  ].join(' \\\n  ');
  const follow = redirects ? ' \\\n  | xargs curl -o download' : '';

  const { namespace, method } = sdkMethodOf(route);
  const args = [
    ...pathParameters(route.path).map((param) => `'${examples.ids(param)}'`),
    ...(examples.body !== undefined
      ? [JSON.stringify(examples.body, null, 2)]
      : Object.keys(examples.query).length > 0
        ? [JSON.stringify(examples.query)]
        : []),
  ].join(', ');
  const call = `client.${namespace}.${method}(${args})`;
  const sdk =
    method === 'list'
      ? [`for await (const item of ${call}) {`, '  console.log(item);', '}']
      : [
          `const result = await ${call};`,
          route.idempotent
            ? '// Sent with a new Idempotency-Key, the same on each retry; pass { idempotencyKey } to choose it.'
            : '',
          'console.log(result, result.lastResponse.requestId);',
        ].filter(Boolean);
  return [
    { lang: 'Shell', label: 'curl', source: curl + follow },
    { lang: 'TypeScript', label: 'SDK', source: [...SDK_SETUP, ...sdk].join('\n') },
  ];
}

/** The sample of an operation outside the versioned API, which needs no key (the SDK does not call these). */
export function openRouteSamples(route: Operation, values: (param: string) => string): CodeSample[] {
  const path = route.path.replace(/:(\w+)/g, (_, param: string) => values(param));
  return [{ lang: 'Shell', label: 'curl', source: `curl ${JSON.stringify(`${ORIGIN}${path}`)}` }];
}

/**
 * The management API's address and token, from the variables the CLI reads (`tprm`), so that a sample and
 * the CLI run in the same shell.
 */
const ADMIN_URL = '$ADMIN_URL';

/** The curl command of a request to the management listener; `token: false` for its routes that need none. */
export function adminSample(
  method: string,
  path: string,
  body: Json | undefined,
  { token }: { token: boolean },
): CodeSample {
  const source = [
    `curl${method === 'GET' ? '' : ` -X ${method}`} ${JSON.stringify(`${ADMIN_URL}${path}`)}`,
    ...(token ? ['-H "Authorization: Bearer $ADMIN_TOKEN"'] : []),
    ...jsonBody(body),
  ].join(' \\\n  ');
  return { lang: 'Shell', label: 'curl', source };
}

/** The sample of an operation of the management API, its path ids those of the demo records. */
export function adminRouteSamples(
  operation: Pick<Operation, 'method' | 'path'>,
  id: (param: string) => string,
  body: Json | undefined,
): CodeSample[] {
  const path = `${PATH_PREFIX.operator}${operation.path.replace(/:(\w+)/g, (_, param: string) => id(param))}`;
  return [adminSample(operation.method, path, body, { token: true })];
}
