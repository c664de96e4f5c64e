// pageleases.js runs the page's script (app.js, argv[2]) in Node with a
// stand-in for the browser's DOM, feeds it the stream's events from stdin
// (one JSON object a line: {"event","data"}), and prints what the lease
// tree was given: the HTML of the last full render and each leaf added
// since, one JSON object.
"use strict";
const fs = require("fs");
const vm = require("vm");
const out = { rendered: "", added: [] };
function stub(id) {
  const e = {
    id, dataset: {}, textContent: "", className: "", hidden: false, open: false,
    childElementCount: 0, addEventListener() {}, replaceChildren() {}, append() {}, prepend() {}, setAttribute() {}, remove() {},
    querySelector() { return null; }, querySelectorAll() { return []; },
    insertAdjacentHTML(_, html) { out.added.push(html); },
  };
  let html = "";
  Object.defineProperty(e, "innerHTML", { get: () => html, set: (v) => { html = v; if (id === "leases") out.rendered = v; } });
  Object.defineProperty(e, "firstElementChild", { get: () => (html ? Object.assign(stub(id + ">"), { tagName: "UL" }) : null) });
  return e;
}
const byID = {};
const frames = [];
const listeners = {};
Object.assign(globalThis, {
  window: globalThis, Node: function Node() {}, performance: { now: () => 0 },
  document: {
    querySelector: () => ({ content: "csrf" }), getElementById: (id) => (byID[id] ||= stub(id)),
    createElement: (tag) => stub(tag), addEventListener() {}, querySelectorAll: () => [], body: { dataset: {} },
  },
  CSS: { escape: (s) => s }, requestAnimationFrame: (f) => frames.push(f), setInterval: () => 0,
  fetch: async () => ({ ok: false, text: async () => "" }),
  EventSource: function EventSource() { this.addEventListener = (name, fn) => { listeners[name] = fn; }; },
});
vm.runInThisContext(fs.readFileSync(process.argv[2], "utf8"), { filename: "app.js" });
for (const line of fs.readFileSync(0, "utf8").split("\n").filter(Boolean)) {
  const m = JSON.parse(line);
  listeners[m.event]({ data: JSON.stringify(m.data) });
  while (frames.length) frames.shift()(0);
}
process.stdout.write(JSON.stringify(out));
