// `tprm serve`: runs the service itself (src/main.ts) in this process, what a container, a systemd unit or a
// supervisor starts. --role sets ROLE; every other setting comes from the environment, as for
// `node dist/src/main.js`. OpenTelemetry is started first when OTEL_* asks for traces (P133), since its
// instrumentations must see the service's modules load.
import { type Command, Option } from 'commander';
import { settingVariables } from '../../config.js';
import { packageVersion } from '../../version.js';
import { CliError } from '../errors.js';
import { examples } from '../options.js';

/** The names, wrapped to lines of at most `width` characters. */
function wrap(names: string[], width: number, indent: string): string {
  const lines: string[] = [];
  let line = '';
  for (const name of names) {
    const next = line ? `${line}, ${name}` : name;
    if (next.length + indent.length > width && line) {
      lines.push(`${line},`);
      line = name;
    } else line = next;
  }
  lines.push(line);
  return lines.map((text) => indent + text).join('\n');
}

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run the service: public API, management listener and/or webhook worker (by role)')
    .addOption(
      new Option('--role <role>', 'which parts this process runs (default: $ROLE or all)').choices([
        'api',
        'worker',
        'all',
      ]),
    )
    .addHelpText(
      'after',
      () => `
Roles: api = public API and management listener; worker = webhook dispatcher and management listener;
all = both. Pending migrations are applied at start.

Settings are read from the environment (a .env file in the working directory is read too; the environment
wins), each described in docs/operations.md "Settings":
${wrap(settingVariables(), 100, '  ')}
Traces: the standard OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT turns them on; OTLP over HTTP).
Run node with --max-semi-space-size=16 (the container image and the systemd unit do).
${examples([
  'ADMIN_TOKEN=… DATABASE_URL=postgres://… tprm serve --role api',
  'node --max-semi-space-size=16 bin/tprm.js serve --role worker',
])}`,
    )
    .action(async (opts: { role?: string }) => {
      if (opts.role) process.env.ROLE = opts.role;
      // Only the environment check and the starter: the SDK itself is imported by startTracing when called.
      const { startTracing, TracingConfigError, tracingRequested } = await import(
        '../../telemetry/tracing.js'
      );
      try {
        if (tracingRequested()) {
          const tracing = await startTracing({ version: packageVersion() });
          // Best effort: what the batch holds is sent while the service drains.
          process.once('SIGTERM', () => void tracing.shutdown().catch(() => undefined));
        }
      } catch (error) {
        if (error instanceof TracingConfigError) throw new CliError(error.message);
        throw error;
      }
      await import('../../main.js');
    });
}
