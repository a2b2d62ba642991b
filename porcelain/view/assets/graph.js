// tine view, the graph: draws the lanes the server lays out (as git log
// --graph draws them) on a canvas, only the rows in sight, fetched from
// /api/rows in pages; pan, zoom, and a click on a node selects its event.
"use strict";

tine.graph = (function () {
  const { clip, getJSON, say } = tine;
  const ROW = 24;          // row height at 100%
  const LANE = 14;         // lane width at 100%
  const PAD = 10;          // left margin
  const PAGE = 256;        // rows per /api/rows request
  const MAX_LABEL = 120;   // characters of a label drawn on the canvas
  const PALETTE = ["#3949ab", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#558b2f", "#4e342e"];

  const canvas = document.getElementById("graph");
  const ctx = canvas.getContext("2d");

  // The state of the drawing: graph sizes, loaded row pages, view.
  const st = {
    info: null,            // /api/graph
    pages: new Map(),      // page index -> rows
    loading: new Set(),    // page indexes being fetched
    zoom: 1,
    panX: 0,               // world pixels at the left edge
    panY: 0,               // world pixels at the top edge
    selected: null,        // oid of the selected event
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

  async function loadGraph() {
    const info = await getJSON("/api/graph");
    st.info = info;
    st.pages.clear();
    hook.events = info.events;
    hook.lanes = info.lanes;
    hook.rows = info.rows;
    document.getElementById("stats").textContent =
      info.events + " events · " + info.lanes + " lanes · " + info.runs.length + " refs";
    tine.panels.renderRefs(info.runs);
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
    if (e) tine.panels.selectEvent(e.event);
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

  // select marks event oid as the selected one.
  function select(oid) {
    st.selected = oid;
    hook.selected = oid;
    schedule();
  }

  // start sizes the canvas and loads the graph.
  function start() {
    resize();
    return loadGraph();
  }

  return { start, select };
})();
