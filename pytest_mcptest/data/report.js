// The item table of mcptest's HTML report: unpack the embedded items, list them, filter
// them by kind, outcome, tag and text, and expand a row into its failure text, its
// recorded calls and its envelope. Nothing is fetched; everything is in this page.
"use strict";
(function () {
  const MAX_JSON = 200000, MAX_CALLS = 200;
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
  // What a cassette, a catalog or a report file says (names, messages, arguments) is shown
  // with each control or bidi character as its escape, marked, instead of acting; and each
  // piece of it in its own <bdi>, so that its direction cannot reorder the words around it
  // (the same as text.html_text does for the parts of the page written in Python).
  const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
  const hex = (c, n) => c.charCodeAt(0).toString(16).padStart(n, "0");
  const mark = (html) => html.replace(UNSAFE, (c) =>
    "<span class=\"ctl\">" + (c.charCodeAt(0) < 0x100 ? "\\x" + hex(c, 2) : "\\u" + hex(c, 4)) + "</span>");
  const txt = (s) => "<bdi>" + mark(esc(s)) + "</bdi>";

  async function unpack(id) {
    const b64 = $(id).textContent.trim();
    const binary = atob(b64);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  // Each item's envelope and failure text, unpacked once, when a row is first expanded.
  let details = null;
  const loadDetails = () => details || (details = unpack("mcptest-details"));

  function why(item) {
    const f = (item.failures || [])[0];
    if (!f) return "";
    const first = String(f.message || "").split("\n")[0];
    const more = item.failures.length > 1 ? " (+" + (item.failures.length - 1) + " more)" : "";
    return f.gate + ": " + first + more;
  }

  function calls(env) {
    const out = [];
    const take = (list, run) => {  // calls are numbered from 1 within their run, as the failure text says
      (list || []).forEach((c, n) => {
        if (out.length < MAX_CALLS && c && typeof c === "object") out.push([run, n + 1, c]);
      });
    };
    if (Array.isArray(env.tool_calls)) take(env.tool_calls, "");
    else if (Array.isArray(env.runs)) env.runs.forEach((r, i) => r && take(r.tool_calls, "#" + (i + 1)));
    return out;
  }

  function short(value) {
    const s = typeof value === "string" ? value : JSON.stringify(value);
    return s === undefined ? "" : s.length > 160 ? s.slice(0, 157) + "..." : s;
  }

  function detail(item, extra) {
    item = Object.assign({}, item, extra);
    const parts = [];
    if (item.text) parts.push("<h4>Failure text</h4><pre class=\"failure-text\">" + mark(esc(item.text)) + "</pre>");
    else if ((item.failures || []).length)
      parts.push("<h4>Failures</h4><pre class=\"failure-text\">" +
        mark(esc(item.failures.map((f) => f.gate + ": " + f.message).join("\n"))) + "</pre>");
    const env = item.envelope || {};
    const list = calls(env);
    if (list.length) {
      const rows = list.map(([run, n, c]) => "<tr><td>" + esc(run) + "</td><td>" + n + "</td><td>" +
        txt(c.name || "") + "</td><td>" + txt(short(c.args)) + "</td><td>" + (c.error ? "error" : "") +
        "</td><td>" + txt(short(c.result)) + "</td></tr>").join("");
      parts.push("<h4>Recorded calls</h4><table class=\"calls\"><tr><th>run</th><th>#</th><th>tool</th>" +
        "<th>arguments</th><th></th><th>result</th></tr>" + rows + "</table>");
    }
    let text = JSON.stringify(env, null, 2);
    if (text.length > MAX_JSON) text = text.slice(0, MAX_JSON) + "\n... (cut: " + text.length + " characters in all)";
    parts.push("<h4>Envelope</h4><pre class=\"envelope\">" + mark(esc(text)) + "</pre>");
    parts.push("<p class=\"muted\">" + txt(item.file || "") + ":" + txt(item.line || "") + "</p>");
    return parts.join("");
  }

  // Only the first PAGE matching rows are in the table (more on request): a report of ten
  // thousand items then opens and filters in well under a second.
  const PAGE = 500;

  function row(item, i) {
    return "<tr class=\"row\" data-index=\"" + i + "\" data-outcome=\"" + esc(item.outcome || "") + "\"><td class=\"o-" +
      esc(item.outcome || "") + "\">" + txt(item.outcome || "") + "</td><td>" + txt(item.kind || "") +
      "</td><td><code>" + txt(item.id) + "</code></td><td class=\"why\">" + txt(why(item)) + "</td></tr>";
  }

  function build(items) {
    const body = $("item-rows");
    let hay = null;  // what the text filter searches, built on its first use
    const haystack = () => hay || (hay = items.map((item) => [item.id, item.kind, item.outcome,
      (item.tags || []).join(" "), (item.failures || []).map((f) => f.gate + " " + f.message).join(" ")]
      .join(" ").toLowerCase()));
    const open = new Set();
    let matches = [], limit = PAGE;

    let loaded = null;  // the details, once unpacked
    function detailRow(i) {
      return "<tr class=\"detail\" data-index=\"" + i + "\"><td colspan=\"4\">" + detail(items[i], loaded[i]) +
        "</td></tr>";
    }

    function render() {
      const shown = matches.slice(0, limit);
      body.innerHTML = shown.map((i) => row(items[i], i) + (open.has(i) ? detailRow(i) : "")).join("");
      $("shown").textContent = matches.length + " of " + items.length + " items match" +
        (matches.length > shown.length ? ", the first " + shown.length + " listed" : "");
      const more = $("more");
      more.hidden = matches.length <= shown.length;
      more.textContent = "list " + Math.min(PAGE, matches.length - shown.length) + " more";
    }

    body.addEventListener("click", async (e) => {
      const tr = e.target.closest("tr.row");
      if (!tr) return;
      const i = Number(tr.dataset.index);
      if (!loaded) loaded = await loadDetails();
      if (open.has(i)) {
        open.delete(i);
        const d = tr.nextElementSibling;
        if (d && d.classList.contains("detail")) d.remove();
      } else {
        open.add(i);
        tr.insertAdjacentHTML("afterend", detailRow(i));
      }
    });
    $("more").addEventListener("click", () => { limit += PAGE; render(); });

    function filter() {
      const kind = $("f-kind").value, outcome = $("f-outcome").value, tag = $("f-tag").value;
      const text = $("f-text").value.trim().toLowerCase();
      const texts = text ? haystack() : null;
      matches = [];
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if ((!kind || item.kind === kind) && (!outcome || item.outcome === outcome) &&
            (!tag || (item.tags || []).includes(tag)) && (!text || texts[i].includes(text))) matches.push(i);
      }
      limit = PAGE;
      render();
    }
    for (const id of ["f-kind", "f-outcome", "f-tag"]) $(id).addEventListener("change", filter);
    $("f-text").addEventListener("input", filter);
    filter();
    performance.mark("mcptest-ready");  // how long the page took, for benchmarks/bench_html.py
    document.body.dataset.ready = "true";
  }

  unpack("mcptest-rows").then(build, (err) => {
    $("item-rows").innerHTML = "<tr><td colspan=\"4\">the items could not be unpacked: " + esc(err) + "</td></tr>";
  });
})();
