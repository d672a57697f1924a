/**
 * The top entries of a V8 CPU profile (`npm run bench -- --cpu-prof dir` writes one per server
 * process), by self time and by total time, per function and file — for reading a profile without
 * DevTools.
 *
 *   npx tsx bench/profile-top.ts file.cpuprofile [--top 15] [--from jsonEnvelope]
 *
 * `--from NAME` counts only the samples from the first one with a frame of that function on its
 * stack: the serving, without the calendar's generation before it. Shares are of the busy time
 * (idle samples left out).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '15' }, from: { type: 'string' } },
});
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;
const top = Number(flags.top);

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

/** function (file:line), the file relative to the checkout or to node_modules. */
function keyOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*?\/(src|bench|indexes)\//, '$1/');
  // Modules compiled by tsx report line 0 for every function: then the file alone.
  return `${functionName || '(anonymous)'} ${file === '' ? '' : lineNumber > 0 ? `${file}:${lineNumber + 1}` : file}`.trim();
}

const self = new Map<string, number>();
const total = new Map<string, number>();
let counted = 0;
let started = flags.from === undefined;
for (let i = 0; i < profile.samples.length; i++) {
  const delta = profile.timeDeltas[i] ?? 0;
  const stack: ProfileNode[] = [];
  for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) stack.push(byId.get(id)!);
  if (!started) started = stack.some((node) => node.callFrame.functionName === flags.from);
  // Idle time is what the process did not spend: shares are of the busy time.
  if (!started || stack[0]!.callFrame.functionName === '(idle)') continue;
  counted += delta;
  const leaf = keyOf(stack[0]!);
  self.set(leaf, (self.get(leaf) ?? 0) + delta);
  for (const key of new Set(stack.map(keyOf))) total.set(key, (total.get(key) ?? 0) + delta);
}

const print = (title: string, times: Map<string, number>): void => {
  console.log(`\n${title} (of ${(counted / 1e6).toFixed(1)} s busy)`);
  const rows = [...times].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, us] of rows) console.log(`${((us / counted) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);
};
print('Self time', self);
print('Total time', total);
