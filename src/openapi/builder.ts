// The one builder of both OpenAPI 3.1 documents (openapi.json and openapi.admin.json), generated from the
// operations' contracts (never the handlers): the same TypeBox schemas that validate requests and serialize
// responses, and what each listener's pipeline adds to an operation (its errors, headers, security), which
// depends on the operation's auth: the builder takes one set of rules per kind of auth (AuthRules) and a
// listener's profile (DocumentProfile: its operations, tags, extra paths and the document's layout).
// Nothing here names an operation: one added to a list is described without touching this file.
// Decisions cited as `decision N` (the product's) and `P<n>` (this project's): docs/decisions.md.
import { STATUS_CODES } from 'node:http';
import { type ApiError, ErrorSchema, errorBody, notFound } from '../contract/errors.js';
import { RESPONSE_HEADERS, type ResponseHeader, STAMPED_HEADERS } from '../contract/headers.js';
import {
  type Auth,
  type Operation,
  openApiPath,
  pathParameters,
  type ResponseSpec,
  success,
} from '../contract/operation.js';
import { IdempotencyKeyHeader } from '../http/idempotency.js';
import { IfNoneMatchHeader } from '../http/revalidation.js';
import { Uuid } from '../schema/fields.js';
import type { CodeSample } from './code-samples.js';
import {
  createdExample,
  type ExampleOptions,
  exampleOf,
  exampleUuid,
  type Json,
  type JsonSchema,
  mapSubschemas,
  plain,
} from './examples.js';
import { pathSampleId, seedSample } from './seed-samples.js';

const SCHEMAS = '#/components/schemas/';
const JSON_MEDIA = 'application/json';

/** The request id shown in example error bodies. */
const EXAMPLE_REQUEST_ID = exampleUuid('request_id');

/**
 * Who publishes the API, in both documents: where its users get help, and the terms it is used under. The API
 * is proprietary (no open-source license): `LicenseRef-` is SPDX's form for a license of one's own.
 */
export const PUBLISHER = {
  contact: {
    name: 'TPRM API support',
    url: 'https://tprm.example.com/support',
    email: 'support@tprm.example.com',
  },
  license: {
    name: 'Proprietary: use is governed by your subscription agreement',
    identifier: 'LicenseRef-Proprietary',
  },
};

/** Examples show demo records (P88, P121): response bodies in full, request bodies with their required fields. */
export const RESPONSE_EXAMPLES: ExampleOptions = { minimal: false, sample: seedSample };

/** Turns TypeBox schemas into plain JSON Schema and hoists every titled schema into components. */
export class SchemaRegistry {
  readonly components: Record<string, JsonSchema> = {};

  /** The schema as the document shows it: titled parts become `$ref`s. */
  ref(schema: unknown): JsonSchema {
    return this.hoist(plain(schema));
  }

  private hoist(schema: JsonSchema): JsonSchema {
    const walked = mapSubschemas(schema, (child) => this.hoist(child));
    if (walked.discriminator) walked.discriminator = this.mapped(walked);
    if (typeof walked.title !== 'string') return walked;
    const name = walked.title;
    const known = this.components[name];
    if (known && JSON.stringify(known) !== JSON.stringify(walked))
      throw new Error(`two different schemas are titled ${name}`);
    this.components[name] = walked;
    return { $ref: `${SCHEMAS}${name}` };
  }

  /** Discriminators name their shapes explicitly: the implicit mapping would look for a schema per value. */
  private mapped(schema: JsonSchema): { propertyName: string; mapping: Record<string, string> } {
    const { propertyName } = schema.discriminator as { propertyName: string };
    const mapping: Record<string, string> = {};
    for (const branch of (schema.oneOf ?? []) as JsonSchema[]) {
      const ref = branch.$ref as string | undefined;
      const shape = ref ? this.components[ref.slice(SCHEMAS.length)] : undefined;
      const values = (shape?.properties as Record<string, JsonSchema> | undefined)?.[propertyName]?.enum;
      if (!ref || !Array.isArray(values) || values.length !== 1)
        throw new Error(`a oneOf discriminated by ${propertyName} needs titled shapes, each with one value`);
      mapping[String(values[0])] = ref;
    }
    return { propertyName, mapping };
  }
}

/** Header components: one per header, and an `.optional` variant where some responses may lack it. */
export class HeaderRegistry {
  readonly components: Record<string, unknown> = {};

