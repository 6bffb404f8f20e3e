// What `tprm mcp` offers an agent, derived from the public operations' contracts (src/resources/operations.ts)
// and nothing else: one read-only tool per GET operation (its name from the operationId, its description from the
// summary, description and scope, its input from the path parameters and the query schema that validates the
// request), the enumerations of the resources the tools answer with, and prompts that chain the tools.
// Decisions cited as `P<n>`: docs/decisions.md.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  type ApiKeyAuth,
  type Operation,
  openApiPath,
  PATH_PREFIX,
  pathParameters,
} from '../contract/operation.js';
import { type JsonSchema, mapSubschemas, plain } from '../openapi/examples.js';
import { publicOperations } from '../resources/operations.js';
import { Uuid } from '../schema/fields.js';

/** One tool: what the agent sees, and the GET of the document it calls. */
export interface AgentTool {
  tool: Tool;
  /** The document's path (`/suppliers/{id}`), as the SDK takes it. */
  path: string;
  /** The path parameter, when the path has one (the SDK fills `{id}`). */
  pathParameter: string | undefined;
  /** Arguments sent when the agent gives none: a smaller page than the API's default (P164). */
  defaults: Record<string, unknown>;
  /**
   * For an answer the API never pages (the gaps of an assessment): the tool's own `limit`, applied to the
   * answer's rows, the most severe kept, with a note of how many were left out (P164).
   */
  cut?: { argument: string; default: number; maximum: number; mostSevereFirst: string[] };
}

/** Rows a list tool answers when the agent names no `limit`: a page that fits in an agent's context. */
export const AGENT_LIMIT = 20;
/** The most gaps `list_assessment_gaps` answers at once. */
export const MAX_GAPS = 500;

/** `listActionPlanItems` → `list_action_plan_items`: the operationId in the tool-name style agents use. */
export const toolName = (operationId: string): string =>
  operationId.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** The `limit` of a tool: the API's, its meaning kept (a page, or rows per scope), with the agents' default. */
function agentLimit(schema: JsonSchema): JsonSchema {
  const text = typeof schema.description === 'string' ? schema.description : '';
  const here = `default ${AGENT_LIMIT} here`;
  return {
    ...schema,
    default: AGENT_LIMIT,
    description: /default \d+/.test(text) ? text.replace(/default \d+/, here) : `${text} (${here})`.trim(),
  };
}

function toolOf(
  operation: Operation<ApiKeyAuth>,
  variant: { name?: string; title?: string; lead?: string; required?: string[] } = {},
): AgentTool {
  const parameters = pathParameters(operation.path);
  if (parameters.length > 1) throw new Error(`${operation.path}: the SDK fills one path parameter`);
  const query = operation.query ? plain(operation.query) : { properties: {}, required: [] };
  const properties = { ...(query.properties as Record<string, JsonSchema>) };
  const defaults: Record<string, unknown> = {};
  let cut: AgentTool['cut'];
  if (properties.limit) {
    properties.limit = agentLimit(properties.limit);
    defaults.limit = AGENT_LIMIT;
  } else if (operation.id === 'listAssessmentGaps') {
    // The API answers every gap at once; the tool keeps an agent's context bounded.
    // The severities in the order the document lists them (least severe first), reversed.
    const severities = Object.values(enumVocabulary([operation])).find((fields) => fields.severity)?.severity;
    if (!severities) throw new Error(`${operation.id}: its rows have no severity to keep the most severe`);
    cut = {
      argument: 'limit',
      default: AGENT_LIMIT,
      maximum: MAX_GAPS,
      mostSevereFirst: (severities as string[]).slice().reverse(),
    };
    properties.limit = {
      type: 'integer',
      minimum: 1,
      maximum: MAX_GAPS,
      default: AGENT_LIMIT,
      description:
        `Gaps to answer, 1 to ${MAX_GAPS} (default ${AGENT_LIMIT}): the most severe are kept, and ` +
        '`meta.left_out` says how many were left out. Narrow with `severity` to see the others.',
    };
  }
  const path = openApiPath(operation.path);
  const description = [
    variant.lead ?? `${operation.summary}.`,
    // The API answers every gap in one response; the tool answers at most `limit` of them.
    cut
      ? 'Ordered by `control_code`. `evidence` is present only for keys with the evidence:read scope. ' +
        `Answers at most \`limit\` gaps (default ${AGENT_LIMIT}), keeping the most severe; when some are left ` +
        'out, `meta.has_more` is true and `meta.left_out` counts them: narrow with `severity` to see them.'
      : operation.description,
    `GET ${PATH_PREFIX.apiKey}${path}; needs the ${operation.auth.scope} scope. The result is the API's JSON answer.`,
  ];
  return {
    tool: {
      name: variant.name ?? toolName(operation.id),
      title: variant.title ?? operation.summary,
      description: description.filter(Boolean).join(' '),
      inputSchema: {
        type: 'object',
        properties: {
          ...Object.fromEntries(
            parameters.map((name) => [name, { ...plain(Uuid), description: 'The id, a uuid.' }]),
          ),
          ...properties,
        },
        required: [
          ...parameters,
          ...((query.required as string[] | undefined) ?? []),
          ...(variant.required ?? []),
        ],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    path,
    pathParameter: parameters[0],
    defaults,
    cut,
  };
}

const gets = publicOperations.filter((operation) => operation.method === 'GET');
const listSuppliers = gets.find((operation) => operation.id === 'listSuppliers');
if (!listSuppliers?.query?.properties.q) throw new Error('the search tool needs GET /suppliers with q');

/**
 * Every GET of the public operations, as a tool, then the search tool (GET /suppliers with `q` required, so
 * an agent finds a supplier by name without paging through all of them): no tool writes (P90, P164).
 */
export const agentTools: readonly AgentTool[] = [
  ...gets.map((operation) => toolOf(operation)),
  toolOf(listSuppliers, {
    name: 'search_suppliers',
    title: 'Find suppliers by name or domain',
    lead:
      'Find suppliers whose name or domain starts with `q`, ignoring case (the list of suppliers with `q` ' +
      'required); combine with the other filters.',
    required: ['q'],
  }),
];

/**
 * The enumerated values of every field of the resources the tools answer with, by schema title and field:
 * `{ "Supplier": { "criticality": ["low", …] } }`, read from the operations' response schemas.
 */
export function enumVocabulary(
  operations: readonly Operation[] = publicOperations,
): Record<string, Record<string, unknown[]>> {
  const vocabulary: Record<string, Record<string, unknown[]>> = {};
  const visit = (schema: JsonSchema): void => {
    if (typeof schema.title === 'string' && schema.properties) {
      for (const [field, property] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
        const values = enumOf(property);
        if (!values) continue;
        const fields = vocabulary[schema.title] ?? {};
        fields[field] = values;
        vocabulary[schema.title] = fields;
      }
    }
    mapSubschemas(schema, (child) => {
      visit(child);
      return child;
    });
  };
  for (const operation of operations) {
    if (operation.method !== 'GET') continue;
    for (const response of Object.values(operation.responses))
      if (response.schema) visit(plain(response.schema));
  }
  return Object.fromEntries(Object.entries(vocabulary).sort(([a], [b]) => a.localeCompare(b)));
}

/** The values of an enumerated field, also when it is nullable or an array of them. */
function enumOf(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  for (const branch of (schema.anyOf ?? []) as JsonSchema[]) {
    const values = enumOf(branch);
    if (values) return values;
  }
  return schema.items ? enumOf(schema.items as JsonSchema) : undefined;
}
