/** A small line chart as an SVG document (no dependencies): axes, ticks, one polyline per series, a legend. */

export interface Series {
  name: string;
  points: [number, number][];
  dashed?: boolean;
}

export interface ChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  series: Series[];
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf', '#7f7f7f'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fmt = (n: number) => (n >= 1000 ? `${+(n / 1000).toFixed(1)}k` : n >= 10 ? String(Math.round(n)) : String(+n.toFixed(2)));

function ticks(min: number, max: number, log: boolean): number[] {
  if (log) {
    const out: number[] = [];
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) out.push(10 ** e);
    return out;
  }
  const span = max - min || 1;
  const step = 10 ** Math.floor(Math.log10(span / 4));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => span / s <= 6) ?? step * 10;
  const out: number[] = [];
  for (let v = Math.floor(min / nice) * nice; v <= max + 1e-9; v += nice) out.push(+v.toFixed(6));
  return out;
}

export function lineChart(o: ChartOptions): string {
  const W = 640;
  const H = 380;
  const L = 70;
  const R = 170;
  const T = 40;
  const B = 50;
  const pts = o.series.flatMap((s) => s.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!o.xLog || x > 0) && (!o.yLog || y > 0));
  if (pts.length === 0) return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><text x="20" y="30">${esc(o.title)}: no data</text></svg>\n`;
  let [x0, x1] = [Math.min(...pts.map((p) => p[0])), Math.max(...pts.map((p) => p[0]))];
  let [y0, y1] = [o.yLog ? Math.min(...pts.map((p) => p[1])) : 0, Math.max(...pts.map((p) => p[1]))];
  if (o.xLog) [x0, x1] = [10 ** Math.floor(Math.log10(x0)), 10 ** Math.ceil(Math.log10(x1))];
  if (o.yLog) [y0, y1] = [10 ** Math.floor(Math.log10(y0)), 10 ** Math.ceil(Math.log10(y1))];
  else y1 = y1 * 1.1 || 1;
  if (x0 === x1) x1 = x0 + 1;
  const tx = (x: number) => L + ((o.xLog ? Math.log10(x) - Math.log10(x0) : x - x0) / (o.xLog ? Math.log10(x1) - Math.log10(x0) : x1 - x0)) * (W - L - R);
  const ty = (y: number) => H - B - ((o.yLog ? Math.log10(y) - Math.log10(y0) : y - y0) / (o.yLog ? Math.log10(y1) - Math.log10(y0) : y1 - y0)) * (H - T - B);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${W / 2 - R / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${esc(o.title)}</text>`);
  for (const v of ticks(x0, x1, !!o.xLog).filter((v) => v >= x0 && v <= x1)) {
    out.push(`<line x1="${tx(v)}" y1="${T}" x2="${tx(v)}" y2="${H - B}" stroke="#eee"/><text x="${tx(v)}" y="${H - B + 16}" text-anchor="middle">${fmt(v)}</text>`);
  }
  for (const v of ticks(y0, y1, !!o.yLog).filter((v) => v >= y0 && v <= y1)) {
    out.push(`<line x1="${L}" y1="${ty(v)}" x2="${W - R}" y2="${ty(v)}" stroke="#eee"/><text x="${L - 6}" y="${ty(v) + 4}" text-anchor="end">${fmt(v)}</text>`);
  }
  out.push(`<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`);
  out.push(`<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">${esc(o.xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}</text>`);
  o.series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length];
    const p = s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!o.xLog || x > 0) && (!o.yLog || y > 0));
    if (p.length === 0) return;
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    out.push(`<polyline fill="none" stroke="${c}" stroke-width="2"${dash} points="${p.map(([x, y]) => `${tx(x).toFixed(1)},${ty(y).toFixed(1)}`).join(' ')}"/>`);
    for (const [x, y] of p) out.push(`<circle cx="${tx(x).toFixed(1)}" cy="${ty(y).toFixed(1)}" r="3" fill="${c}"/>`);
    const ly = T + 10 + i * 18;
    out.push(`<line x1="${W - R + 12}" y1="${ly}" x2="${W - R + 32}" y2="${ly}" stroke="${c}" stroke-width="2"${dash}/><text x="${W - R + 38}" y="${ly + 4}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
