#!/usr/bin/env node
// Part of `npm run build`: examples/node_modules/@tprm/client → sdk/, so that the examples import the SDK by
// its package name, as a project that installed it does (decision P138). A link made here rather than an
// npm dependency on `file:sdk`: npm installs the dev tools of a linked folder even with --omit=dev, which put
// 25 MB of them into every production install.
import { lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdk = fileURLToPath(new URL('../sdk', import.meta.url));
const link = fileURLToPath(new URL('../examples/node_modules/@tprm/client', import.meta.url));
const target = relative(dirname(link), sdk);
let current;
try {
  current = lstatSync(link).isSymbolicLink() ? readlinkSync(link) : 'not a link';
} catch {
  current = undefined;
}
if (current !== target) {
  if (current !== undefined) rmSync(link, { recursive: true, force: true });
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(target, link, 'dir');
}
