// Workspaces and their users.
import type { Command } from 'commander';
import type { Plan } from '../../schema/fields.js';
import { act } from '../command.js';
import { examples, pick, planOption, quotaOption, requireChanges } from '../options.js';
import { print, record, table } from '../output.js';

interface WorkspaceOptions {
  name: string;
  plan: Plan;
  quota?: number;
}
const workspaceFields = { name: 'name', plan: 'plan', quota: 'assessment_quota' } as const;

export function workspaceCommands(program: Command): void {
  const workspaces = program
    .command('workspaces')
    .alias('ws')
    .description('create, list, read and change workspaces')
    .addHelpText(
      'after',
      examples([
        'tprm workspaces create --name "Acme Corp" --plan enterprise --quota 500',
        'tprm workspaces list',
        'tprm ws update 4f6c… --plan starter',
        'tprm workspaces list --json | jq -r ".data[].id"',
      ]),
    );
  workspaces
    .command('create')
    .description('create a workspace (POST /admin/workspaces)')
    .requiredOption('--name <name>', 'workspace name')
    .addOption(planOption().makeOptionMandatory())
    .addOption(quotaOption(' (default: 100)'))
    .addHelpText(
      'after',
      examples(['tprm workspaces create --name "Acme Corp" --plan enterprise --quota 500']),
    )
    .action(
      act<[], WorkspaceOptions>(async (io, _args, opts) => {
        const workspace = await io.admin.createWorkspace({ body: pick(opts, workspaceFields) });
        print(io, workspace, () => record(workspace));
      }),
    );
  workspaces
    .command('list')
    .description('list every workspace, newest first (GET /admin/workspaces)')
    .addHelpText('after', examples(['tprm workspaces list', 'tprm workspaces list --json']))
    .action(
      act(async (io) => {
        const page = await io.admin.listWorkspaces();
        print(io, page, () =>
          table(page.data, ['id', 'name', 'plan', ['quota', (w) => w.assessment_quota], 'created_at']),
        );
      }),
    );
  workspaces
    .command('get <workspace-id>')
    .description('show one workspace (GET /admin/workspaces/{id})')
    .addHelpText('after', examples(['tprm workspaces get 4f6c…']))
    .action(
      act<[id: string]>(async (io, [id]) => {
        const workspace = await io.admin.getWorkspace({ params: { id } });
        print(io, workspace, () => record(workspace));
      }),
    );
  workspaces
    .command('update <workspace-id>')
    .description('change name, plan or quota (PATCH /admin/workspaces/{id}); a plan change applies at once')
    .option('--name <name>', 'new name')
    .addOption(planOption())
    .addOption(quotaOption())
    .addHelpText(
      'after',
      examples(['tprm workspaces update 4f6c… --plan starter', 'tprm ws update 4f6c… --quota 50']),
    )
    .action(
      act<[id: string], Partial<WorkspaceOptions>>(async (io, [id], opts, cmd) => {
        const body = pick(opts, workspaceFields);
        requireChanges(cmd, body);
        const workspace = await io.admin.updateWorkspace({ params: { id }, body });
        print(io, workspace, () => record(workspace));
      }),
    );
  userCommands(program);
}

function userCommands(program: Command): void {
  const users = program
    .command('users')
    .description('people of a workspace (they create API keys and change action-plan items)')
    .addHelpText(
      'after',
      examples([
        'tprm users create 4f6c… --name "Ada Lovelace" --email ada@acme.example',
        'tprm users list 4f6c…',
      ]),
    );
  users
    .command('create <workspace-id>')
    .description('add a person to a workspace (POST /admin/workspaces/{id}/users)')
    .requiredOption('--name <name>', 'full name')
    .requiredOption('--email <email>', 'email address')
    .addHelpText(
      'after',
      examples(['tprm users create 4f6c… --name "Ada Lovelace" --email ada@acme.example']),
    )
    .action(
      act<[workspaceId: string], { name: string; email: string }>(async (io, [id], opts) => {
        const user = await io.admin.createUser({
          params: { id },
          body: { name: opts.name, email: opts.email },
        });
        print(io, user, () => record(user));
      }),
    );
  users
    .command('list <workspace-id>')
    .description("list a workspace's users, newest first (GET /admin/workspaces/{id}/users)")
    .addHelpText('after', examples(['tprm users list 4f6c…', 'tprm users list 4f6c… --json']))
    .action(
      act<[workspaceId: string]>(async (io, [id]) => {
        const page = await io.admin.listUsers({ params: { id } });
        print(io, page, () => table(page.data, ['id', 'name', 'email', 'created_at']));
      }),
    );
}
