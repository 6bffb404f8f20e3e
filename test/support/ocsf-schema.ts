// A small compiler from the OCSF schema source (the JSON files of github.com/ocsf/ocsf-schema, release 1.8.0,
// copied as test/fixtures/ocsf-1.8.0/) to JSON Schema, so the tests validate every OCSF item the service writes
// with Ajv. No OCSF validator installs here, so this is the one reading of the schema the tests trust; it does
// what the OCSF server does for these checks, and no more:
//   - a class or object `extends` its parent (its file beside it, else events/ or objects/), attribute by
//     attribute: the child's keys override the parent's, enumerations add up;
//   - `$include` merges the attributes of the files it names (the profiles) before the file's own;
//   - an attribute's type, array-ness and enumeration come from dictionary.json, overridden by the class or
//     object; a `*_t` type is its base JSON type with the dictionary's regex, length, range or values; an
//     object type is compiled the same way, once, as a definition (`$ref`), so recursive objects terminate;
//   - `requirement: required` makes the attribute required; `constraints` at_least_one / just_one become
//     anyOf / oneOf of `required`; no attribute the class or object does not define is allowed;
//   - a class: `category_uid` is its category's uid, `class_uid` is category_uid * 1000 + its uid, `activity_id`
//     one of its activities, and `type_uid = class_uid * 100 + activity_id` (a oneOf, one branch per activity).
// Not done (the service writes none of them): the datetime profile's `*_dt` siblings, deprecations, and the
// observables' type ids. `read` records the files used, which is how the fixture set was chosen (README there).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';

export const OCSF_FIXTURES = new URL('../../../test/fixtures/ocsf-1.8.0/', import.meta.url).pathname;

type Json = Record<string, unknown>;
type JsonSchema = Record<string, unknown>;

interface AttributeSpec {
  type?: string;
  is_array?: boolean;
  requirement?: string | null;
  enum?: Record<string, unknown>;
  [key: string]: unknown;
}

interface Definition {
  name: string;
  caption?: string;
  uid?: number;
  category?: string;
  extends?: string;
  attributes: Record<string, AttributeSpec>;
  constraints?: { at_least_one?: string[]; just_one?: string[] };
}

/** One compiled class: its JSON Schema (self-contained) and its ids. */
export interface CompiledClass {
  name: string;
  classUid: number;
  categoryUid: number;
  activityIds: number[];
  schema: JsonSchema;
}

/** Merges attribute specs: `over`'s keys win, enumerations add up. */
function mergeAttribute(base: AttributeSpec | undefined, over: AttributeSpec): AttributeSpec {
  if (!base) return { ...over };
  const merged: AttributeSpec = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (key === 'enum') merged.enum = { ...(base.enum ?? {}), ...(value as Record<string, unknown>) };
    // A null requirement keeps the parent's.
    else if (!(key === 'requirement' && value == null)) merged[key] = value;
  }
  return merged;
}

export class OcsfSchema {
  /** The files read, relative to the root: the fixture set. */
  readonly filesRead = new Set<string>();
  private readonly dictionary: { attributes: Record<string, AttributeSpec>; types: Record<string, Json> };
  private readonly categories: Record<string, { uid: number }>;
  private readonly definitions: Record<string, JsonSchema> = {};

  /** The release the source is (version.json). */
  readonly version: string;

  constructor(private readonly root: string = OCSF_FIXTURES) {
    this.version = (this.read('version.json') as { version: string }).version;
    const dictionary = this.read('dictionary.json') as Json;
    this.dictionary = {
      attributes: dictionary.attributes as Record<string, AttributeSpec>,
      types: (dictionary.types as Json).attributes as Record<string, Json>,
    };
    this.categories = (this.read('categories.json') as Json).attributes as Record<string, { uid: number }>;
  }

  read(path: string): unknown {
    const file = join(this.root, path);
    if (!existsSync(file)) throw new Error(`OCSF schema source: ${path} is not in ${this.root}`);
    this.filesRead.add(path);
    return JSON.parse(readFileSync(file, 'utf8'));
  }

  /** A class or object file with its parents and includes resolved: every attribute it has, merged. */
  private resolve(path: string): Definition {
    const own = this.read(path) as Definition;
    let attributes: Record<string, AttributeSpec> = {};
    let constraints = own.constraints;
    let category = own.category;
    if (own.extends && own.extends !== 'object') {
      const parent = this.resolve(this.parentPath(path, own.extends));
      attributes = parent.attributes;
      constraints ??= parent.constraints;
      category ??= parent.category;
    }
    const { $include, ...declared } = own.attributes as Record<string, AttributeSpec> & {
      $include?: string[];
    };
    for (const included of ($include as string[] | undefined) ?? []) {
      const profile = this.read(included) as Definition;
      // An attribute the profile adds belongs to it (`profile`), unless the file's own spec says `profile: null`.
      for (const [name, spec] of Object.entries(profile.attributes))
        attributes[name] = attributes[name]
          ? mergeAttribute(attributes[name], spec)
          : { ...spec, profile: profile.name };
    }
    for (const [name, spec] of Object.entries(declared))
      attributes[name] = mergeAttribute(attributes[name], spec);
    return { ...own, category, attributes, constraints };
  }

  private parentPath(path: string, parent: string): string {
    const beside = join(dirname(path), `${parent}.json`);
    if (existsSync(join(this.root, beside))) return beside;
    const top = path.startsWith('objects/') ? `objects/${parent}.json` : `events/${parent}.json`;
    return top;
  }

