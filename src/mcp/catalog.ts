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
}

/** `listActionPlanItems` → `list_action_plan_items`: the operationId in the tool-name style agents use. */
export const toolName = (operationId: string): string =>
  operationId.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

function toolOf(operation: Operation<ApiKeyAuth>): AgentTool {
  const parameters = pathParameters(operation.path);
  if (parameters.length > 1) throw new Error(`${operation.path}: the SDK fills one path parameter`);
  const query = operation.query ? plain(operation.query) : { properties: {}, required: [] };
  const path = openApiPath(operation.path);
  const description = [
    `${operation.summary}.`,
    operation.description,
    `GET ${PATH_PREFIX.apiKey}${path}; needs the ${operation.auth.scope} scope. The result is the API's JSON answer.`,
  ];
  return {
    tool: {
      name: toolName(operation.id),
      title: operation.summary,
      description: description.filter(Boolean).join(' '),
      inputSchema: {
        type: 'object',
        properties: {
          ...Object.fromEntries(
            parameters.map((name) => [name, { ...plain(Uuid), description: 'The id, a uuid.' }]),
          ),
          ...(query.properties as Record<string, JsonSchema>),
        },
        required: [...parameters, ...((query.required as string[] | undefined) ?? [])],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    path,
    pathParameter: parameters[0],
  };
}

/** Every GET of the public operations, as a tool: no tool writes (P90). */
export const agentTools: readonly AgentTool[] = publicOperations
  .filter((operation) => operation.method === 'GET')
  .map(toolOf);

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
