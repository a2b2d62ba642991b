// tine view: draws the run graph the server lays out (lanes as git log
// --graph draws them) on a canvas, only the rows in sight, fetched in
// pages; and shows events, blobs, runs and diffs in the side panel.
//
// Everything recorded is untrusted: it reaches the page only as text
// (textContent, createTextNode, canvas fillText), never as markup.
"use strict";

(function () {
  const ROW = 24;          // row height at 100%
  const LANE = 14;         // lane width at 100%
  const PAD = 10;          // left margin
  const PAGE = 256;        // rows per /api/rows request
  const MAX_LABEL = 120;   // characters of a label drawn on the canvas
  const PALETTE = ["#3949ab", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#558b2f", "#4e342e"];

  const canvas = document.getElementById("graph");
  const ctx = canvas.getContext("2d");
  const statusEl = document.getElementById("status");

  // The state of the drawing: graph sizes, loaded row pages, view.
  const st = {
    info: null,            // /api/graph
    pages: new Map(),      // page index -> rows
    loading: new Set(),    // page indexes being fetched
    zoom: 1,
    panX: 0,               // world pixels at the left edge
    panY: 0,               // world pixels at the top edge
    selected: null,        // oid of the selected event
    runA: null,
    runB: null,
    frame: 0,
  };

  // The test hooks: what the last frame drew, and where a node is.
  const hook = window.tineView = {
    ready: false,
    events: 0,
    lanes: 0,
    rows: 0,
    drawnNodes: 0,
    drawnLanes: 0,
    firstFrameMs: null,
    selected: null,
    nodePoint: nodePoint,
  };

  // el builds an element; string children become text nodes.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (k === "class") e.className = v;
        else if (k === "onclick") e.addEventListener("click", v);
        else e.setAttribute(k, v);
      }
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return e;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function say(msg) {
    statusEl.textContent = msg || "";
  }

  async function getJSON(url) {
    const res = await fetch(url, { method: "GET", credentials: "same-origin", cache: "no-store" });
    let body = null;
    try {
      body = await res.json();
    } catch (e) {
      throw new Error(url + ": the answer is not JSON (" + res.status + ")");
    }
    if (!res.ok) throw new Error((body && body.error) || (url + ": " + res.status));
    return body;
  }

  function short(oid) {
    const i = String(oid).lastIndexOf(":");
    return String(oid).slice(i + 1, i + 13);
  }

  function clip(s, n) {
    s = String(s);
    return s.length > n ? s.slice(0, n) + "…" : s;
  }

  // ---- the graph ----------------------------------------------------

  async function loadGraph() {
    const info = await getJSON("/api/graph");
    st.info = info;
    st.pages.clear();
    hook.events = info.events;
    hook.lanes = info.lanes;
    hook.rows = info.rows;
    document.getElementById("stats").textContent =
      info.events + " events · " + info.lanes + " lanes · " + info.runs.length + " refs";
    renderRefs(info.runs);
    schedule();
  }

  function pageRows(p) {
    return st.pages.get(p);
  }

  async function loadPage(p) {
    if (st.loading.has(p) || st.pages.has(p)) return;
    st.loading.add(p);
    try {
      const page = await getJSON("/api/rows?offset=" + p * PAGE + "&limit=" + PAGE);
      if (page.version !== st.info.version) {
        // The refs moved since the graph was read: start again.
        st.loading.delete(p);
        await loadGraph();
        return;
      }
      st.pages.set(p, page.rows);
      schedule();
    } catch (e) {
      say(e.message);
    } finally {
      st.loading.delete(p);
    }
  }

  function row(i) {
    const rows = pageRows(Math.floor(i / PAGE));
    return rows ? rows[i % PAGE] : null;
  }

  function laneX(l) {
    return PAD + l * LANE + LANE / 2;
  }

  function toScreen(wx, wy) {
    return [(wx - st.panX) * st.zoom, (wy - st.panY) * st.zoom];
  }

  function resize() {
    const r = canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(r.width * dpr));
    canvas.height = Math.max(1, Math.round(r.height * dpr));
    schedule();
  }

  function schedule() {
    if (st.frame) return;
    st.frame = requestAnimationFrame(() => {
      st.frame = 0;
      draw();
    });
  }

  function visibleRows() {
    const h = canvas.getBoundingClientRect().height;
    const first = Math.max(0, Math.floor(st.panY / ROW));
    const last = Math.min(st.info.rows - 1, Math.floor((st.panY + h / st.zoom) / ROW));
    return [first, last];
  }

  function draw() {
    if (!st.info) return;
    const dpr = window.devicePixelRatio || 1;
    const r = canvas.getBoundingClientRect();
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, r.width, r.height);
    const [first, last] = visibleRows();
    for (let p = Math.floor(first / PAGE); p <= Math.floor(last / PAGE); p++) {
      if (!st.pages.has(p)) loadPage(p);
    }
    const z = st.zoom;
    let nodes = 0, lanes = 0;
    ctx.lineWidth = Math.max(1, 2 * z);
    ctx.lineCap = "round";
    // Lines first, nodes over them.
    for (let i = first; i <= last; i++) {
      const rw = row(i);
      if (!rw) continue;
      const top = i * ROW, mid = top + ROW / 2, bot = top + ROW;
      for (const [a, b, part] of rw.s) {
        lanes = Math.max(lanes, a + 1, b + 1);
        ctx.strokeStyle = PALETTE[Math.min(a, b) % PALETTE.length];
        ctx.beginPath();
        let p0, p1;
        if (part === 1) { p0 = toScreen(laneX(a), top); p1 = toScreen(laneX(a), mid); }
        else if (part === 2) { p0 = toScreen(laneX(a), mid); p1 = toScreen(laneX(a), bot); }
        else { p0 = toScreen(laneX(a), top); p1 = toScreen(laneX(b), bot); }
        ctx.moveTo(p0[0], p0[1]);
        ctx.lineTo(p1[0], p1[1]);
        ctx.stroke();
      }
    }
    const textX = PAD + st.info.lanes * LANE + 8;
    const showText = z >= 0.45;
    ctx.font = Math.round(12 * z) + "px ui-monospace, monospace";
    ctx.textBaseline = "middle";
    for (let i = first; i <= last; i++) {
      const rw = row(i);
      if (!rw || rw.n < 0) continue;
      const e = rw.e;
      nodes++;
      lanes = Math.max(lanes, rw.l + 1);
      const [x, y] = toScreen(laneX(rw.l), i * ROW + ROW / 2);
      const bad = e.missing ? false : (e.error || (e.exit_code !== undefined && e.exit_code !== 0));
      ctx.beginPath();
      ctx.arc(x, y, Math.max(1.5, 5 * z), 0, 2 * Math.PI);
      ctx.fillStyle = e.missing ? "#fff" : bad ? "#c62828" : PALETTE[rw.l % PALETTE.length];
      ctx.fill();
      if (e.missing) { ctx.strokeStyle = "#999"; ctx.lineWidth = 1; ctx.stroke(); ctx.lineWidth = Math.max(1, 2 * z); }
      if (e.event === st.selected) {
        ctx.beginPath();
        ctx.arc(x, y, Math.max(3, 8 * z), 0, 2 * Math.PI);
        ctx.strokeStyle = "#000";
        ctx.lineWidth = 1.5;
        ctx.stroke();
        ctx.lineWidth = Math.max(1, 2 * z);
      }
      if (!showText) continue;
      let [tx] = toScreen(textX, 0);
      ctx.fillStyle = "#b8860b";
      ctx.fillText(e.short, tx, y);
      tx += ctx.measureText(e.short + " ").width;
      for (const ref of e.refs || []) {
        const w = ctx.measureText(ref).width + 8 * z;
        ctx.fillStyle = "#e8f5e9";
        ctx.fillRect(tx, y - 8 * z, w, 16 * z);
        ctx.fillStyle = "#1b5e20";
        ctx.fillText(clip(ref, MAX_LABEL), tx + 4 * z, y);
        tx += w + 4 * z;
      }
      let what = e.missing ? "(not stored locally)" : (e.kind || "");
      if (e.label && e.label !== e.kind) what += " " + e.label;
      if (e.exit_code !== undefined) what += " · exit " + e.exit_code;
      if (e.score !== undefined) what += " · score " + e.score;
      if (e.error) what += " · error: " + e.error;
      ctx.fillStyle = bad ? "#b71c1c" : "#222";
      ctx.fillText(clip(what, MAX_LABEL), tx, y);
    }
    hook.drawnNodes = nodes;
    hook.drawnLanes = lanes;
    if (nodes > 0 && hook.firstFrameMs === null) {
      hook.firstFrameMs = performance.now();
      hook.ready = true;
      document.body.dataset.state = "ready";
    } else if (st.info.events === 0 && !hook.ready) {
      hook.ready = true;
      hook.firstFrameMs = performance.now();
      document.body.dataset.state = "ready";
    }
  }

  // nodePoint returns the client coordinates of event oid's node when
  // its row is loaded and in sight, else null.
  function nodePoint(oid) {
    if (!st.info) return null;
    const [first, last] = visibleRows();
    for (let i = first; i <= last; i++) {
      const rw = row(i);
      if (rw && rw.n >= 0 && rw.e.event === oid) {
        const [x, y] = toScreen(laneX(rw.l), i * ROW + ROW / 2);
        const r = canvas.getBoundingClientRect();
        return { x: r.left + x, y: r.top + y };
      }
    }
    return null;
  }

  // hit returns the event at client point (cx, cy): on its row, on its
  // node or its text.
  function hit(cx, cy) {
    const r = canvas.getBoundingClientRect();
    const wx = (cx - r.left) / st.zoom + st.panX;
    const wy = (cy - r.top) / st.zoom + st.panY;
    const i = Math.floor(wy / ROW);
    if (i < 0 || i >= st.info.rows) return null;
    const rw = row(i);
    if (!rw || rw.n < 0) return null;
    if (Math.abs(wx - laneX(rw.l)) <= LANE || wx >= PAD + st.info.lanes * LANE) return rw.e;
    return null;
  }

  function setZoom(z, cx, cy) {
    z = Math.min(3, Math.max(0.02, z));
    const r = canvas.getBoundingClientRect();
    const ax = cx === undefined ? r.width / 2 : cx - r.left;
    const ay = cy === undefined ? r.height / 2 : cy - r.top;
    // Keep the world point under the cursor in place.
    const wx = ax / st.zoom + st.panX, wy = ay / st.zoom + st.panY;
    st.zoom = z;
    st.panX = wx - ax / z;
    st.panY = wy - ay / z;
    clampPan();
    schedule();
  }

  function clampPan() {
    if (!st.info) return;
    const r = canvas.getBoundingClientRect();
    const maxY = Math.max(0, st.info.rows * ROW - r.height / st.zoom / 2);
    st.panY = Math.min(maxY, Math.max(-r.height / st.zoom / 2, st.panY));
    st.panX = Math.min(4000, Math.max(-r.width / st.zoom / 2, st.panX));
  }

  function fit() {
    const r = canvas.getBoundingClientRect();
    const h = Math.max(1, st.info.rows * ROW + ROW);
    st.zoom = Math.min(1, Math.max(0.02, r.height / h));
    st.panX = 0;
    st.panY = 0;
    schedule();
  }

  let drag = null;
  canvas.addEventListener("mousedown", (ev) => {
    drag = { x: ev.clientX, y: ev.clientY, panX: st.panX, panY: st.panY, moved: false };
    canvas.classList.add("dragging");
  });
  window.addEventListener("mousemove", (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    st.panX = drag.panX - dx / st.zoom;
    st.panY = drag.panY - dy / st.zoom;
    clampPan();
    schedule();
  });
  window.addEventListener("mouseup", (ev) => {
    if (!drag) return;
    const wasDrag = drag.moved;
    drag = null;
    canvas.classList.remove("dragging");
    if (wasDrag || !st.info) return;
    const e = hit(ev.clientX, ev.clientY);
    if (e) selectEvent(e.event);
  });
  canvas.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    if (ev.ctrlKey || ev.metaKey) {
      setZoom(st.zoom * Math.exp(-ev.deltaY / 300), ev.clientX, ev.clientY);
      return;
    }
    st.panX += ev.deltaX / st.zoom;
    st.panY += ev.deltaY / st.zoom;
    clampPan();
    schedule();
  }, { passive: false });
  canvas.addEventListener("keydown", (ev) => {
    const step = 3 * ROW;
    switch (ev.key) {
      case "+": case "=": setZoom(st.zoom * 1.25); break;
      case "-": setZoom(st.zoom / 1.25); break;
      case "f": fit(); break;
      case "0": st.zoom = 1; st.panX = 0; st.panY = 0; schedule(); break;
      case "ArrowDown": st.panY += step / st.zoom; clampPan(); schedule(); break;
      case "ArrowUp": st.panY -= step / st.zoom; clampPan(); schedule(); break;
      case "PageDown": st.panY += canvas.clientHeight / st.zoom; clampPan(); schedule(); break;
      case "PageUp": st.panY -= canvas.clientHeight / st.zoom; clampPan(); schedule(); break;
      default: return;
    }
    ev.preventDefault();
  });
  document.getElementById("zoom-in").addEventListener("click", () => setZoom(st.zoom * 1.25));
  document.getElementById("zoom-out").addEventListener("click", () => setZoom(st.zoom / 1.25));
  document.getElementById("fit").addEventListener("click", fit);
  document.getElementById("reset").addEventListener("click", () => { st.zoom = 1; st.panX = 0; st.panY = 0; schedule(); });
  window.addEventListener("resize", resize);

  // ---- the side panel -----------------------------------------------

  function showTab(name) {
    for (const b of document.querySelectorAll(".tabs button")) b.classList.toggle("active", b.dataset.tab === name);
    for (const s of document.querySelectorAll(".tab")) s.classList.toggle("active", s.id === "tab-" + name);
  }
  for (const b of document.querySelectorAll(".tabs button")) b.addEventListener("click", () => showTab(b.dataset.tab));

  function statusClass(s) {
    return ["completed", "failed", "running", "paused"].includes(s) ? "st-" + s : "";
  }

  function renderRefs(runs) {
    const body = document.querySelector("#refs tbody");
    clear(body);
    runs.forEach((r, i) => {
      const name = r.ref || ("run " + short(r.run));
      const a = el("input", { type: "radio", name: "run-a", "aria-label": "A: " + name });
      const b = el("input", { type: "radio", name: "run-b", "aria-label": "B: " + name });
      a.addEventListener("change", () => { st.runA = r.ref || r.run; updateDiffButton(); });
      b.addEventListener("change", () => { st.runB = r.ref || r.run; updateDiffButton(); });
      const scores = (r.scores || []).map((s) => s.name + "=" + s.value).join(", ");
      body.appendChild(el("tr", { "data-run": r.run },
        el("td", null, a), el("td", null, b),
        el("td", { class: "name" }, el("button", { class: "link", onclick: () => selectRun(r.run) }, name)),
        el("td", { class: statusClass(r.status) }, r.status),
        el("td", null, r.events),
        el("td", null, scores)));
    });
  }

  function updateDiffButton() {
    document.getElementById("diff-go").disabled = !(st.runA && st.runB);
  }
  document.getElementById("diff-go").addEventListener("click", () => showDiff(st.runA, st.runB));

  function fieldTable(rows) {
    const t = el("table");
    for (const [k, v] of rows) t.appendChild(el("tr", null, el("th", null, k), el("td", null, v)));
    return t;
  }

  async function selectEvent(oid) {
    st.selected = oid;
    hook.selected = oid;
    schedule();
    const pane = document.getElementById("tab-event");
    showTab("event");
    clear(pane);
    pane.appendChild(el("p", { class: "muted" }, "loading " + short(oid) + "…"));
    try {
      const ev = await getJSON("/api/event/" + encodeURIComponent(oid));
      if (st.selected !== oid) return;
      clear(pane);
      pane.appendChild(el("h2", null, "event " + short(ev.oid)));
      pane.appendChild(el("p", { class: "mono" }, ev.oid));
      pane.appendChild(el("p", { class: "muted" }, ev.size + " bytes, verified"));
      const t = el("table", { id: "event-fields" });
      for (const f of ev.fields) {
        t.appendChild(el("tr", null, el("th", null, f.name), el("td", null, el("pre", null, f.value + (f.cut ? " …(cut)" : "")))));
      }
      pane.appendChild(t);
      if (ev.blobs.length > 0) pane.appendChild(el("h3", null, "blobs"));
      for (const b of ev.blobs) {
        const box = el("div", { class: "blob" });
        let what = b.missing ? "not stored locally" : b.binary ? "binary, " + b.size + " bytes" : b.size + " bytes";
        box.appendChild(el("p", null, el("strong", null, b.field), " ", el("span", { class: "mono" }, short(b.oid)), " · " + what));
        if (b.lines && b.lines.length) {
          box.appendChild(el("pre", null, b.lines.join("\n") + (b.more_lines ? "\n… " + b.more_lines + " more lines" : "")));
        }
        if (!b.missing) {
          const out = el("div");
          box.appendChild(el("button", { class: "link", onclick: () => showBlob(b.oid, out) }, "show the blob"));
          box.appendChild(out);
        }
        pane.appendChild(box);
      }
    } catch (e) {
      clear(pane);
      pane.appendChild(el("p", { class: "bad" }, e.message));
    }
  }

  async function showBlob(oid, out) {
    clear(out);
    out.appendChild(el("p", { class: "muted" }, "loading…"));
    try {
      const b = await getJSON("/api/blob/" + encodeURIComponent(oid));
      clear(out);
      if (b.binary) {
        out.appendChild(el("p", null, "binary blob, " + b.size + " bytes (verified)"));
        return;
      }
      out.appendChild(el("p", { class: "muted" }, b.cut ? "first " + b.text.length + " characters of " + b.size + " bytes (the whole blob verified)" : b.size + " bytes (verified)"));
      out.appendChild(el("pre", { class: "blob-text" }, b.text || ""));
    } catch (e) {
      clear(out);
      out.appendChild(el("p", { class: "bad" }, e.message));
    }
  }

  async function selectRun(run) {
    const pane = document.getElementById("tab-run");
    showTab("run");
    clear(pane);
    pane.appendChild(el("p", { class: "muted" }, "loading…"));
    try {
      const rv = await getJSON("/api/run/" + encodeURIComponent(run));
      clear(pane);
      pane.appendChild(el("h2", null, "run " + short(rv.run)));
      pane.appendChild(el("p", { class: "mono" }, rv.run));
      for (const r of rv.refs) {
        const rows = [["ref", r.ref || "(none)"], ["status", r.status], ["events", String(r.events)], ["tips", r.tips.map(short).join(" ")]];
        if (r.forked_from) rows.push(["forked from", "run " + short(r.forked_from.run) + " at " + short(r.forked_from.event) + (r.forked_from.reason ? " (" + r.forked_from.reason + ")" : "")]);
        pane.appendChild(fieldTable(rows));
      }
      pane.appendChild(el("h3", null, "attestations (" + rv.attestations.length + ")"));
      for (const a of rv.attestations) {
        const rows = [["oid", short(a.oid)], ["kind", a.kind || "(none)"], ["signer", a.signer || "(none)"]];
        for (const s of a.scores || []) rows.push(["score " + s.Name, String(s.Value)]);
        for (const f of a.fields || []) rows.push([f.Name, f.Value]);
        pane.appendChild(fieldTable(rows));
        pane.appendChild(el("pre", null, a.payload + (a.cut ? "\n…(cut)" : "")));
      }
      pane.appendChild(el("h3", null, "promotions (" + rv.promotions.length + ")"));
      for (const p of rv.promotions) {
        pane.appendChild(el("p", null, el("strong", null, p.ref), " → run " + short(p.run)));
        const t = el("table", null, el("tr", null, el("th", null, "when"), el("th", null, "who"), el("th", null, "why"), el("th", null, "old → new")));
        for (const h of p.history) {
          t.appendChild(el("tr", null, el("td", null, h.time), el("td", null, h.who), el("td", null, h.why || ""),
            el("td", { class: "mono" }, (h.old ? short(h.old) : "(new)") + " → " + short(h.new))));
        }
        pane.appendChild(t);
      }
    } catch (e) {
      clear(pane);
      pane.appendChild(el("p", { class: "bad" }, e.message));
    }
  }

  function brief(b) {
    if (!b) return "";
    let s = short(b.oid) + " #" + b.position + " " + (b.kind || "");
    if (b.label && b.label !== b.kind) s += " " + b.label;
    if (b.command) s += " $ " + b.command;
    return clip(s, 200);
  }

  // num prints a number without binary noise (0.0016358 not
  // 0.0016358279999999992).
  function num(x) {
    return typeof x === "number" ? String(Number(x.toPrecision(8))) : String(x);
  }

  function fmtChange(v) {
    if (v === undefined || v === null) return "—";
    if (typeof v === "number") return num(v);
    if (typeof v === "string") return /^(blob|event|run|attestation|annotation):/.test(v) ? short(v) : v;
    return JSON.stringify(v);
  }

  async function showDiff(a, b) {
    const pane = document.getElementById("tab-diff");
    showTab("diff");
    clear(pane);
    pane.appendChild(el("p", { class: "muted" }, "comparing…"));
    try {
      const d = await getJSON("/api/diff?a=" + encodeURIComponent(a) + "&b=" + encodeURIComponent(b));
      clear(pane);
      pane.appendChild(el("h2", null, "diff"));
      pane.appendChild(fieldTable([
        ["A", (d.a.ref || short(d.a.run)) + " · " + d.a.totals.events + " events"],
        ["B", (d.b.ref || short(d.b.run)) + " · " + d.b.totals.events + " events"],
        ["same events", d.identical ? "yes" : "no"],
        ["common ancestor", d.common_ancestor ? short(d.common_ancestor) : "(none)"],
        ["shared", String(d.common_events.length)],
        ["only in A", String(d.only_a.length)],
        ["only in B", String(d.only_b.length)],
        ["Δ events", String(d.delta.events)],
        ["Δ cost", num(d.delta.cost)],
        ["Δ duration", num(d.delta.duration)],
        ["Δ tokens", num(d.delta.tokens)],
        ["Δ score", d.delta.score === undefined ? "—" : num(d.delta.score)],
        ["tool path", d.tool_path_changed ? "changed" : "same"],
      ]));
      pane.appendChild(el("h3", null, "aligned divergent events"));
      const t = el("table", { id: "diff-aligned" }, el("tr", null, el("th", null, ""), el("th", null, "A"), el("th", null, "B"), el("th", null, "changes")));
      for (const p of d.aligned) {
        const ch = (p.changes || []).map((c) => c.field + ": " + fmtChange(c.old) + " → " + fmtChange(c.new)).join("\n");
        t.appendChild(el("tr", null, el("td", null, p.alignment), el("td", null, brief(p.a)), el("td", null, brief(p.b)), el("td", null, el("pre", null, ch))));
      }
      pane.appendChild(t);
      const onlyList = (title, list) => {
        if (!list.length) return;
        pane.appendChild(el("h3", null, title));
        const ul = el("ul");
        for (const e of list) ul.appendChild(el("li", null, brief(e)));
        pane.appendChild(ul);
      };
      onlyList("only in A", d.only_a);
      onlyList("only in B", d.only_b);
    } catch (e) {
      clear(pane);
      pane.appendChild(el("p", { class: "bad" }, e.message));
    }
  }

  // ---- the runs table ------------------------------------------------

  const table = { data: null, sortCol: -1, desc: false };

  async function loadTable() {
    try {
      table.data = await getJSON("/api/table");
      renderTable();
    } catch (e) {
      say(e.message);
    }
  }

  // compareCells orders two cells of a column: numbers by value, text by
  // text; empty cells last whichever the direction.
  function compareCells(a, b, numeric, desc) {
    const ea = a.text === "", eb = b.text === "";
    if (ea || eb) return ea === eb ? 0 : ea ? 1 : -1;
    let c;
    if (numeric && a.value !== undefined && b.value !== undefined) c = a.value - b.value;
    else c = a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
    return desc ? -c : c;
  }

  function renderTable() {
    const t = table.data;
    if (!t) return;
    const head = document.querySelector("#runs-table thead");
    const body = document.querySelector("#runs-table tbody");
    clear(head);
    clear(body);
    const tr = el("tr");
    t.columns.forEach((c, i) => {
      const mark = i === table.sortCol ? (table.desc ? " ▼" : " ▲") : "";
      tr.appendChild(el("th", { "data-col": c.name }, el("button", {
        onclick: () => {
          table.desc = table.sortCol === i ? !table.desc : false;
          table.sortCol = i;
          renderTable();
        },
      }, c.name + mark)));
    });
    head.appendChild(tr);
    const rows = t.rows.slice();
    if (table.sortCol >= 0) {
      const i = table.sortCol, numeric = t.columns[i].numeric;
      rows.sort((x, y) => compareCells(x.cells[i], y.cells[i], numeric, table.desc) || (x.ref < y.ref ? -1 : x.ref > y.ref ? 1 : 0));
    }
    for (const r of rows) {
      const row = el("tr", { "data-run": r.run });
      r.cells.forEach((cell, i) => {
        const c = t.columns[i];
        if (c.name === "ref") {
          row.appendChild(el("td", null, el("button", { class: "link", onclick: () => selectRun(r.run) }, cell.text)));
          return;
        }
        row.appendChild(el("td", c.numeric ? { class: "num" } : null, cell.text));
      });
      body.appendChild(row);
    }
  }

  resize();
  loadGraph().then(loadTable).catch((e) => say(e.message));
})();
