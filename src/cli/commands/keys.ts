// API keys of the public API.
import type { Command } from 'commander';
import { SCOPES, type Scope } from '../../schema/fields.js';
import { act } from '../command.js';
import { examples, list, pick } from '../options.js';
import { keyStatus, keyView, print, printWithSecret, record, scopesText, table } from '../output.js';

interface KeyOptions {
  name: string;
  scopes: Scope[];
  createdBy: string;
  expiresAt?: string;
}

export function keyCommands(program: Command): void {
  const keys = program.command('keys').alias('api-keys').description('API keys of the public API');
  keys
    .command('create <workspace-id>')
    .description('make an API key and print its secret, once (POST /admin/workspaces/{id}/api-keys)')
    .requiredOption('--name <name>', 'what the key is for')
    .requiredOption('--scopes <list>', `comma-separated scopes, or "all": ${SCOPES.join(', ')}`, list(SCOPES))
    .requiredOption('--created-by <user-id>', 'the user of the workspace the key acts for')
    .option('--expires-at <instant>', 'ISO 8601 instant after which the key stops working')
    .addHelpText(
      'after',
      examples([
        'tprm keys create 4f6c… --name "SIEM export" --scopes suppliers:read,alerts:read --created-by 9a1b…',
        'tprm keys create 4f6c… --name ci --scopes all --created-by 9a1b… --expires-at 2026-12-31T00:00:00Z',
      ]),
    )
    .action(
      act<[workspaceId: string], KeyOptions>(async (io, [id], opts) => {
        const body = pick(opts, {
          name: 'name',
          scopes: 'scopes',
          createdBy: 'created_by',
          expiresAt: 'expires_at',
        });
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