  refs(required: readonly ResponseHeader[], optional: readonly ResponseHeader[] = []) {
    const headers: Record<string, { $ref: string }> = {};
    for (const [names, isRequired] of [
      [required, true],
      [optional, false],
    ] as const) {
      for (const name of names) {
        const key = isRequired ? name : `${name}.optional`;
        const { description, schema } = RESPONSE_HEADERS[name];
        this.components[key] ??= { description, required: isRequired, schema: plain(schema) };
        headers[name] = { $ref: `#/components/headers/${key}` };
      }
    }
    return headers;
  }
}

export function errorExamples(errors: readonly ApiError[]): Record<string, unknown> {
  if (errors.length === 1) return { example: errorExample(errors[0] as ApiError) };
  const examples: Record<string, { summary: string; value: Json }> = {};
  for (const error of errors) {
    const reason = error.details?.reason;
    let key = typeof reason === 'string' ? reason : error.code;
    for (let n = 2; key in examples; n++) key = `${error.code}_${n}`;
    examples[key] = { summary: error.message, value: errorExample(error) };
  }
  return { examples };
}

const errorExample = (error: ApiError) => JSON.parse(errorBody(error, EXAMPLE_REQUEST_ID)) as Json;

export function parameter(
  name: string,
  location: 'path' | 'query' | 'header',
  schema: unknown,
  required: boolean,
) {
  const { description, ...rest } = plain(schema);
  return { name, in: location, required, ...(description ? { description } : {}), schema: rest };
}

/** The query a sample sends: the required parameters, and a small page where the operation is paged. */
function queryExampleOf(query: Operation['query']): Record<string, Json> {
  if (!query) return {};
  const required = new Set(query.required ?? []);
  const example: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(query.properties)) {
    if (required.has(name)) example[name] = exampleOf(plain(schema), { minimal: true }, name) ?? null;
  }
  if ('cursor' in query.properties && 'limit' in query.properties) example.limit = 10;
  return example;
}

function queryParameters(query: Operation['query']) {
  if (!query) return [];
  const required = new Set(query.required ?? []);
  return Object.entries(query.properties).map(([name, schema]) =>
    parameter(name, 'query', schema, required.has(name)),
  );
}

/**
 * A response that most operations with its status give (a generic one) becomes a component named after the
 * status (`TooManyRequests`); variants particular to a few operations stay inline.
 */
function shareResponses(
  paths: Record<string, Record<string, unknown>>,
  seeded: Record<string, unknown>,
): Record<string, unknown> {
  const operations = Object.values(paths).flatMap((item) =>
    Object.entries(item)
      .filter(([key]) => key !== 'servers')
      .map(([, operation]) => operation as { responses: Record<string, unknown> }),
  );
  const uses = new Map<string, { status: string; count: number }>();
  const withStatus = new Map<string, number>();
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const key = JSON.stringify(response);
      uses.set(key, { status, count: (uses.get(key)?.count ?? 0) + 1 });
      withStatus.set(status, (withStatus.get(status) ?? 0) + 1);
    }
  }
  const shared = new Map<string, string>();
  const components: Record<string, unknown> = {};
  for (const [name, response] of Object.entries(seeded)) {
    shared.set(JSON.stringify(response), name);
    components[name] = response;
  }
  for (const [key, { status, count }] of uses) {
    const name = (STATUS_CODES[Number(status)] ?? status).replace(/[^A-Za-z]/g, '');
    if (count < 2 || count * 2 <= (withStatus.get(status) ?? 0) || shared.has(key) || name in components)
      continue;
    shared.set(key, name);
    components[name] = JSON.parse(key);
  }
  for (const operation of operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const name = shared.get(JSON.stringify(response));
      if (name) operation.responses[status] = { $ref: `#/components/responses/${name}` };
    }
  }
  return components;
}

/** A response as the document shows it: its spec, the error bodies it gives, the headers the listener sets. */
export interface DescribedResponse {
  spec: ResponseSpec;
  errors: readonly ApiError[];
  headers: { required: readonly ResponseHeader[]; optional: readonly ResponseHeader[] };
}

/** What a listener adds to the operations of one kind of auth, as the document describes it. */
export interface AuthRules<O extends Operation> {
  /** The operation's responses by status: the declared ones, with those its pipeline gives. */
  responses(operation: O): Record<number, DescribedResponse>;
  /** Who may call, as the description's last paragraph says it (none: the document's `security` says it). */
  needs?(operation: O): string;
  /** The operation's own `security`, when not the document's. */
  security?(operation: O): unknown[];
  /** Fields of the operation besides the common ones (placed before `security`). */
  extensions?(operation: O): Record<string, unknown>;
  /** The `servers` of its path item, when not the document's. */
  servers?: unknown[];
  /** The listener's prefix of its paths, when the document's `servers` do not carry it. */
  pathPrefix?: string;
  /** How the example of a request body is made, given the title of the schema the operation answers with. */
  bodyExample(body: JsonSchema, answered: string | undefined): ExampleOptions;
  /** Whether a body is required when the handler judges it itself (`validateBody: false`). */
  judgedBodyRequired: boolean;
  /** Notes the operation on the description of its tag. */
  tag?(operation: O, tag: TagNotes): void;
  samples(
    operation: O,
    examples: { ids: (param: string) => string; query: Record<string, Json>; body: Json | undefined },
  ): CodeSample[];
}

