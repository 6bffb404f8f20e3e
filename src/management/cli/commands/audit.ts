// `tprm audit verify`: the server checks a workspace's audit hash chain (GET /admin/workspaces/{id}/audit-chain,
// docs/decisions.md P97) and the command reports the first broken link, exiting 1 when there is one.
import type { Command } from 'commander';
import { act } from '../command.js';
import { CliError } from '../errors.js';
import { examples } from '../options.js';
import { print, record } from '../output.js';

export function auditCommands(program: Command): void {
  program
    .command('audit')
    .description('the audit trail')
    .command('verify <workspace-id>')
    .description(
      "verify a workspace's audit hash chain in feed order; exit 1 at the first broken link (GET /admin/workspaces/{id}/audit-chain)",
    )
    .addHelpText('after', examples(['tprm audit verify 4f6c…', 'tprm audit verify 4f6c… --json']))
    .action(
      act<[workspaceId: string]>(async (io, [id]) => {
        const report = await io.admin.verifyAuditChain({ params: { id } });
        const broken = report.first_broken;
        print(io, report, () =>
          broken
            ? `${record({
                workspace: report.workspace_id,
                'entries checked': report.entries_checked,
                'broken at entry': broken.id ?? '(missing: the trail ends before its head)',
                position: broken.position,
                'occurred at': broken.occurred_at,
                problem: broken.problem,
                expected: broken.expected,
                stored: broken.stored,
              })}`
            : record({
                workspace: report.workspace_id,
                'entries checked': report.entries_checked,
                'head hash': report.head_hash,
                result: 'the chain is intact',
              }),
        );
        if (broken)
          throw new CliError(
            broken.id
              ? `the audit chain is broken at entry ${broken.id} (position ${broken.position}: ${broken.problem})`
              : `the audit chain is broken after entry ${broken.position - 1}: its last entries are missing (${broken.problem})`,
          );
      }),
    );
}
