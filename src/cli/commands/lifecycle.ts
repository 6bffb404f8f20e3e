// Lifecycle actions the service itself would perform: assessment status, report rendering, alerts, asset
// review and action-plan item status.
import type { Command } from 'commander';
import type { SettableItemStatus } from '../../resources/action-plans/schema.js';
import type { AlertScope, AlertSeverity } from '../../resources/alerts/schema.js';
import type { AssessmentDecision, AssessmentStatus } from '../../resources/assessments/schema.js';
import { act } from '../command.js';
import { examples, pick } from '../options.js';
import { print, record } from '../output.js';

// Option values are passed on as given: the API's 422 names a wrong one.
interface AssessmentStatusOptions {
  status: (typeof AssessmentStatus)[number];
  decision?: (typeof AssessmentDecision)[number];
}
interface AlertOptions {
  scope: (typeof AlertScope)[number];
  severity: (typeof AlertSeverity)[number];
  title: string;
  body: string;
  supplierId?: string;
}
interface ItemStatusOptions {
  status: (typeof SettableItemStatus)[number];
  userId: string;
  note?: string;
}

export function lifecycleCommands(program: Command): void {
  program
    .command('assessments')
    .description('assessment lifecycle')
    .addHelpText(
      'after',
      examples([
        'tprm assessments set-status 5e8a… --status in_progress',
        'tprm assessments set-status 5e8a… --status completed --decision approved',
      ]),
    )
    .command('set-status <assessment-id>')
    .description(
      'set an assessment status; entering completed emits assessment.completed once (POST /admin/assessments/{id}/status)',
    )
    .requiredOption('--status <status>', 'draft, sent, in_progress, paused, completed or expired')
    .option('--decision <decision>', 'approved, approved_with_caveats or rejected')
    .addHelpText(
      'after',
      examples(['tprm assessments set-status 5e8a… --status completed --decision approved']),
    )
    .action(
      act<[assessmentId: string], AssessmentStatusOptions>(async (io, [id], opts) => {
        const body = pick(opts, { status: 'status', decision: 'decision' });
        const assessment = await io.admin.setAssessmentStatus({ params: { id }, body });
        print(io, assessment, () => record(assessment));
      }),
    );
  program
    .command('reports')
    .description('report lifecycle')
    .addHelpText('after', examples(['tprm reports render 2b7d…', 'tprm reports render 2b7d… --json']))
    .command('render <report-id>')
    .description("render a report's PDF, store it and emit report.ready (POST /admin/reports/{id}/render)")
    .addHelpText('after', examples(['tprm reports render 2b7d…']))
    .action(
      act<[reportId: string]>(async (io, [id]) => {
        const report = await io.admin.renderReport({ params: { id }, body: {} });
        print(io, report, () => record(report));
      }),
    );
  alertCommand(program);
  reviewCommands(program);
}

function alertCommand(program: Command): void {
  program
    .command('alerts')
    .description('alerts raised by the service')
    .addHelpText(
      'after',
      examples([
        'tprm alerts create 4f6c… --scope org --severity low --title "Scanner offline" --body "No scan for 3 days"',
      ]),
    )
    .command('create <workspace-id>')
    .description('raise an alert; emits alert.created (POST /admin/workspaces/{id}/alerts)')
    .requiredOption('--scope <scope>', 'supplier or org')
    .requiredOption('--severity <severity>', 'critical, high, medium or low')
    .requiredOption('--title <text>', 'short title')
    .requiredOption('--body <text>', 'what happened')
    .option('--supplier-id <id>', 'the supplier (required when --scope is supplier)')
    .addHelpText(
      'after',
      examples([
        'tprm alerts create 4f6c… --scope supplier --supplier-id 8d0c… --severity high --title "Certificate expired" --body "ISO 27001 certificate lapsed"',
        'tprm alerts create 4f6c… --scope org --severity low --title "Scanner offline" --body "No scan for 3 days"',
      ]),
    )
    .action(
      act<[workspaceId: string], AlertOptions>(async (io, [id], opts) => {
        const body = pick(opts, {
          scope: 'scope',
          severity: 'severity',
          title: 'title',
          body: 'body',
          supplierId: 'supplier_id',
        });
        const alert = await io.admin.createAlert({ params: { id }, body });
        print(io, alert, () => record(alert));
      }),
    );
}

function reviewCommands(program: Command): void {
  program
    .command('assets')
    .description('asset review')
    .addHelpText('after', examples(['tprm assets confirm 3c9f…']))
    .command('confirm <asset-id>')
    .description('mark an asset as reviewed by a person (POST /admin/assets/{id}/confirm)')
    .addHelpText('after', examples(['tprm assets confirm 3c9f…']))
    .action(
      act<[assetId: string]>(async (io, [id]) => {
        const asset = await io.admin.confirmAsset({ params: { id } });
        print(io, asset, () => record(asset));
      }),
    );
  program
    .command('items')
    .alias('action-plan-items')
    .description('action-plan items')
    .addHelpText(
      'after',
      examples(['tprm items set-status 6a4b… --status completed --user-id 9a1b… --note "Patched"']),
    )
    .command('set-status <item-id>')
    .description(
      'change an item status as a user; emits action_plan_item.status_changed (POST /admin/action-plan-items/{id}/status)',
    )
    .requiredOption(
      '--status <status>',
      'pending, in_progress, completed, overdue, not_applicable or rejected',
    )
    .requiredOption('--user-id <id>', 'the user of the workspace making the change')
    .option('--note <text>', 'why')
    .addHelpText(
      'after',
      examples(['tprm items set-status 6a4b… --status completed --user-id 9a1b… --note "Patched"']),
    )
    .action(
      act<[itemId: string], ItemStatusOptions>(async (io, [id], opts) => {
        const body = pick(opts, { status: 'status', userId: 'user_id', note: 'note' });
        const item = await io.admin.setActionPlanItemStatus({ params: { id }, body });
        print(io, item, () => record(item));
      }),
    );
}
