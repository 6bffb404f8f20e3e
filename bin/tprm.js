#!/usr/bin/env node
// Launcher of the tprm CLI (src/cli/main.ts), compiled by `npm run build` into dist/.
try {
  await import('../dist/src/cli/main.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/src/cli/main.js')) {
    process.stderr.write(
      'tprm: the CLI is not built yet: run `npm run build` in the project directory first.\n',
    );
    process.exit(1);
  }
  throw error;
}
