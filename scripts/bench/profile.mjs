// Reads a V8 .cpuprofile (node --cpu-prof) and says where the time went: self time by
// function and by package (a node_modules package, a file of ours, node internals, GC),
// and inclusive time of our own functions. Also runnable: node profile.mjs <file>.
import fs from 'node:fs';

function packageOf(url) {
  if (!url) return '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1];
  const ours = /\/(dist\/src\/.+?)\.js$/.exec(url) ?? /\/(scripts\/bench\/.+)$/.exec(url);
  if (ours) return ours[1];
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  return url;
}

export function summarizeProfile(file, top = 25) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  const label = (n) => `${n.callFrame.functionName || '(anonymous)'} ${packageOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);

  const byFunction = new Map();
  const byPackage = new Map();
  const inclusive = new Map();
  for (const [id, us] of self) {
    const n = nodes.get(id);
    add(byFunction, label(n), us);
    const name = n.callFrame.functionName;
    add(byPackage, name.startsWith('(') ? name : packageOf(n.callFrame.url), us);
    // Inclusive time of our own frames: each distinct frame on the stack once.
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const c = nodes.get(cur);
      if (!/dist\/src\//.test(c.callFrame.url)) continue;
      const key = label(c);
      if (!seen.has(key)) (seen.add(key), add(inclusive, key, us));
    }
  }
  const share = (map) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, ms: Math.round(us / 1000), pct: Math.round((us / totalUs) * 1000) / 10 }));
  return { totalMs: Math.round(totalUs / 1000), byPackage: share(byPackage), selfByFunction: share(byFunction), inclusiveOurs: share(inclusive) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(summarizeProfile(process.argv[2], Number(process.argv[3] ?? 25)), null, 2));
}
