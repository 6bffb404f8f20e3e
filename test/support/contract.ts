// The contract test: every response a test receives from either listener is checked against the OpenAPI
// document the code generates for it (committed as openapi.json and openapi.admin.json, served at
// /openapi.json by each listener). The status
// must be declared for the operation, the body must match its schema with undeclared fields refused and
// required ones enforced, the declared headers must be present and well-formed, and no header the document
// describes may appear where it is not declared. A path or method the document does not have must get the
// document's NotFound response.
import { createRequire } from 'node:module';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { EventPayloads, type EventType, EventTypes } from '../../src/contract/events.js';
import { RESPONSE_HEADERS } from '../../src/contract/headers.js';
import { isUuid } from '../../src/http/validation.js';
import { adminDocumentText } from '../../src/openapi/admin-document.js';
import { apiDocumentText } from '../../src/openapi/document.js';

// ajv's 2020-12 build (OpenAPI 3.1's dialect) ships as CommonJS without an ESM entry for this path.
const { default: Ajv2020 } = createRequire(import.meta.url)('ajv/dist/2020.js') as {
  default: typeof import('ajv').Ajv;
};
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Json = Record<string, unknown>;
interface HeaderObject {
  required?: boolean;
  schema: Json;
}
interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, { schema?: Json }>;
  /** Other forms of a collection's items, by `format` (P186). */
  'x-item-formats'?: Record<string, { schema: Json }>;
}
interface Operation {
  name: string;
  pattern: RegExp;
  params: number;
  pointer: string;
  responses: Record<string, ResponseObject | { $ref: string }>;
}

const KNOWN_HEADERS = Object.keys(RESPONSE_HEADERS).map((name) => name.toLowerCase());

/** The validator's reading of the document: an object schema that does not say otherwise is closed. */
function closeObjects(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) closeObjects(item);
  } else if (value && typeof value === 'object') {
    const schema = value as Json;
    if (
      schema.type === 'object' &&
      schema.properties &&
      schema.additionalProperties === undefined &&
      schema.patternProperties === undefined
    )
      schema.additionalProperties = false;
    for (const child of Object.values(schema)) closeObjects(child);
  }
}

const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

