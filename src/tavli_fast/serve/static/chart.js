// A rollout's convergence: equity against trials, one line a series (a candidate play, or the
// position itself) with its band of +- 2 standard errors.
"use strict";

const Chart = (() => {
  const W = 820, H = 300, L = 64, R = 200, T = 16, B = 36;
  const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];

  const el = Svg.el;

  function niceTicks(lo, hi, n) {
    const span = hi - lo || 1;
    const step = Math.pow(10, Math.floor(Math.log10(span / n)));
    const mult = [1, 2, 5, 10].find(m => span / (m * step) <= n) || 10;
    const s = mult * step, out = [];
    for (let v = Math.ceil(lo / s) * s; v <= hi + 1e-12; v += s) out.push(v);
    return out;
  }

  // series: [{name, points: [{n, equity, se}]}]
  function draw(svg, series) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    el("rect", { x: 0, y: 0, width: W, height: H, fill: "#fff" }, svg);
    const pts = series.flatMap(s => s.points);
    if (!pts.length) {
      el("text", { x: W / 2, y: H / 2, "text-anchor": "middle", fill: "#888" }, svg,
         "the equity of each play against trials appears here as the rollout runs");
      return;
    }
    const maxN = Math.max(...pts.map(p => p.n), 1);
    let lo = Math.min(...pts.map(p => p.equity - 2 * p.se));
    let hi = Math.max(...pts.map(p => p.equity + 2 * p.se));
    if (hi - lo < 0.02) { lo -= 0.01; hi += 0.01; }
    const pad = (hi - lo) * 0.05; lo -= pad; hi += pad;
    const x = n => L + (W - L - R) * n / maxN;
    const y = e => T + (H - T - B) * (hi - e) / (hi - lo);
    for (const t of niceTicks(lo, hi, 6)) {
      el("line", { x1: L, x2: W - R, y1: y(t), y2: y(t), stroke: "#eee" }, svg);
      el("text", { x: L - 6, y: y(t) + 4, "text-anchor": "end", "font-size": 11, fill: "#555" },
         svg, (t >= 0 ? "+" : "") + t.toFixed(3));
    }
    for (const t of niceTicks(0, maxN, 6)) {
      el("text", { x: x(t), y: H - B + 16, "text-anchor": "middle", "font-size": 11, fill: "#555" },
         svg, t.toLocaleString("en"));
    }
    el("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: "#888" }, svg);
    el("line", { x1: L, x2: L, y1: T, y2: H - B, stroke: "#888" }, svg);
    el("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle", "font-size": 12 }, svg, "trials");
    el("text", { x: 14, y: (T + H - B) / 2, "font-size": 12, "text-anchor": "middle",
                 transform: `rotate(-90 14 ${(T + H - B) / 2})` }, svg, "equity ± 2 SE");
    series.forEach((s, i) => {
      const c = COLOURS[i % COLOURS.length];
      const ps = s.points.filter(p => Number.isFinite(p.equity) && Number.isFinite(p.se));
      if (!ps.length) return;
      const upper = ps.map(p => `${x(p.n)},${y(p.equity + 2 * p.se)}`);
      const lower = ps.slice().reverse().map(p => `${x(p.n)},${y(p.equity - 2 * p.se)}`);
      el("polygon", { points: upper.concat(lower).join(" "), fill: c, "fill-opacity": 0.15,
                      stroke: "none", class: "band" }, svg);
      el("polyline", { points: ps.map(p => `${x(p.n)},${y(p.equity)}`).join(" "), fill: "none",
                       stroke: c, "stroke-width": 2, class: "series", "data-name": s.name }, svg);
      const last = ps[ps.length - 1];
      el("circle", { cx: x(last.n), cy: y(last.equity), r: 3, fill: c }, svg);
      el("rect", { x: W - R + 12, y: T + i * 20, width: 12, height: 12, fill: c }, svg);
      el("text", { x: W - R + 30, y: T + i * 20 + 11, "font-size": 12 }, svg,
         `${s.name}  ${(last.equity >= 0 ? "+" : "") + last.equity.toFixed(3)}`);
    });
  }

  return { draw, COLOURS };
})();
