// `tprm audit verify`: the server checks a workspace's audit hash chain (GET /admin/workspaces/{id}/audit-chain,
// docs/decisions.md P97), a chunk of entries a request with progress on stderr (P103), and the command reports
// the first broken link, exiting 1 when there is one.
import type { Command } from 'commander';
import { act } from '../command.js';
import { CliError } from '../errors.js';
import { examples, integer } from '../options.js';
import { print, record } from '../output.js';
import { progress } from '../progress.js';

interface VerifyOptions {
  chunkSize: number;
}

export function auditCommands(program: Command): void {
  program
    .command('audit')
    .description('the audit trail')
    .addHelpText('after', examples(['tprm audit verify 4f6c…', 'tprm audit verify 4f6c… --json']))
    .command('verify <workspace-id>')
    .description(
      "verify a workspace's audit hash chain in feed order; exit 1 at the first broken link (GET /admin/workspaces/{id}/audit-chain)",
    )
    .option('--chunk-size <n>', 'entries the server checks per request', integer(1, 50_000), 10_000)
    .addHelpText(
      'after',
      `
The server checks a chunk of entries per request; progress goes to stderr (a bar on a terminal, a line every
2 s otherwise), so stdout holds only the report, as with --json.
${examples(['tprm audit verify 4f6c…', 'tprm audit verify 4f6c… --json --chunk-size 50000'])}`,
    )
    .action(
      act<[workspaceId: string], VerifyOptions>(async (io, [id], { chunkSize }) => {
        let report = await io.admin.verifyAuditChain({ params: { id }, query: { limit: chunkSize } });
        const bar = progress(report.entries_total, { task: 'audit verify', unit: 'entries' });
        try {
          while (report.next_cursor) {
            bar.update(report.entries_checked);
            report = await io.admin.verifyAuditChain({
              params: { id },
              query: { limit: chunkSize, cursor: report.next_cursor },
            });
          }
        } catch (error) {
          bar.stop(false);
          throw error;
        }
        bar.update(report.entries_checked);
        bar.stop(true);
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
