// Where a server's CPU time went, from a V8 .cpuprofile (`node --cpu-prof`): self time by function and by
// package, and the folded stacks that flame graph tools read (speedscope, inferno, flamegraph.pl). The
// .cpuprofile itself opens in Chrome DevTools (Performance tab) as a flame chart.
//
//   node dist/bench/profile.js <file.cpuprofile>   prints the summary and writes <file>.folded
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The package (or area of our own code) a frame belongs to. */
function owner(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const own = /\/dist\/((?:src|bench)\/[^/]+(?:\/[^/]+)?)/.exec(url);
  return own ? (own[1] as string).replace(/\.js$/, '') : url;
}

const frameName = (frame: CallFrame) =>
  `${frame.functionName || '(anonymous)'} ${owner(frame)}:${frame.lineNumber + 1}`;

export function summarizeProfile(path: string, top = 25): { text: string; folded: string } {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfTime = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...selfTime.values()].reduce((a, b) => a + b, 0);
  const idle = [...selfTime.entries()]
    .filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)')
    .reduce((sum, [, time]) => sum + time, 0);
  const busy = total - idle;

  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  const folded = new Map<string, number>();
  for (const [id, time] of selfTime) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    const name = frameName(node.callFrame);
    byFunction.set(name, (byFunction.get(name) ?? 0) + time);
    const area = owner(node.callFrame);
    byOwner.set(area, (byOwner.get(area) ?? 0) + time);
    const stack: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame && frame.functionName !== '(root)') stack.push(frameName(frame).replaceAll(';', ','));
    }
    const key = stack.reverse().join(';');
    folded.set(key, (folded.get(key) ?? 0) + time);
  }
  const pct = (time: number) => `${((time / busy) * 100).toFixed(1).padStart(5)} %`;
  const rank = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, time]) => `  ${pct(time)}  ${name}`);
  const text = [
    `${path}: ${(total / 1e6).toFixed(1)} s sampled, ${((busy / total) * 100).toFixed(0)} % busy`,
    'Self time by package or area (share of busy time):',
    ...rank(byOwner),
    'Self time by function:',
    ...rank(byFunction),
  ].join('\n');
  return {
    text,
    folded: [...folded.entries()].map(([stack, time]) => `${stack} ${Math.round(time)}`).join('\n'),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = process.argv[2];
  if (!path) {
    process.stderr.write('usage: node dist/bench/profile.js <file.cpuprofile>\n');
    process.exit(2);
  }
  const { text, folded } = summarizeProfile(path);
  writeFileSync(`${path}.folded`, `${folded}\n`);
  process.stdout.write(`${text}\n(folded stacks: ${path}.folded)\n`);
}
