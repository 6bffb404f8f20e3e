// dist/cjs holds CommonJS files in a package of "type": "module": a package.json of its own tells Node so.
import { writeFileSync } from 'node:fs';

writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), '{ "type": "commonjs" }\n');