/** What the description of a tag says: the scopes its operations need, and whether some need no key. */
export interface TagNotes {
  scopes: Set<string>;
  open: boolean;
}

export type RulesByAuth = { [K in Auth['kind']]?: AuthRules<Operation<Extract<Auth, { kind: K }>>> };

/**
 * The paths of a document: each operation with its parameters, request body, responses (with the listener's
 * own, by its auth's rules) and code samples, and the tags they carry.
 */
export function describeOperations(
  operations: readonly Operation[],
  rules: RulesByAuth,
  schemas: SchemaRegistry,
  headers: HeaderRegistry,
): { paths: Record<string, Record<string, unknown>>; tags: Map<string, TagNotes> } {
  const errorRef = schemas.ref(ErrorSchema);
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Map<string, TagNotes>();

  const content = (schema: unknown, example: Json | undefined) => ({
    [JSON_MEDIA]: { schema: schemas.ref(schema), ...(example === undefined ? {} : { example }) },
  });

  for (const operation of operations) {
    const rule = rules[operation.auth.kind] as AuthRules<Operation> | undefined;
    if (!rule) throw new Error(`${operation.id}: no rules for the ${operation.auth.kind} auth here`);
    const tag = tags.get(operation.tag) ?? { scopes: new Set<string>(), open: false };
    tags.set(operation.tag, tag);
    rule.tag?.(operation, tag);
    const answered = success(operation)?.[1].schema;
    const answeredTitle = answered ? plain(answered).title : undefined;
    const body = operation.body;
    const requestExample = body
      ? exampleOf(
          plain(body),
          rule.bodyExample(plain(body), typeof answeredTitle === 'string' ? answeredTitle : undefined),
        )
      : undefined;
    const responses: Record<string, unknown> = {};
    for (const [status, { spec, errors, headers: set }] of Object.entries(rule.responses(operation))) {
      const example =
        spec.created && spec.schema
          ? createdExample(plain(spec.schema), requestExample, spec.created, RESPONSE_EXAMPLES)
          : undefined;
      const responseBody = spec.schema
        ? {
            ...content(spec.schema, example ?? exampleOf(plain(spec.schema), RESPONSE_EXAMPLES)),
            ...(spec.lines
              ? {
                  [spec.lines.mediaType]: {
                    schema: schemas.ref(spec.lines.schema),
                    example: exampleOf(plain(spec.lines.schema), RESPONSE_EXAMPLES),
                  },
                }
              : {}),
          }
        : spec.mediaTypes
          ? Object.fromEntries(spec.mediaTypes.map((type) => [type, {}]))
          : errors.length > 0
            ? { [JSON_MEDIA]: { schema: errorRef, ...errorExamples(errors) } }
            : undefined;
      responses[status] = {
        description: spec.description,
        headers: headers.refs([...set.required, ...(spec.headers ?? [])], set.optional),
        ...(responseBody ? { content: responseBody } : {}),
        ...(spec.itemFormats ? { 'x-item-formats': itemFormats(spec.itemFormats, schemas) } : {}),
      };
    }
    const path = `${rule.pathPrefix ?? ''}${openApiPath(operation.path)}`;
    const description = [operation.description, rule.needs?.(operation)].filter(Boolean).join('\n\n');
    const item = paths[path] ?? (rule.servers ? { servers: rule.servers } : {});
    paths[path] = item;
    const method = operation.method.toLowerCase();
    if (item[method]) throw new Error(`${operation.method} ${path} is declared twice`);
    // Path ids are uuids unless the operation gives their schema.
    const pathSchema = (name: string) => operation.params?.[name] ?? Uuid;
    item[method] = {
      operationId: operation.id,
      tags: [operation.tag],
      summary: operation.summary,
      ...(description ? { description } : {}),
      ...rule.extensions?.(operation),
      ...(rule.security ? { security: rule.security(operation) } : {}),
      parameters: [
        ...pathParameters(operation.path).map((name) => parameter(name, 'path', pathSchema(name), true)),
        ...queryParameters(operation.query),
        ...(operation.idempotent ? [parameter('Idempotency-Key', 'header', IdempotencyKeyHeader, true)] : []),
        // An operation that can answer 304 reads the entity tags of the copies the client holds.
        ...('304' in responses ? [parameter('If-None-Match', 'header', IfNoneMatchHeader, false)] : []),
      ],
      ...(body
        ? {
            requestBody: {
              required: operation.validateBody !== false || rule.judgedBodyRequired,
              content: content(body, requestExample),
            },
          }
        : {}),
      responses,
      'x-codeSamples': rule.samples(operation, {
        ids: operation.params
          ? (param) => String(exampleOf(plain(pathSchema(param)), { minimal: true }, param))
          : pathSampleId(operation.path),
        query: queryExampleOf(operation.query),
        body: requestExample,
      }),
    };
  }
  return { paths, tags };
}

