// Prompts for the questions security teams ask most, written as plans over the tools: each names the tools
// by the operations they come from, so a renamed operation fails here at start rather than in an agent.
import { ErrorCode, type GetPromptResult, McpError, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import { isUuid } from '../http/validation.js';
import { Criticality } from '../schema/fields.js';
import { agentTools, toolName } from './catalog.js';

/** The tool of an operation, by name; throws when the route table has no such GET. */
function tool(operationId: string): string {
  const name = toolName(operationId);
  if (!agentTools.some((entry) => entry.tool.name === name)) throw new Error(`no tool ${name}`);
  return name;
}

interface AgentPrompt {
  prompt: Prompt;
  text(args: Record<string, string | undefined>): string;
}

const REDACTION_NOTE =
  'Personal fields (a supplier e-mail or contacts, an owner name) are absent when the key lacks pii:read: ' +
  'say so rather than guessing them. A tool answering an error (for instance insufficient_scope) means ' +
  'the key may not read that part: report it and go on with the rest.';

const PAGING_NOTE =
  'A list answers one page: while `meta.has_more` is true, call it again with `cursor` set to ' +
  '`meta.next_cursor` (and the same filters).';

const prompts: AgentPrompt[] = [
  {
    prompt: {
      name: 'supplier_risk_summary',
      title: 'Supplier risk summary',
      description:
        "A summary of one supplier's risk: assessments, gaps, risks, overdue action items, alerts.",
      arguments: [{ name: 'supplier_id', description: 'The supplier id (a uuid).', required: true }],
    },
    text: ({ supplier_id }) =>
      [
        `Summarize the third-party risk of supplier ${supplier_id} in this workspace.`,
        `1. ${tool('getSupplier')} with id ${supplier_id}: criticality, risk group, vendor profile, status.`,
        `2. ${tool('listAssessments')} with supplier_id ${supplier_id}: the latest assessment's status, decision, ` +
          `score and expires_at; then ${tool('listAssessmentGaps')} for it, counted by severity.`,
        `3. ${tool('listRisks')} with supplier_id ${supplier_id}: the risks not closed, highest band first.`,
        `4. ${tool('listActionPlans')} with supplier_id ${supplier_id}, then ${tool('listActionPlanItems')} ` +
          'with overdue true for each plan: the overdue items with their due dates.',
        `5. ${tool('listAlerts')} with unresolved true: those whose supplier_id is ${supplier_id}.`,
        'Answer in a few lines per topic, citing ids and dates, and end with the three most urgent actions.',
        PAGING_NOTE,
        REDACTION_NOTE,
      ].join('\n'),
  },
  {
    prompt: {
      name: 'overdue_action_items',
      title: 'Suppliers with overdue action items',
      description: 'Which suppliers of a criticality (critical by default) have overdue action-plan items.',
      arguments: [
        { name: 'criticality', description: `One of ${Criticality.join(', ')} (default critical).` },
      ],
    },
    text: ({ criticality = 'critical' }) =>
      [
        `Which ${criticality} suppliers have overdue action items?`,
        `1. ${tool('listSuppliers')} with criticality ${criticality}: every page.`,
        `2. ${tool('listActionPlans')} with supplier_id set to each of those suppliers.`,
        `3. ${tool('listActionPlanItems')} with the plan's id and overdue true.`,
        'Answer with a table: supplier name, plan, item title, due date, status, days overdue (today in UTC), ' +
          'the most overdue first; then the suppliers without overdue items, in one line.',
        PAGING_NOTE,
        REDACTION_NOTE,
      ].join('\n'),
  },
];

export const agentPrompts: readonly Prompt[] = prompts.map((entry) => entry.prompt);

/** The prompt filled with its arguments; an unknown prompt or a missing or invalid argument is refused. */
export function renderPrompt(name: string, args: Record<string, string | undefined> = {}): GetPromptResult {
  const entry = prompts.find((candidate) => candidate.prompt.name === name);
  if (!entry) throw new McpError(ErrorCode.InvalidParams, `No prompt named ${name}.`);
  for (const argument of entry.prompt.arguments ?? []) {
    if (argument.required && !args[argument.name])
      throw new McpError(ErrorCode.InvalidParams, `The prompt ${name} needs the argument ${argument.name}.`);
  }
  if (args.supplier_id !== undefined && !isUuid(args.supplier_id))
    throw new McpError(ErrorCode.InvalidParams, 'supplier_id must be a uuid.');
  if (args.criticality !== undefined && !(Criticality as readonly string[]).includes(args.criticality))
    throw new McpError(ErrorCode.InvalidParams, `criticality must be one of ${Criticality.join(', ')}.`);
  return {
    description: entry.prompt.description,
    messages: [{ role: 'user', content: { type: 'text', text: entry.text(args) } }],
  };
}
