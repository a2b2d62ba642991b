// tine view, the side panel: the refs (pick A and B to diff, open a
// run), an event's fields and blobs, a run's attestations and promotions,
// the diff of two runs and the sortable runs table.
"use strict";

tine.panels = (function () {
  const { el, clear, say, getJSON, short, clip, num } = tine;

  const st = {
    selected: null,        // the event the Event tab shows
    runA: null,
    runB: null,
  };

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
    tine.graph.select(oid);
    st.selected = oid;
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


  return { renderRefs, selectEvent, loadTable };
})();

tine.graph.start().then(tine.panels.loadTable).catch((e) => tine.say(e.message));