/**
 * A response's other forms of its items (P186): by `format` value, the item's schema (a component) and its
 * example. OpenAPI gives one schema per media type and the forms share `application/json`, so they are named in
 * an extension: the answer's schema stays the default form, and so do the SDK's types.
 */
function itemFormats(formats: Readonly<Record<string, unknown>>, schemas: SchemaRegistry) {
  return Object.fromEntries(
    Object.entries(formats).map(([format, schema]) => [
      format,
      { schema: schemas.ref(schema), example: exampleOf(plain(schema), RESPONSE_EXAMPLES) },
    ]),
  );
}

export const sorted = <T>(record: Record<string, T>) =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));

/** What the builder made of a listener's operations, for its profile to lay out. */
export interface DocumentParts {
  schemas: SchemaRegistry;
  headers: HeaderRegistry;
  paths: Record<string, Record<string, unknown>>;
  tags: { name: string; description: string }[];
  /** The response components: the NotFound answer, and the shared ones where the profile shares them. */
  responses: Record<string, unknown>;
  /** A JSON body of this schema, with its example. */
  content(schema: unknown, example: Json | undefined): Record<string, unknown>;
  /** An error body giving these errors (their examples). */
  errorContent(errors: readonly ApiError[]): Record<string, unknown>;
}

/** One listener's document: its operations, the rules of their auths, and what it says around them. */
export interface DocumentProfile {
  operations: readonly Operation[];
  rules: RulesByAuth;
  /** The description of a tag, from the notes its operations left (`undefined`: the build fails). */
  tagDescription(name: string, notes: TagNotes): string | undefined;
  /** Paths the listener serves besides its operations (the admin listener's probes): their tags are listed. */
  extraPaths?(
    parts: Omit<DocumentParts, 'paths' | 'tags' | 'responses'>,
  ): Record<string, Record<string, unknown>>;
  /** The answer to any path or method the document does not have. */
  notFound: { description: string; optionalHeaders: readonly ResponseHeader[] };
  /** Whether a response most operations with its status give becomes a component (`TooManyRequests`). */
  shareResponses: boolean;
  /** The document: info, servers, security, components, in the listener's layout. */
  layout(parts: DocumentParts): Record<string, unknown>;
}

export function buildDocument(profile: DocumentProfile): Record<string, unknown> {
  const schemas = new SchemaRegistry();
  const headers = new HeaderRegistry();
  const errorRef = schemas.ref(ErrorSchema);
  const tools = {
    schemas,
    headers,
    content: (schema: unknown, example: Json | undefined) => ({
      [JSON_MEDIA]: { schema: schemas.ref(schema), ...(example === undefined ? {} : { example }) },
    }),
    errorContent: (errors: readonly ApiError[]) => ({
      [JSON_MEDIA]: { schema: errorRef, ...errorExamples(errors) },
    }),
  };
  const { paths, tags } = describeOperations(profile.operations, profile.rules, schemas, headers);
  for (const [path, item] of Object.entries(profile.extraPaths?.(tools) ?? {})) {
    paths[path] = item;
    for (const operation of Object.values(item) as { tags: string[] }[])
      for (const tag of operation.tags) if (!tags.has(tag)) tags.set(tag, { scopes: new Set(), open: true });
  }
  const notFoundResponse = {
    description: profile.notFound.description,
    headers: headers.refs(STAMPED_HEADERS, profile.notFound.optionalHeaders),
    content: tools.errorContent([notFound()]),
  };
  const responses = profile.shareResponses
    ? shareResponses(paths, { NotFound: notFoundResponse })
    : { NotFound: notFoundResponse };
  return profile.layout({
    ...tools,
    paths,
    tags: [...tags].map(([name, notes]) => {
      const description = profile.tagDescription(name, notes);
      if (description === undefined) throw new Error(`tag ${name} has no description`);
      return { name, description };
    }),
    responses,
  });
}
