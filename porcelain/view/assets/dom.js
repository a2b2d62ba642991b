// tine view, the shared helpers: building elements from text, fetching
// the JSON API, short oids. Everything recorded is untrusted: it reaches
// the page only as text (textContent, createTextNode, canvas fillText),
// never as markup.
"use strict";

window.tine = (function () {
  const statusEl = document.getElementById("status");

  // BIDI matches the bidirectional controls (marks, embeddings,
  // overrides, isolates): in recorded text they would reorder what a
  // reader sees ("txt.exe" drawn as "exe.txt"), so they are shown as
  // [U+XXXX] instead.
  const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

  function plain(s) {
    return String(s).replace(BIDI, (c) => "[U+" + c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") + "]");
  }

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
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(plain(c)) : c);
    }
    return e;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  function say(msg) {
    statusEl.textContent = plain(msg || "");
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
    s = plain(s);
    return s.length > n ? s.slice(0, n) + "…" : s;
  }

  // num prints a number without binary noise (0.0016358 not
  // 0.0016358279999999992).
  function num(x) {
    return typeof x === "number" ? String(Number(x.toPrecision(8))) : String(x);
  }

  return { el, clear, say, getJSON, short, clip, num, plain };
})();
