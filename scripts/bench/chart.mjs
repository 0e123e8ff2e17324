// results.json -> results.svg: req/s and p99 per round (service beside baseline), the
// indexed p50 at three table sizes, and the targets. Plain SVG, no package.

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const colors = { service: '#2b6cb0', baseline: '#a0aec0' };

/** Grouped bars: groups of { label, bars: [{ value, color }] } in a box at (x, y). */
function bars({ x, y, w, h, title, unit, groups, note }) {
  const max = Math.max(...groups.flatMap((g) => g.bars.map((b) => b.value)), 1e-9) * 1.15;
  const gw = w / groups.length;
  const out = [`<text x="${x}" y="${y - 8}" class="t">${esc(title)}</text>`, `<line x1="${x}" y1="${y + h}" x2="${x + w}" y2="${y + h}" stroke="#718096"/>`];
  groups.forEach((g, i) => {
    const bw = (gw * 0.7) / g.bars.length;
    g.bars.forEach((b, j) => {
      const bh = (b.value / max) * h;
      const bx = x + i * gw + gw * 0.15 + j * bw;
      out.push(`<rect x="${bx.toFixed(1)}" y="${(y + h - bh).toFixed(1)}" width="${(bw - 2).toFixed(1)}" height="${bh.toFixed(1)}" fill="${b.color}"/>`);
      out.push(`<text x="${(bx + bw / 2 - 1).toFixed(1)}" y="${(y + h - bh - 3).toFixed(1)}" class="v">${esc(b.text ?? b.value)}</text>`);
    });
    out.push(`<text x="${(x + i * gw + gw / 2).toFixed(1)}" y="${y + h + 14}" class="l">${esc(g.label)}</text>`);
    if (g.sublabel) out.push(`<text x="${(x + i * gw + gw / 2).toFixed(1)}" y="${y + h + 27}" class="l">${esc(g.sublabel)}</text>`);
  });
  if (unit) out.push(`<text x="${x + w}" y="${y - 8}" class="u">${esc(unit)}</text>`);
  if (note) out.push(`<text x="${x}" y="${y + h + 44}" class="n">${esc(note)}</text>`);
  return out.join('\n');
}

export function renderChart(r) {
  const W = 920;
  const parts = [];
  const pairGroups = (metric, digits) =>
    r.rounds.map((p) => ({
      label: `round ${p.round}`,
      sublabel: `×${p.ratio[metric]}`,
      bars: [
        { value: p.service[metric], color: colors.service, text: p.service[metric].toFixed(digits) },
        { value: p.baseline[metric], color: colors.baseline, text: p.baseline[metric].toFixed(digits) },
      ],
    }));
  if (r.rounds.length) {
    parts.push(bars({ x: 40, y: 70, w: 400, h: 170, title: 'Mix throughput, service vs baseline', unit: 'req/s', groups: pairGroups('rps', 0), note: `median ratio ${r.median.rps} (target ≥ 0.85)` }));
    parts.push(bars({ x: 490, y: 70, w: 400, h: 170, title: 'Mix p99 latency', unit: 'ms', groups: pairGroups('p99', 1), note: `median ratio ${r.median.p99} (target ≤ 1.3)` }));
  }
  if (r.scale['10k']) {
    const groups = ['10k', '100k', '1M'].map((k) => ({ label: `${k} rows`, bars: [{ value: r.scale[k].p50, color: colors.service, text: r.scale[k].p50.toFixed(2) }] }));
    parts.push(bars({ x: 40, y: 350, w: 300, h: 130, title: 'Indexed lookup p50 by table size', unit: 'ms', groups, note: `1M / 10k = ${r.scale.p50Ratio1MTo10k} (target ≤ 1.5)` }));
  }
  const lines = (r.targets ?? []).map((t, i) => `<text x="390" y="${362 + i * 22}" class="${t.met ? 'ok' : 'ko'}">${t.met ? '✓' : '✗'} ${esc(t.name)}: ${esc(t.value)} (${esc(t.limit)})</text>`);
  parts.push(`<text x="390" y="336" class="t">Targets</text>`, ...lines);
  const legend = `<rect x="40" y="22" width="12" height="12" fill="${colors.service}"/><text x="58" y="33" class="l0">service</text>
<rect x="120" y="22" width="12" height="12" fill="${colors.baseline}"/><text x="138" y="33" class="l0">baseline (node:http + mysql2)</text>
<text x="${W - 20}" y="33" class="u">${esc(`${r.machine.cpus} cores, ${r.machine.node}, ${r.machine.mysql.version.split('-')[0]} · ${r.config.connections} connections · ${r.config.rounds}×${r.config.seconds} s per side · ${r.date.slice(0, 10)}`)}</text>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="540" viewBox="0 0 ${W} 540" font-family="system-ui, sans-serif">
<style>.t{font-size:14px;font-weight:600}.v{font-size:10px;text-anchor:middle;fill:#2d3748}.l{font-size:11px;text-anchor:middle;fill:#4a5568}.l0{font-size:12px}.u{font-size:11px;text-anchor:end;fill:#718096}.n{font-size:11px;fill:#4a5568}.ok{font-size:12px;fill:#276749}.ko{font-size:12px;fill:#c53030}</style>
<rect width="100%" height="100%" fill="#fff"/>
${legend}
${parts.join('\n')}
</svg>
`;
}