  /** A `*_t` type as JSON Schema: its base JSON type with the dictionary's constraints along the chain. */
  private typeSchema(type: string): JsonSchema {
    const spec = this.dictionary.types[type];
    if (!spec) throw new Error(`OCSF: unknown type ${type}`);
    const schema: JsonSchema = spec.type ? this.typeSchema(spec.type as string) : {};
    switch (type) {
      case 'string_t':
        schema.type = 'string';
        break;
      case 'integer_t':
      case 'long_t':
        schema.type = 'integer';
        break;
      case 'float_t':
        schema.type = 'number';
        break;
      case 'boolean_t':
        schema.type = 'boolean';
        break;
    }
    if (spec.regex) schema.pattern = spec.regex;
    if (spec.max_len) schema.maxLength = spec.max_len;
    if (Array.isArray(spec.range)) [schema.minimum, schema.maximum] = spec.range;
    if (Array.isArray(spec.values)) schema.enum = spec.values;
    return schema;
  }

  /** One attribute's value as JSON Schema (`spec`: the class's or object's view of it). */
  private attributeSchema(name: string, spec: AttributeSpec): JsonSchema {
    const known = this.dictionary.attributes[name];
    if (!known) throw new Error(`OCSF: attribute ${name} is not in the dictionary`);
    const merged = mergeAttribute(known, spec);
    const type = merged.type as string;
    let schema: JsonSchema;
    if (type.endsWith('_t')) schema = this.typeSchema(type);
    else if (type === 'object') schema = { type: 'object' };
    else schema = { $ref: `#/definitions/${this.object(type)}` };
    if (merged.enum) {
      const values = Object.keys(merged.enum);
      schema.enum = schema.type === 'integer' ? values.map(Number) : values;
    }
    return merged.is_array ? { type: 'array', items: schema } : schema;
  }

  /** The properties, required list and constraints of a resolved definition, closed to other attributes. */
  private shape(definition: Definition): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    // A profile's required attributes are required when the item names the profile in metadata.profiles.
    const byProfile = new Map<string, string[]>();
    for (const [name, { profile, requirement, ...spec }] of Object.entries(definition.attributes)) {
      properties[name] = this.attributeSchema(name, spec);
      if (requirement !== 'required') continue;
      if (typeof profile === 'string') byProfile.set(profile, [...(byProfile.get(profile) ?? []), name]);
      else required.push(name);
    }
    const schema: JsonSchema = { type: 'object', properties, required, additionalProperties: false };
    const { at_least_one: atLeastOne, just_one: justOne } = definition.constraints ?? {};
    const all: JsonSchema[] = [...byProfile].map(([profile, names]) => ({
      if: {
        required: ['metadata'],
        properties: {
          metadata: { required: ['profiles'], properties: { profiles: { contains: { const: profile } } } },
        },
      },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a promise
      then: { required: names },
    }));
    if (atLeastOne) all.push({ anyOf: atLeastOne.map((name) => ({ required: [name] })) });
    if (justOne) all.push({ oneOf: justOne.map((name) => ({ required: [name] })) });
    if (all.length > 0) schema.allOf = all;
    return schema;
  }

  /** Compiles an object once into the definitions; returns its name. */
  private object(name: string): string {
    if (!(name in this.definitions)) {
      this.definitions[name] = {}; // placeholder: a recursive reference finds it
      this.definitions[name] = this.shape(this.resolve(`objects/${name}.json`));
    }
    return name;
  }

  /** Compiles the class in `path` (e.g. `events/application/api_activity.json`) into one JSON Schema. */
  compileClass(path: string): CompiledClass {
    const definition = this.resolve(path);
    const category = definition.category as string;
    const categoryUid = category === 'other' ? 0 : (this.categories[category]?.uid as number);
    if (categoryUid === undefined) throw new Error(`OCSF: unknown category ${category}`);
    const classUid = categoryUid * 1000 + (definition.uid ?? 0);
    const activityIds = Object.keys(definition.attributes.activity_id?.enum ?? {}).map(Number);
    const shape = this.shape(definition);
    const properties = shape.properties as Record<string, JsonSchema>;
    properties.class_uid = { type: 'integer', const: classUid };
    properties.category_uid = { type: 'integer', const: categoryUid };
    const typeUid = {
      oneOf: activityIds.map((id) => ({
        properties: { activity_id: { const: id }, type_uid: { const: classUid * 100 + id } },
      })),
    };
    shape.allOf = [...((shape.allOf as JsonSchema[]) ?? []), typeUid];
    return {
      name: definition.name,
      classUid,
      categoryUid,
      activityIds,
      schema: { ...shape, definitions: { ...this.definitions } },
    };
  }
}

/** Validates items against compiled classes, picking the class by each item's `class_uid`. */
export class OcsfValidator {
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly byUid = new Map<number, (item: unknown) => ErrorObject[]>();
  readonly classes: CompiledClass[];

  constructor(schema: OcsfSchema, classPaths: readonly string[]) {
    this.classes = classPaths.map((path) => schema.compileClass(path));
    for (const compiled of this.classes) {
      const validate = this.ajv.compile(compiled.schema);
      this.byUid.set(compiled.classUid, (item) => (validate(item) ? [] : [...(validate.errors ?? [])]));
    }
  }

  /** The problems of one item, as readable lines (none: valid). */
  problems(item: unknown): string[] {
    const uid = (item as { class_uid?: unknown } | null)?.class_uid;
    const validate = typeof uid === 'number' ? this.byUid.get(uid) : undefined;
    if (!validate) return [`class_uid ${String(uid)} is not one of the compiled classes`];
    return validate(item).map(
      (error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`,
    );
  }
}

/** The classes the service emits (docs/ocsf.md), by their files in the schema source. */
export const SERVICE_CLASSES = [
  'events/application/api_activity.json',
  'events/iam/entity_management.json',
  'events/findings/detection_finding.json',
] as const;
