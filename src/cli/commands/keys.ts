// API keys of the public API.
import type { Command } from 'commander';
import { SCOPES, type Scope } from '../../schema/fields.js';
import { act, type Io } from '../command.js';
import { CliError } from '../errors.js';
import { examples, list, pick } from '../options.js';
import { count, keyStatus, keyView, print, printWithSecret, record, scopesText, table } from '../output.js';

interface KeyOptions {
  name: string;
  scopes: Scope[];
  createdBy?: string;
  expiresAt?: string;
}

export function keyCommands(program: Command): void {
  const keys = program
    .command('keys')
    .alias('api-keys')
    .description('API keys of the public API')
    .addHelpText(
      'after',
      examples([
        'tprm keys create 4f6c… --name ci --scopes all',
        'tprm keys create 4f6c… --name "SIEM export" --scopes suppliers:read,alerts:read --created-by 9a1b…',
        'tprm keys list 4f6c…',
        'tprm keys revoke 7c2e…',
      ]),
    );
  keys
    .command('create <workspace-id>')
    .description('make an API key and print its secret, once (POST /admin/workspaces/{id}/api-keys)')
    .requiredOption('--name <name>', 'what the key is for')
    .requiredOption('--scopes <list>', `comma-separated scopes, or "all": ${SCOPES.join(', ')}`, list(SCOPES))
    .option(
      '--created-by <user-id>',
      'the user of the workspace the key acts for (default: its only user, when it has exactly one)',
    )
    .option('--expires-at <instant>', 'ISO 8601 instant after which the key stops working')
    .addHelpText(
      'after',
      examples([
        'tprm keys create 4f6c… --name "SIEM export" --scopes suppliers:read,alerts:read',
        'tprm keys create 4f6c… --name "SIEM export" --scopes suppliers:read,alerts:read --created-by 9a1b…',
        'tprm keys create 4f6c… --name ci --scopes all --created-by 9a1b… --expires-at 2026-12-31T00:00:00Z',
      ]),
    )
    .action(
      act<[workspaceId: string], KeyOptions>(async (io, [id], opts) => {
        const body = {
          ...pick(opts, { name: 'name', scopes: 'scopes', expiresAt: 'expires_at' }),
          created_by: opts.createdBy ?? (await onlyUser(io, id)),
        };
        const key = await io.admin.createApiKey({ params: { id }, body });
        printWithSecret(io, key, 'secret', 'The API key secret', keyView);
      }),
    );
  keys
    .command('list <workspace-id>')
    .description('list the keys of a workspace, without secrets (GET /admin/workspaces/{id}/api-keys)')
    .addHelpText('after', examples(['tprm keys list 4f6c…']))
    .action(
      act<[workspaceId: string]>(async (io, [id]) => {
        const page = await io.admin.listApiKeys({ params: { id } });
        print(io, page, () =>
          table(page.data, [
            'id',
            'name',
            'prefix',
            ['status', keyStatus],
            ['scopes', scopesText],
            'expires_at',
            'last_used_at',
            'created_at',
          ]),
        );
      }),
    );
  keys
    .command('revoke <key-id>')
    .description('revoke a key: its next public request gets 401 (POST /admin/api-keys/{id}/revoke)')
    .addHelpText('after', examples(['tprm keys revoke 7c2e…']))
    .action(
      act<[keyId: string]>(async (io, [id]) => {
        const key = await io.admin.revokeApiKey({ params: { id } });
        print(io, key, () => record(keyView(key)));
      }),
    );
}

/**
 * The user a key is created for when --created-by is not given (P169): the workspace's only user, said on
 * stderr; with none or several, an error that says what to pass.
 */
async function onlyUser(io: Io, workspaceId: string): Promise<string> {
  const { data: users } = await io.admin.listUsers({ params: { id: workspaceId } });
  const [only] = users;
  if (only && users.length === 1) {
    process.stderr.write(
      `note: created by ${only.name} <${only.email}> (${only.id}), the workspace's only user.\n`,
    );
    return only.id;
  }
  if (!only) {
    const error = new CliError(
      `Workspace ${workspaceId} has no users, and a key is created by one: add one, then pass --created-by <user-id>.`,
    );
    error.notes.push(`tprm users create ${workspaceId} --name "Ada Lovelace" --email ada@acme.example`);
    throw error;
  }
  const error = new CliError(
    `Workspace ${workspaceId} has ${count(users.length, 'user')}: pass --created-by <user-id>, one of:`,
  );
  const shown = 10;
  for (const user of users.slice(0, shown)) error.notes.push(`${user.id}  ${user.name} <${user.email}>`);
  if (users.length > shown)
    error.notes.push(`and ${count(users.length - shown, 'other')}: tprm users list ${workspaceId}`);
  throw error;
}
