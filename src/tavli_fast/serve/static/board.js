// The board as SVG, from the side on roll (X, moving 24 -> 1, home board bottom right),
// drawn from the "board" object of the /v1/eval and /v1/hint documents.
"use strict";

const Board = (() => {
  const CUBE_X = 8, LEFT = 64, POINT = 50, BAR = 48, TOP = 60, BOTTOM = 500;
  const HEIGHT = 176, RADIUS = 21, TRAY = 14, VIEW_H = 560;
  const RIGHT_HALF = LEFT + 6 * POINT + BAR;          // x of point 6's column ... 1
  const FRAME_END = RIGHT_HALF + 6 * POINT;
  const TRAY_X = FRAME_END + TRAY;
  const MID = (TOP + BOTTOM) / 2;

  const el = Svg.el;

  // Left edge of the column of the mover's point p (1..24), and whether it is on the top row.
  function column(p) {
    if (p <= 6) return [RIGHT_HALF + (6 - p) * POINT, false];
    if (p <= 12) return [LEFT + (12 - p) * POINT, false];
    if (p <= 18) return [LEFT + (p - 13) * POINT, true];
    return [RIGHT_HALF + (p - 19) * POINT, true];
  }

  function checker(svg, cx, cy, mine, label, pinned) {
    const g = el("g", { class: mine ? "checker mine" : "checker theirs" }, svg);
    el("circle", { cx, cy, r: RADIUS, fill: mine ? "#f3ead7" : "#7a2418",
                   stroke: mine ? "#8a7a60" : "#3d0f09", "stroke-width": 2 }, g);
    el("circle", { cx, cy, r: RADIUS - 6, fill: "none",
                   stroke: mine ? "#cbbd9f" : "#a3402f", "stroke-width": 1.5 }, g);
    if (pinned) el("circle", { cx, cy, r: RADIUS + 3, fill: "none", stroke: "#f0b400",
                               "stroke-width": 3, "stroke-dasharray": "4 3" }, g);
    if (label) el("text", { x: cx, y: cy + 5, "text-anchor": "middle", "font-size": 15,
                            "font-weight": 700, fill: mine ? "#3a2d1a" : "#fff" }, g, label);
  }

  // A stack of n checkers from (cx, y0) towards the middle (dir +1 down, -1 up), at most 5
  // drawn, the top one carrying the count when there are more.
  function stack(svg, cx, y0, dir, n, mine, pinned) {
    const shown = Math.min(n, 5);
    for (let i = 0; i < shown; i++) {
      const cy = y0 + dir * (RADIUS + i * 2 * RADIUS);
      const label = (i === shown - 1 && n > 5) ? String(n) : "";
      checker(svg, cx, cy, mine, label, pinned && i === 0);
    }
  }

  function die(svg, x, y, value) {
    const g = el("g", { class: "die" }, svg);
    el("rect", { x, y, width: 38, height: 38, rx: 7, fill: "#fffdf5", stroke: "#333",
                 "stroke-width": 1.5 }, g);
    const pips = { 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]],
                   4: [[0, 0], [2, 0], [0, 2], [2, 2]], 5: [[0, 0], [2, 0], [1, 1], [0, 2], [2, 2]],
                   6: [[0, 0], [2, 0], [0, 1], [2, 1], [0, 2], [2, 2]] }[value] || [];
    for (const [i, j] of pips) el("circle", { cx: x + 9 + i * 10, cy: y + 9 + j * 10, r: 3.6,
                                              fill: "#222" }, g);
  }

  function cube(svg, value, owner) {
    const y = owner === "me" ? BOTTOM - 52 : owner === "opponent" ? TOP + 8 : MID - 22;
    const g = el("g", { class: "cube", "data-owner": owner, "data-testid": "board-cube" }, svg);
    el("rect", { x: CUBE_X, y, width: 44, height: 44, rx: 6, fill: "#fff", stroke: "#222",
                 "stroke-width": 2 }, g);
    el("text", { x: CUBE_X + 22, y: y + 29, "text-anchor": "middle", "font-size": 20,
                 "font-weight": 700 }, g, String(owner === "centre" && value === 1 ? 64 : value));
  }

  function tray(svg, off, mine) {
    const y0 = mine ? BOTTOM : TOP;
    const dir = mine ? -1 : 1;
    for (let i = 0; i < off; i++) {
      const y = mine ? y0 - (i + 1) * 10 : y0 + i * 10;
      el("rect", { x: TRAY_X + 4, y: y + 1, width: 44, height: 8, rx: 2,
                   fill: mine ? "#f3ead7" : "#7a2418", stroke: mine ? "#8a7a60" : "#3d0f09" }, svg);
    }
    if (off) el("text", { x: TRAY_X + 26, y: y0 + dir * (off * 10 + 16), "text-anchor": "middle",
                          "font-size": 13, fill: "#fff" }, svg, `${off} off`);
  }

  function draw(svg, board) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    el("rect", { x: 0, y: 0, width: 820, height: VIEW_H, fill: "#4b2e1b", rx: 10 }, svg);
    el("rect", { x: LEFT, y: TOP, width: FRAME_END - LEFT, height: BOTTOM - TOP, fill: "#2f5d3a" }, svg);
    el("rect", { x: LEFT + 6 * POINT, y: TOP, width: BAR, height: BOTTOM - TOP, fill: "#6b4226" }, svg);
    el("rect", { x: TRAY_X, y: TOP, width: 52, height: BOTTOM - TOP, fill: "#3b2416", stroke: "#6b4226" }, svg);
    el("line", { x1: TRAY_X, y1: MID, x2: TRAY_X + 52, y2: MID, stroke: "#6b4226", "stroke-width": 2 }, svg);
    for (let p = 1; p <= 24; p++) {
      const [x, top] = column(p);
      const base = top ? TOP : BOTTOM;
      const tip = top ? TOP + HEIGHT : BOTTOM - HEIGHT;
      el("polygon", { points: `${x},${base} ${x + POINT},${base} ${x + POINT / 2},${tip}`,
                      fill: p % 2 ? "#e9dcc0" : "#b5651d", class: "point", "data-point": p }, svg);
      el("text", { x: x + POINT / 2, y: top ? TOP - 8 : BOTTOM + 20, "text-anchor": "middle",
                   "font-size": 13, fill: "#f4e7cf" }, svg, String(p));
    }
    const pinned = board.pinned || { mover: [], opponent: [] };
    for (let p = 1; p <= 24; p++) {
      const [x, top] = column(p);
      const cx = x + POINT / 2, y0 = top ? TOP : BOTTOM, dir = top ? 1 : -1;
      const mine = board.mover[p], theirs = board.opponent[p];
      // Plakoto: the pinned checker sits at the point's foot (ringed), its captors on it.
      if (mine && theirs) {
        const moverPinned = (pinned.mover || []).includes(p);
        stack(svg, cx, y0, dir, 1, moverPinned, true);
        stack(svg, cx, y0 + dir * 2 * RADIUS, dir, moverPinned ? theirs : mine, !moverPinned, false);
      } else if (mine) stack(svg, cx, y0, dir, mine, true, false);
      else if (theirs) stack(svg, cx, y0, dir, theirs, false, false);
    }
    const barX = LEFT + 6 * POINT + BAR / 2;
    if (board.opponent[25]) stack(svg, barX, MID - 12, -1, board.opponent[25], false, false);
    if (board.mover[25]) stack(svg, barX, MID + 12, 1, board.mover[25], true, false);
    tray(svg, board.mover[0], true);
    tray(svg, board.opponent[0], false);
    if (board.cube) cube(svg, board.cube.value, board.cube.owner);
    if (board.dice) {
      die(svg, RIGHT_HALF + 3 * POINT - 44, MID - 19, board.dice[0]);
      die(svg, RIGHT_HALF + 3 * POINT + 6, MID - 19, board.dice[1]);
    }
    el("text", { x: LEFT, y: 26, "font-size": 15, fill: "#fde7c8" }, svg,
       `O  pips ${board.pips[1]}` + (board.score ? `   score ${board.score[1]}` : ""));
    const match = board.match_length ? `   match to ${board.match_length}` + (board.crawford ? " (Crawford)" : "") : "";
    el("text", { x: LEFT, y: VIEW_H - 12, "font-size": 15, fill: "#fde7c8" }, svg,
       `X on roll  pips ${board.pips[0]}` + (board.score ? `   score ${board.score[0]}` : "") + match);
    el("text", { x: 810, y: VIEW_H - 12, "text-anchor": "end", "font-size": 13, fill: "#fde7c8" }, svg, board.game);
  }

  return { draw };
})();
