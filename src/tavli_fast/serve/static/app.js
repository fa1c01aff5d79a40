// The board page: reads the position and dice (from the form or the URL: /?position=...&dice=31),
// asks /v1/hint for the board, the plays or the cube, and runs rollouts with live progress.
"use strict";

(() => {
  const $ = id => document.getElementById(id);
  const params = new URLSearchParams(window.location.search);
  const token = params.get("token");
  const api = path => (token ? `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : path);
  let current = null;      // the last request shown: {position, dice, game}
  let job = null;          // the running rollout: {id, source}
  let series = [];         // the chart's lines

  function fmt(x, digits = 3, sign = true) {
    if (x === null || x === undefined || !Number.isFinite(x)) return "-";
    return (sign && x >= 0 ? "+" : "") + x.toFixed(digits);
  }
  function pct(x) { return Number.isFinite(x) ? (100 * x).toFixed(1) + "%" : "-"; }
  function message(text) { $("message").textContent = text || ""; }

  async function call(method, path, body) {
    const headers = { "Accept": "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers["Authorization"] = `Bearer ${token}`;
    const r = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const doc = await r.json();
    if (!r.ok) throw new Error(doc.error || `HTTP ${r.status}`);
    return doc;
  }

  function request() {
    const position = $("position").value.trim() || "start";
    const dice = $("dice").value.trim();
    const game = $("game").value;
    return { position, dice: dice || null, game: game || null };
  }

  function body(req, extra) {
    const out = { position: req.position, ...extra };
    // Plakoto and Fevga roll out the position itself (the candidate plays are backgammon's).
    if (req.dice && !(req.game && extra.trials)) out.dice = req.dice;
    if (req.game) out.game = req.game;
    return out;
  }

  function shareable(req) {
    const q = new URLSearchParams();
    q.set("position", req.position);
    if (req.dice) q.set("dice", req.dice);
    if (req.game) q.set("game", req.game);
    if (token) q.set("token", token);
    window.history.replaceState(null, "", `?${q.toString()}`);
  }

  function hintTable(plays, game) {
    const heads = game ? ["W double", "W mother", "L double", "L mother"] : ["W g", "W bg", "L g", "L bg"];
    $("hint-table").querySelectorAll("thead th").forEach((th, i) => { if (i >= 5) th.textContent = heads[i - 5]; });
    const tbody = $("hint-table").querySelector("tbody");
    tbody.textContent = "";
    const value = p => (p.equity_1ply !== null && p.equity_1ply !== undefined) ? p.equity_1ply : p.equity_0ply;
    const best = plays.length ? value(plays[0]) : 0;
    plays.forEach((p, i) => {
      const tr = document.createElement("tr");
      const gammon = p.win_gammon !== undefined ? [p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon]
        : [p.win_double, p.win_mother, p.lose_double, p.lose_mother];
      const ply = (p.equity_1ply !== null && p.equity_1ply !== undefined) ? "1-ply" : "0-ply";
      const cells = [i + 1, p.play, fmt(value(p)), i ? fmt(value(p) - best) : "", pct(p.win), ...gammon.map(pct)];
      cells.forEach((c, j) => {
        const td = document.createElement("td");
        td.textContent = c;
        if (j === 2) td.title = ply;
        tr.appendChild(td);
      });
      tbody.appendChild(tr);
    });
    if (!plays.length) tbody.innerHTML = "<tr><td colspan='9' class='note'>no plays</td></tr>";
  }

  function cubePanel(doc) {
    const box = $("cube-body");
    const board = doc.board;
    const owner = board.cube ? { centre: "centred", me: "owned by X (on roll)", opponent: "owned by O" }[board.cube.owner] : "";
    const head = board.cube ? `Cube ${board.cube.value}, ${owner}` : "No cube in this game";
    if (!doc.cube) {
      box.textContent = board.cube ? `${head}. The cube is decided before the roll: clear the dice to see it.` : head;
      return;
    }
    const c = doc.cube;
    const rows = [["No double", c.no_double], ["Double, take", c.double_take], ["Double, pass", c.double_pass]];
    const mwc = c.mwc ? [c.mwc.no_double, c.mwc.double_take, c.mwc.double_pass] : null;
    box.innerHTML = "";
    const p = document.createElement("p");
    p.textContent = `${head}. Cubeless equity ${fmt(c.cubeless_equity)}` + (c.exact ? " (exact)" : ` (0-ply, efficiency ${c.efficiency.toFixed(3)})`);
    box.appendChild(p);
    const t = document.createElement("table");
    t.className = "cube-table";
    rows.forEach(([label, eq], i) => {
      const tr = document.createElement("tr");
      const best = Math.abs(eq - c.cubeful_equity) < 1e-12;
      for (const text of [label, fmt(eq), best ? "" : fmt(eq - c.cubeful_equity), mwc ? `MWC ${(100 * mwc[i]).toFixed(1)}%` : ""]) {
        const td = document.createElement("td");
        td.textContent = text;
        if (best) td.className = "best";
        tr.appendChild(td);
      }
      t.appendChild(tr);
    });
    box.appendChild(t);
    const a = document.createElement("p");
    a.innerHTML = "";
    a.textContent = `Proper cube action: ${c.action}`;
    box.appendChild(a);
  }

  async function show(event) {
    if (event) event.preventDefault();
    const req = request();
    shareable(req);
    message("");
    try {
      const doc = await call("POST", api("/v1/hint"), body(req, {}));
      current = req;
      Board.draw($("board"), doc.board);
      const b = doc.board;
      $("pips").textContent = `Pip counts: X ${b.pips[0]}, O ${b.pips[1]}` + (doc.position_id ? `   ·   ${doc.position_id}` : "");
      hintTable(doc.plays || [], doc.game);
      cubePanel(doc);
      if (!doc.plays) $("hint-table").querySelector("tbody").innerHTML = "<tr><td colspan='9' class='note'>give dice to see the plays</td></tr>";
    } catch (e) {
      message(e.message);
    }
  }

  function resetChart(names) {
    series = names.map(name => ({ name, points: [] }));
    Chart.draw($("rollout-chart"), series);
  }

  function onProgress(p) {
    if (!p) return;
    if (p.plays && p.plays.length) {
      if (series.length !== p.plays.length) resetChart(p.plays.map(q => q.play));
      p.plays.forEach((q, i) => {
        const s = series[i];
        const last = s.points[s.points.length - 1];
        if (q.trials_done && q.equity !== null && (!last || last.n !== q.trials_done))
          s.points.push({ n: q.trials_done, equity: q.equity, se: q.equity_se || 0 });
      });
    } else {
      if (!series.length) resetChart(["position"]);
      const s = series[0], last = s.points[s.points.length - 1];
      if (p.trials_done && p.equity !== null && (!last || last.n !== p.trials_done))
        s.points.push({ n: p.trials_done, equity: p.equity, se: p.equity_se || 0 });
    }
    Chart.draw($("rollout-chart"), series);
  }

  function status(text) { $("rollout-status").textContent = text; }

  function progressText(doc) {
    const p = doc.progress;
    if (!p) return `${doc.status}: starting`;
    return `${doc.status}: ${p.trials_done.toLocaleString("en")} / ${p.trials_total.toLocaleString("en")} trials, ` +
      `equity ${fmt(p.equity)} ± ${fmt(p.equity_se, 3, false)}` + (doc.elapsed_s ? `, ${doc.elapsed_s.toFixed(1)} s` : "");
  }

  function resultTable(result) {
    const t = $("rollout-table");
    t.textContent = "";
    if (!result) return;
    const head = document.createElement("tr");
    for (const h of ["", "trials", "equity", "± SE", "win", "W g", "L g"]) {
      const th = document.createElement("th"); th.textContent = h; head.appendChild(th);
    }
    t.appendChild(head);
    const rows = result.plays
      ? result.plays.map(p => [p.play, p.trials, p.equity, p.se, p.probabilities.win, p.probabilities.win_gammon, p.probabilities.lose_gammon])
      : [["position", result.trials, result.equity, result.se.equity, result.win, result.win_gammon, result.lose_gammon]];
    rows.forEach(r => {
      const tr = document.createElement("tr");
      [r[0], (r[1] || 0).toLocaleString("en"), fmt(r[2]), fmt(r[3], 3, false), pct(r[4]), pct(r[5]), pct(r[6])].forEach(c => {
        const td = document.createElement("td"); td.textContent = c; tr.appendChild(td);
      });
      t.appendChild(tr);
    });
  }

  function finished(doc) {
    if (job && job.source) job.source.close();
    job = null;
    $("rollout-start").disabled = false;
    $("rollout-cancel").disabled = true;
    if (doc.result) onProgress(progressFromResult(doc.result));
    const r = doc.result;
    const n = r ? (r.plays ? r.trials_played : r.trials) : 0;
    status(doc.status === "failed" ? `failed: ${doc.error}` : `${doc.status}: ${n.toLocaleString("en")} trials`);
    resultTable(r);
  }

  function progressFromResult(r) {
    if (r.plays) {
      // The result lists the plays best first; the chart keeps the request's order.
      const byName = new Map(r.plays.map(p => [p.play, p]));
      const names = series.length ? series.map(s => s.name) : r.plays.map(p => p.play);
      return { plays: names.filter(n => byName.has(n)).map(n => {
        const p = byName.get(n);
        return { play: n, trials_done: p.trials, equity: p.equity, equity_se: p.se };
      }) };
    }
    return { trials_done: r.trials, equity: r.equity, equity_se: r.se.equity };
  }

  async function startRollout() {
    const req = current || request();
    const extra = { trials: Number($("trials").value) || 2592 };
    const seed = $("seed").value.trim();
    if (seed) extra.seed = Number(seed);
    // Small chunks: the chart gets a point every chunk (the numbers depend on the chunk size).
    extra.chunk_size = Math.min(162, Math.max(36, Math.round(extra.trials / 24)));
    extra.vr = $("vr").checked;
    if (req.dice && !req.game && !$("stop").checked) extra.no_stop = true;
    message("");
    try {
      const doc = await call("POST", api("/v1/rollouts"), body(req, extra));
      resetChart([]);
      $("rollout-table").textContent = "";
      status("running: starting");
      $("rollout-start").disabled = true;
      $("rollout-cancel").disabled = false;
      const source = new EventSource(api(`/v1/rollouts/${doc.id}/events`));
      job = { id: doc.id, source };
      source.addEventListener("progress", e => {
        const d = JSON.parse(e.data);
        onProgress(d.progress);
        status(progressText(d));
      });
      source.addEventListener("result", e => {
        source.close();
        finished(JSON.parse(e.data));
      });
      source.onerror = () => { if (job && job.source === source) { source.close(); poll(doc.id); } };
    } catch (e) {
      message(e.message);
    }
  }

  async function poll(id) {
    try {
      const doc = await call("GET", api(`/v1/rollouts/${id}`));
      if (doc.status === "running") { setTimeout(() => poll(id), 1000); status(progressText(doc)); }
      else finished(doc);
    } catch (e) { message(e.message); }
  }

  async function cancelRollout() {
    if (!job) return;
    const id = job.id;
    job.source.close();
    $("rollout-cancel").disabled = true;
    status("cancelling");
    try {
      finished(await call("DELETE", api(`/v1/rollouts/${id}`)));
    } catch (e) { message(e.message); }
  }

  document.querySelectorAll("[data-pick]").forEach(b => b.addEventListener("click", () => {
    const [position, dice, game] = b.dataset.pick.split("|");
    $("position").value = position; $("dice").value = dice; $("game").value = game;
    show();
  }));
  $("position-form").addEventListener("submit", show);
  $("rollout-start").addEventListener("click", startRollout);
  $("rollout-cancel").addEventListener("click", cancelRollout);
  if (params.get("position")) $("position").value = params.get("position");
  if (params.get("dice")) $("dice").value = params.get("dice");
  if (params.get("game")) $("game").value = params.get("game");
  Chart.draw($("rollout-chart"), []);
  show();
})();
