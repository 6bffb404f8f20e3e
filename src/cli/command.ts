// The boundary between commander and a command's body: the admin client and output mode from the global
// options, the arguments and the options with the types the command declares.
import type { Command } from 'commander';
import type { Globals } from './options.js';
import type { Output } from './output.js';
import type { Admin } from './transport.js';

/** What a command works with: the management API and the output mode. */
export interface Io extends Output {
  admin: Admin;
}

type Handler<A extends string[], O> = (io: Io, args: A, opts: O, cmd: Command) => Promise<void>;

/**
 * Commander action → handler. `A` is the command's arguments (commander refuses a missing required one) and
 * `O` its options as its parsers, choices and required flags make them; the API validates their values.
 */
export const act =
  <A extends string[] = [], O extends object = Record<never, never>>(handler: Handler<A, O>) =>
  async (...params: unknown[]): Promise<void> => {
    const cmd = params[params.length - 1] as Command;
    const globals = cmd.optsWithGlobals() as Globals;
    // The admin client and the contracts it is made from are loaded by the commands that run, not by every
    // start of the CLI (--version, --help).
    const { connect } = await import('./transport.js');
    await handler(
      { admin: connect(globals), json: Boolean(globals.json) },
      cmd.processedArgs as A,
      cmd.opts() as O,
      cmd,
    );
  };