export class Contract {
  private readonly document: Json;
  private readonly ajv;
  private readonly operations: Operation[] = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: Json) {
    const copy = structuredClone(document);
    closeObjects(copy);
    this.document = copy;
    this.ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
    addFormats(this.ajv, { mode: 'full', formats: ['date-time', 'date', 'email', 'uri'] });
    this.ajv.addFormat('uuid', { validate: isUuid });
    this.ajv.addSchema(copy, 'openapi');
    const [server] = copy.servers as { url: string }[];
    for (const [path, item] of Object.entries(copy.paths as Record<string, Json>)) {
      const base = ((item.servers as { url: string }[] | undefined)?.[0] ?? server)?.url ?? '';
      const full = `${base.replace(/\/$/, '')}${path}`;
      const source = full.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '([^/]*)');
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'servers') continue;
        const op = operation as { operationId: string; responses: Operation['responses'] };
        this.operations.push({
          name: `${method.toUpperCase()} ${full} (${op.operationId})`,
          pattern: new RegExp(`^${method}\\s${source}$`),
          params: (full.match(/\{/g) ?? []).length,
          pointer: `openapi#/paths/${escapePointer(path)}/${method}/responses`,
          responses: op.responses,
        });
      }
    }
  }

  /** A local `$ref` followed to its target, with the ajv pointer of that target. */
  private resolve<T>(value: T | { $ref: string }, pointer: string): { value: T; pointer: string } {
    const ref = (value as { $ref?: string }).$ref;
    if (!ref) return { value: value as T, pointer };
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (node, segment) => (node as Json)[segment.replaceAll('~1', '/').replaceAll('~0', '~')],
        this.document,
      );
    return this.resolve(target as T, `openapi${ref}`);
  }

  /** Throws, naming the operation, the status and what is wrong, when the response breaks the document. */
  check(method: string, url: string, response: LightMyRequestResponse): void {
    const path = url.split('?')[0] ?? '';
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const operation = this.operations
      .filter((candidate) => candidate.pattern.test(`${verb} ${path}`))
      .sort((a, b) => a.params - b.params)[0];
    const status = String(response.statusCode);
    const where = operation
      ? `${operation.name} answered ${status} to ${method} ${url}`
      : `${method} ${url} (no such operation) answered ${status}`;
    const fail = (problem: string): never => {
      throw new Error(`OpenAPI contract: ${where}: ${problem}\n  body: ${response.body.slice(0, 500)}`);
    };

    let found: { value: ResponseObject; pointer: string };
    if (operation) {
      const declared = operation.responses[status];
      if (!declared)
        fail(`status ${status} is not declared (declared: ${Object.keys(operation.responses).join(', ')})`);
      found = this.resolve(declared as ResponseObject, `${operation.pointer}/${status}`);
    } else {
      if (status !== '404') fail('a path or method outside the document must answer the NotFound response');
      found = this.resolve<ResponseObject>({ $ref: '#/components/responses/NotFound' }, '');
    }
    const { value: spec, pointer } = found;

    // Headers: the declared ones present and valid; none the document describes where it is not declared.
    const headers = spec.headers ?? {};
    const declaredNames = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    for (const [name, reference] of Object.entries(headers)) {
      const header = this.resolve(reference, `${pointer}/headers/${escapePointer(name)}`);
      const value = response.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.value.required) fail(`required header ${name} is missing`);
        continue;
      }
      const text = String(value);
      const typed = header.value.schema.type === 'integer' && /^-?\d+$/.test(text) ? Number(text) : text;
      const validate = this.compile(`${header.pointer}/schema`);
      if (!validate(typed)) fail(`header ${name}: ${JSON.stringify(text)} ${explain(validate.errors)}`);
    }
    for (const name of Object.keys(response.headers)) {
      if (KNOWN_HEADERS.includes(name) && !declaredNames.has(name))
        fail(`header ${name} is not declared for this response`);
    }

    // Body: the declared media type, and for JSON the declared schema.
    const hasBody = response.rawPayload.length > 0;
    if (!spec.content) {
      if (hasBody) fail('the document declares no body for this response');
      return;
    }
    if (!hasBody) {
      if (method.toUpperCase() !== 'HEAD') fail('the document declares a body and there is none');
      return;
    }
    const type =
      String(response.headers['content-type'] ?? '')
        .split(';')[0]
        ?.trim() ?? '';
    const media = spec.content[type];
    if (!media) fail(`content type ${type} is not declared (${Object.keys(spec.content).join(', ')})`);
    if (!media?.schema) return;
    // Another form of a collection's items (P186), in a page or in an export's lines.
    const format = new URLSearchParams(url.split('?')[1] ?? '').get('format');
    const itemFormats = spec['x-item-formats'];
    const validateItem =
      format && itemFormats && Object.hasOwn(itemFormats, format)
        ? this.compile(`${pointer}/x-item-formats/${escapePointer(format)}/schema`)
        : null;
    if (type === 'application/x-ndjson') {
      // A stream of JSON lines (a list's export): each line against the schema of one line; in another form,
      // a record's line against that form's schema (the end and error lines are the same in every form).
      const lineSchema = this.compile(`${pointer}/content/${escapePointer(type)}/schema`);
      const validateLine = (item: unknown) => {
        const last = item !== null && typeof item === 'object' && ('meta' in item || 'error' in item);
        const check = validateItem && !last ? validateItem : lineSchema;
        const valid = check(item);
        validateLine.errors = check.errors;
        return valid;
      };
      validateLine.errors = null as typeof lineSchema.errors;
      if (!response.body.endsWith('\n')) fail('the stream does not end with a whole line');
      for (const line of response.body.slice(0, -1).split('\n')) {
        let item: unknown;
        try {
          item = JSON.parse(line);
        } catch {
          fail(`a line is not JSON: ${line.slice(0, 80)}`);
        }
        if (!validateLine(item)) fail(`line ${explain(validateLine.errors)}`);
      }
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      fail('the body is not JSON');
    }
    const validate = this.compile(`${pointer}/content/${escapePointer(type)}/schema`);
    // In another form: the envelope as declared, each item by the form's schema.
    if (validateItem) {
      const { data, ...envelope } = body as { data: unknown[] };
      if (!validate({ ...envelope, data: [] })) fail(`body ${explain(validate.errors)}`);
      for (const [index, item] of data.entries())
        if (!validateItem(item)) fail(`data[${index}] (format=${format}) ${explain(validateItem.errors)}`);
      return;
    }
    if (!validate(body)) fail(`body ${explain(validate.errors)}`);
  }

  /** Throws when a webhook payload does not match the schema the document's `webhooks` give its type. */
  checkEvent(payload: { type?: unknown }): void {
    const type = String(payload.type);
    if (!Object.hasOwn((this.document.webhooks ?? {}) as Json, type))
      throw new Error(`OpenAPI contract: no webhook is described for event type ${type}`);
    const validate = this.compile(
      `openapi#/webhooks/${escapePointer(type)}/post/requestBody/content/application~1json/schema`,
    );
    if (!validate(payload)) throw new Error(`OpenAPI contract: ${type} event ${explain(validate.errors)}`);
  }

  /**
   * Throws when an event payload does not match the schema the event catalogue (src/contract/events.ts) gives
   * its type: what the code declares, checked without going through the document.
   */
  checkCataloguedEvent(payload: { type?: unknown }): void {
    const type = payload.type as EventType;
    if (!EventTypes.includes(type)) throw new Error(`event catalogue: no event type ${String(type)}`);
    let validate = this.validators.get(`catalogue ${type}`);
    if (!validate) {
      validate = this.ajv.compile(EventPayloads[type]);
      this.validators.set(`catalogue ${type}`, validate);
    }
    if (!validate(payload)) throw new Error(`event catalogue: ${type} event ${explain(validate.errors)}`);
  }

  private compile(ref: string): ValidateFunction {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }

  /** Checks every response `app.inject` returns from now on (the promise forms of inject only). */
  watch(app: FastifyInstance): void {
    const inject = app.inject.bind(app) as (
      options: InjectOptions | string,
    ) => Promise<LightMyRequestResponse>;
    const watched = async (options: InjectOptions | string, ...rest: unknown[]) => {
      if (options === undefined || rest.length > 0)
        throw new Error(
          'OpenAPI contract: call inject with options and await it, so the response is checked',
        );
      const response = await inject(options);
      const request = response.raw.req as { method: string; url: string };
      this.check(request.method, request.url, response);
      return response;
    };
    app.inject = watched as unknown as FastifyInstance['inject'];
  }
}

function explain(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((error) => `${error.instancePath || '(root)'} ${error.message} ${JSON.stringify(error.params)}`)
    .join('; ');
}

let shared: Contract | undefined;
let sharedAdmin: Contract | undefined;

/** The contract of the document the code generates, built once per test process. */
export function contract(): Contract {
  shared ??= new Contract(JSON.parse(apiDocumentText()) as Json);
  return shared;
}

/** The same check of the management listener's responses, against its own document (openapi.admin.json). */
export function adminContract(): Contract {
  sharedAdmin ??= new Contract(JSON.parse(adminDocumentText()) as Json);
  return sharedAdmin;
}
