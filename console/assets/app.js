// leasegate console: state from one server-sent event stream, no polling.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const S = { ledgerChanged: "", owners: [], leases: new Map(), contentions: [], blockers: [], ungated: [], gitLock: {}, seq: 0,
    skew: 0, retryNs: 0, idleNs: 0, warning: "", dirty: new Set(), closed: new Set(), opened: new Set(), pending: {} };
  // window.leasegate is for tests and measurements: the last applied
  // sequence number and each ledger event's delay from commit to page.
  const probe = window.leasegate = { seq: 0, latencies: [], rendered: 0, firstPaint: 0 };

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (k === "class") e.className = attrs[k];
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
    for (const k of kids) if (k != null) e.append(k instanceof Node ? k : String(k));
    return e;
  }
  const $ = (id) => document.getElementById(id);
  const now = () => Date.now() + S.skew;
  const ms = (t) => (t ? Date.parse(t) : 0);
  function dur(msec) {
    if (msec < 0) msec = 0;
    const s = Math.floor(msec / 1000);
    if (s < 120) return s + "s";
    if (s < 7200) return Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0") + "s";
    if (s < 172800) return Math.floor(s / 3600) + "h" + String(Math.floor(s / 60) % 60).padStart(2, "0") + "m";
    return Math.floor(s / 86400) + "d" + (Math.floor(s / 3600) % 24) + "h";
  }
  const clock = (t) => new Date(ms(t)).toLocaleTimeString();
  const since = (t) => el("span", { class: "since", "data-since": ms(t) }, dur(now() - ms(t)));
  const until = (t) => el("span", { class: "countdown", "data-until": ms(t) }, dur(ms(t) - now()));
  const badge = (cls, text) => el("span", { class: "badge " + cls }, text || cls);
  const pathLink = (p) => el("button", { type: "button", class: "pathlink", "data-path": p, onclick: () => history(p) }, p);
  function fill(id, nodes, countId, n) {
    const box = $(id);
    box.replaceChildren(...(nodes.length ? nodes : [el("p", { class: "empty" }, "none")]));
    if (countId) $(countId).textContent = n;
  }

  // --- state from the stream ---
  function snapshot(st, withLeases) {
    S.skew = ms(st.now) - Date.now();
    S.owners = st.owners || []; S.contentions = st.contentions || []; S.blockers = st.blockers || [];
    S.ungated = st.ungated || []; S.seq = Math.max(S.seq, st.last_seq || 0);
    S.retryNs = st.retry_after_ns; S.idleNs = st.idle_after_ns; S.warning = st.ledger_warning || "";
    S.gitLock = st.git_lock_notes || {}; S.wentBack = st.went_back_summary || "";
    if (withLeases) {
      S.ledgerChanged = "";
      S.leases = new Map((st.leases || []).map((l) => [l.id, l]));
      S.dirty.add("leases");
    }
    ["owners", "contention", "blockers", "ungated", "summary", "warnings"].forEach((k) => S.dirty.add(k));
    schedule();
  }
  function ledger(e) {
    S.seq = e.seq;
    switch (e.type) {
      case "lease.granted": S.leases.set(e.lease.id, e.lease); addLease(e.lease); break;
      case "lease.narrowed": S.leases.set(e.lease.id, e.lease); dropLease(e.lease_id); addLease(e.lease); break;
      case "lease.renewed": {
        const l = S.leases.get(e.lease_id);
        if (l) { l.expires_at = e.expires_at; dropLease(l.id); addLease(l); }
        break;
      }
      case "lease.released": case "lease.completed": case "lease.expired":
      case "lease.evicted": case "lease.reclaimed": S.leases.delete(e.lease_id); dropLease(e.lease_id); break;
    }
    S.pending[e.seq] = ms(e.at);
    logEvent(e);
    S.dirty.add("summary");
    schedule();
  }
  let frame = 0;
  function schedule() { if (!frame) frame = requestAnimationFrame(render); }
  function render() {
    frame = 0;
    const d = S.dirty; S.dirty = new Set();
    if (d.has("leases")) renderLeases();
    if (d.has("owners")) renderOwners();
    if (d.has("contention")) renderContention();
    if (d.has("blockers")) renderBlockers();
    if (d.has("ungated")) renderUngated();
    if (d.has("summary")) renderSummary();
    if (d.has("warnings")) renderWarnings();
    const t = Date.now();
    for (const seq in S.pending) probe.latencies.push(t - S.pending[seq]);
    S.pending = {};
    probe.seq = S.seq; probe.rendered++;
    // The frame after the first render with a snapshot is its first paint
    // (ms since navigation started).
    if (!probe.firstPaint && d.has("leases")) requestAnimationFrame(() => { probe.firstPaint = performance.now(); });
    document.body.dataset.seq = S.seq;
  }

  // --- views ---
  function renderSummary() {
    const leases = S.leases.size;
    $("summary").textContent = `${S.owners.length} owners · ${leases} leases · ${S.blockers.length} blockers · ledger #${S.seq}`;
  }
  function renderWarnings() {
    const w = [];
    if (S.warning) w.push(el("div", { class: "ledger-warning" }, "Ledger degraded: " + S.warning));
    if (S.wentBack) w.push(el("div", { class: "ledger-warning", "data-went-back": "" }, badge("wentback", "leases lost"), " " + S.wentBack));
    if (S.ledgerChanged) w.push(el("div", { class: "ledger-warning", "data-ledger-changed": "" }, "Another ledger: " + S.ledgerChanged));
    if (S.overflow) w.push(el("div", { class: "overflow" }, "Event stream interrupted, the page resynchronises: " + S.overflow));
    $("warnings").replaceChildren(...w);
  }
  function renderOwners() {
    const rows = S.owners.map((o) => {
      const live = o.liveness || {};
      const idle = o.windows && o.windows.idle ? o.windows.idle.after_ns : S.idleNs;
      const stop = o.stopped_at ? el("div", null, "stop-idle release in ", until(new Date(ms(o.stopped_at) + idle / 1e6).toISOString())) : null;
      return el("tr", { "data-owner": o.name },
        el("td", null, el("b", null, o.name), el("div", { class: "pid" }, "pid " + (o.seen_pid || o.pid || "?"))),
        el("td", null, badge(live.status || "unknown"), stop,
          el("ul", { class: "evidence" }, ...(live.evidence || []).map((x) => el("li", null, x)))),
        el("td", null, o.leases),
        el("td", null, o.last_activity ? since(o.last_activity) : "—"),
        el("td", null, since(o.registered_at)));
    });
    const head = el("tr", null, ...["owner", "liveness and evidence", "leases", "last activity", "registered"].map((h) => el("th", null, h)));
    fill("owners", rows.length ? [el("table", { class: "owners" }, el("thead", null, head), el("tbody", null, ...rows))] : [], "owners-count", rows.length);
  }
  // gitLockNote says that a held write's process holds git's lock (every
  // other git in the repository fails meanwhile) and the fastest way out,
  // as the console worded it; null when it holds none.
  function gitLockNote(id, lock) {
    const note = S.gitLock[id];
    return note ? el("div", { class: "gitlock", "data-git-lock": lock }, badge("gitlock", "git lock"), " ", note) : null;
  }
  function renderContention() {
    const rows = S.contentions.flatMap((c) => {
      const row = el("tr", { "data-contention": c.id },
        el("td", null, el("b", null, c.requester)),
        el("td", null, ...c.paths.slice(0, 3).map((p) => el("div", null, pathLink(p)))),
        el("td", null, c.holder.owner.name, " ", badge(c.holder.kind)),
        el("td", null, "retry in ", until(c.retry_at)));
      const note = gitLockNote(c.id, c.holds_git_lock);
      return note ? [row, el("tr", { "data-contention-git-lock": c.id }, el("td", { colspan: 4 }, note))] : [row];
    });
    const head = el("tr", null, ...["requester", "paths", "held by", "one retry"].map((h) => el("th", null, h)));
    fill("contention", rows.length ? [el("table", null, el("thead", null, head), el("tbody", null, ...rows))] : [], "contention-count", S.contentions.length);
  }
  // Blocker cards are kept by id, so a confirmation in progress survives
  // the state updates that other events bring; a card is drawn again when
  // what it shows of now changes (the holder's lease ended, the file came
  // free, the steps), unless a confirmation is in progress on it.
  const cards = new Map();
  const nowKey = (b) => { const n = b.holder_now || {}; return JSON.stringify([n.state, n.holds, n.ended_at, b.free_since, b.how_to_resolve]); };
  function renderBlockers() {
    const open = new Set(S.blockers.map((b) => b.id));
    for (const id of cards.keys()) if (!open.has(id)) cards.delete(id);
    for (const b of S.blockers) {
      const c = cards.get(b.id), key = nowKey(b);
      if (!c || (c.key !== key && !c.node.querySelector(".confirming"))) cards.set(b.id, { key, node: blockerCard(b) });
    }
    fill("blockers", S.blockers.map((b) => cards.get(b.id).node), "blockers-count", S.blockers.length);
  }
  // holderNow says whether the holder's lease still holds the file, or how
  // it ended, as the coordinator read it.
  function holderNow(b) {
    const n = b.holder_now;
    if (!n) return null;
    const what = n.holds ? "holds the file" : "lease " + n.state + (n.ended_at ? " at " + clock(n.ended_at) : "") + (n.ended_by ? " by " + n.ended_by : "");
    return el("dd", { "data-holder-now": n.state }, badge(n.holds ? "holds" : n.state), " ", what,
      n.evidence ? ": " + n.evidence : "", b.free_since ? "; the file is free since " + clock(b.free_since) : "", ` (from ${n.source})`);
  }
  function blockerCard(b) {
    const h = b.holder, lv = h.liveness || {};
    return el("div", { class: "blocker", "data-blocker-id": b.id },
      el("h3", null, b.requester.name, " blocked on ", pathLink(b.path), " (", b.op, ")"),
      gitLockNote(b.id, b.holds_git_lock),
      el("dl", null,
        el("dt", null, "held by"), el("dd", null, h.owner.name, " ", badge(h.kind), " lease ", el("code", null, h.lease_id), " token ", h.fencing_token),
        el("dt", null, "holder at the retry"), el("dd", null, badge(lv.status || "unknown"), " ", (lv.evidence || []).join("; ")),
        b.holder_now ? el("dt", null, "holder now") : null, holderNow(b),
        el("dt", null, "held for"), el("dd", null, since(h.acquired_at)),
        el("dt", null, "denied"), el("dd", null, clock(b.first_denied_at), " (", b.reason, "), retried ", clock(b.retried_at), " (", b.retry_result, ")"),
        el("dt", null, "retry window"), el("dd", null, dur(b.retry_interval_ns / 1e6), b.retry_from ? ` (${b.retry_from})` : ""),
        (b.paths || []).length > 1 ? el("dt", null, "all paths") : null,
        (b.paths || []).length > 1 ? el("dd", null, ...b.paths.map((p) => el("div", null, pathLink(p)))) : null,
        h.same_file_as ? el("dt", null, "same file as") : null, h.same_file_as ? el("dd", null, el("code", null, h.same_file_as)) : null,
        el("dt", null, "blocker"), el("dd", null, el("code", null, b.id))),
      el("pre", null, (b.how_to_resolve || []).join("\n")),
      actions(b));
  }
  function actions(b) {
    const box = el("div", { class: "actions" });
    const ask = (action) => {
      const note = el("input", { type: "text", placeholder: "note for the record (optional)", "aria-label": "note" });
      box.replaceChildren(el("div", { class: "confirming" },
        el("span", null, `${action} blocker of ${b.requester.name} on ${b.path}?`), note,
        el("button", { type: "button", class: "confirm", "data-confirm": action, onclick: () => resolve(b, action, note.value, box) }, "Confirm " + action),
        el("button", { type: "button", class: "cancel", onclick: () => box.replaceChildren(...buttons()) }, "Cancel")));
    };
    const buttons = () => ["retry", "deny", "abort"].map((a) => el("button", { type: "button", class: a, "data-action": a, onclick: () => ask(a) }, a[0].toUpperCase() + a.slice(1)));
    box.append(...buttons());
    return box;
  }
  async function resolve(b, action, note, box) {
    box.replaceChildren(el("span", { class: "result" }, "resolving…"));
    const r = await fetch(`/blockers/${encodeURIComponent(b.id)}/resolve`, { method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify({ action, note }) });
    const text = await r.text();
    let msg = text;
    try { msg = JSON.parse(text).message || text; } catch (e) { /* a plain text error */ }
    const line = `${action} ${b.requester.name} on ${b.path}: ${r.ok ? "" : "refused: "}${msg}`;
    box.replaceChildren(el("span", { class: "result" }, line));
    $("toast").replaceChildren(el("div", { class: r.ok ? "ok" : "error", "data-result": r.ok ? "ok" : "error" }, line));
  }
  function renderUngated() {
    const rows = S.ungated.slice().reverse().map((u) => el("tr", u.not_recorded ? { class: "not-recorded", "data-not-recorded": "" } : null,
      el("td", null, pathLink(u.path)), el("td", null, u.op), el("td", null, u.reporter || "—"),
      el("td", null, u.collided_with ? "collided with " + u.collided_with.owner.name : "", u.not_recorded ? notRecorded() : null),
      el("td", null, clock(u.at))));
    fill("ungated", rows.length ? [el("table", null, el("tbody", null, ...rows))] : [], "ungated-count", rows.length);
  }
  // notRecorded marks an ungated write the ledger refused to record: the
  // coordinator's memory is the only record of it.
  const notRecorded = () => el("div", { class: "why" }, badge("notrecorded", "not recorded"),
    " the ledger refused it (degraded: see the warning above); shown until the coordinator stops, then gone");
  // The lease tree is built as one HTML string from a snapshot (10,000
  // leases paint in one parse) and then changed leaf by leaf by the lease
  // events; clicks and toggles are handled once, on the container.
  const esc = (v) => String(v).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
  // A new directory's lease is one leaf, its directory's: narrowed, it
  // holds every entry there (up to 4,096), which would each be a leaf.
  function leafPaths(l) {
    if (l.scope.type === "full") return ["**"];
    const paths = l.scope.paths || [];
    return l.new_dir && paths.length > 1 ? paths.slice(0, 1) : paths;
  }
  function newDirBadge(l) {
    const n = (l.scope.paths || []).length;
    return l.new_dir ? `<span class="badge newdir">new directory${n > 1 ? ` · narrowed to ${n} paths` : ""}</span>` : "";
  }
  function leafHTML(p, l) {
    const name = p.slice(p.lastIndexOf("/") + 1);
    const exp = l.expires_at ? ` · expires in <span data-until="${ms(l.expires_at)}">${dur(ms(l.expires_at) - now())}</span>` : "";
    return `<li class="leaf" data-path="${esc(p)}" data-lease="${esc(l.id)}"><button type="button" class="path">${esc(name)}</button>` +
      `<b>${esc(l.owner.name)}</b><span class="badge ${esc(l.kind)}">${esc(l.kind)}</span>${newDirBadge(l)}` +
      `<span class="meta">token ${l.fencing_token} · held <span data-since="${ms(l.acquired_at)}">${dur(now() - ms(l.acquired_at))}</span>${exp}</span></li>`;
  }
  // Past lazyAbove leases, directories start closed and are built when
  // opened, so the first paint does not wait for leaves nobody sees.
  const lazyAbove = 1000;
  function dirHTML(path, name, inner, count, lazy) {
    const open = !lazy && !S.closed.has(path);
    return `<li><details data-dir="${esc(path)}"${open ? " open" : ""}${lazy ? ' data-lazy="1"' : ""}>` +
      `<summary>${esc(name)}/ <span class="meta">${count}</span></summary><ul>${inner}</ul></details></li>`;
  }
  function leaseTree(prefix) {
    const root = { dirs: new Map(), leaves: [], count: 0 };
    for (const l of S.leases.values()) {
      for (const p of leafPaths(l)) {
        if (!p.startsWith(prefix)) continue;
        const parts = p.slice(prefix.length).split("/");
        let n = root;
        n.count++;
        for (const dir of parts.slice(0, -1)) {
          if (!n.dirs.has(dir)) n.dirs.set(dir, { dirs: new Map(), leaves: [], count: 0 });
          n = n.dirs.get(dir);
          n.count++;
        }
        n.leaves.push([p, l]);
      }
    }
    return root;
  }
  function treeHTML(n, prefix) {
    const lazy = S.leases.size > lazyAbove;
    return [...n.dirs].sort((a, b) => a[0].localeCompare(b[0])).map(([name, sub]) => {
      const path = prefix + name + "/";
      const closed = lazy && !S.opened.has(path);
      return dirHTML(path, name, closed ? "" : treeHTML(sub, path), sub.count, closed);
    }).join("") + n.leaves.sort((a, b) => a[0].localeCompare(b[0])).map(([p, l]) => leafHTML(p, l)).join("");
  }
  function renderLeases() {
    const built = performance.now();
    $("leases").innerHTML = S.leases.size ? `<ul>${treeHTML(leaseTree(""), "")}</ul>` : `<p class="empty">none</p>`;
    if (probe.marks && !probe.marks.built) Object.assign(probe.marks, { built, inserted: performance.now() });
    $("leases-count").textContent = S.leases.size;
  }
  // dirList returns the <ul> of directory path ("" for the root), making
  // the directories on the way; null when one of them is not built yet.
  function dirList(path) {
    const box = $("leases");
    let ul = box.firstElementChild;
    if (!ul || ul.tagName !== "UL") { box.innerHTML = "<ul></ul>"; ul = box.firstElementChild; }
    let prefix = "";
    for (const name of path.split("/").filter(Boolean)) {
      prefix += name + "/";
      let d = box.querySelector(`details[data-dir="${CSS.escape(prefix)}"]`);
      if (!d) {
        ul.insertAdjacentHTML("afterbegin", dirHTML(prefix, name, "", "", false));
        d = ul.firstElementChild.firstElementChild;
      }
      if (d.dataset.lazy) return null;
      ul = d.lastElementChild;
    }
    return ul;
  }
  function addLease(l) {
    for (const p of leafPaths(l)) {
      const ul = dirList(p.slice(0, p.lastIndexOf("/") + 1));
      if (ul) ul.insertAdjacentHTML("beforeend", leafHTML(p, l));
    }
    $("leases-count").textContent = S.leases.size;
  }
  function dropLease(id) {
    for (const li of $("leases").querySelectorAll(`li.leaf[data-lease="${CSS.escape(id)}"]`)) li.remove();
    $("leases-count").textContent = S.leases.size;
    if (!S.leases.size) $("leases").innerHTML = `<p class="empty">none</p>`;
  }
  $("leases").addEventListener("click", (ev) => {
    const b = ev.target.closest("button.path");
    if (b) history(b.parentElement.dataset.path);
  });
  $("leases").addEventListener("toggle", (ev) => {
    const d = ev.target, path = d.dataset.dir;
    if (!path) return;
    if (d.open) { S.closed.delete(path); S.opened.add(path); } else { S.closed.add(path); S.opened.delete(path); }
    if (d.open && d.dataset.lazy) {
      delete d.dataset.lazy;
      d.lastElementChild.innerHTML = treeHTML(leaseTree(path), path);
    }
  }, true);
  function logEvent(e) {
    const what = [e.actor, e.path, e.lease_id, e.reason].filter(Boolean).join(" · ");
    const log = $("log");
    log.prepend(el("li", { "data-seq": e.seq }, el("span", { class: "t" }, clock(e.at) + " "), el("b", null, e.type), " ", what));
    while (log.childElementCount > 200) log.lastChild.remove();
  }
  async function history(p) {
    $("history-path").textContent = p;
    $("history-events").replaceChildren(el("li", null, "loading…"));
    $("history").hidden = false;
    const r = await fetch("/history?path=" + encodeURIComponent(p));
    if (!r.ok) { $("history-events").replaceChildren(el("li", null, await r.text())); return; }
    const h = await r.json();
    $("history-events").replaceChildren(...(h.events || []).map((e) => el("li", null,
      el("span", { class: "t" }, new Date(ms(e.at)).toLocaleString() + " "), el("b", null, e.type), " ",
      [e.actor, e.lease_id, e.reason].filter(Boolean).join(" · "), e.by ? " (by " + (e.by.name || JSON.stringify(e.by)) + ")" : "")));
    if (!h.events || !h.events.length) $("history-events").replaceChildren(el("li", null, "no events"));
  }
  $("history-close").addEventListener("click", () => { $("history").hidden = true; });
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") $("history").hidden = true; });

  // Countdowns and ages tick without touching the state: once a second
  // outside the lease tree, every ten seconds in it (10,000 leaves).
  function tick(scope) {
    const t = now();
    for (const e of document.querySelectorAll(scope.map((s) => s + " [data-until]").join())) e.textContent = dur(+e.dataset.until - t);
    for (const e of document.querySelectorAll(scope.map((s) => s + " [data-since]").join())) e.textContent = dur(t - +e.dataset.since);
  }
  setInterval(() => tick(["#blockers", "#contention", "#owners"]), 1000);
  setInterval(() => tick(["#leases"]), 10000);

  // --- the stream ---
  const es = new EventSource("/events");
  const on = (name, fn) => es.addEventListener(name, (m) => fn(JSON.parse(m.data)));
  es.onopen = () => { $("conn").textContent = "live"; $("conn").className = "conn on"; };
  es.onerror = () => { $("conn").textContent = "reconnecting"; $("conn").className = "conn off"; };
  es.addEventListener("snapshot", (m) => {
    if (!probe.marks) probe.marks = { received: performance.now(), bytes: m.data.length };
    const st = JSON.parse(m.data);
    if (!probe.marks.parsed) probe.marks.parsed = performance.now();
    snapshot(st, true);
  });
  on("state", (st) => snapshot(st, false));
  on("ledger", ledger);
  on("resync", (x) => { S.overflow = new Date().toLocaleTimeString() + ": " + x.why; S.dirty.add("warnings"); schedule(); });
  on("ledger-changed", (x) => {
    S.ledgerChanged = x.error; S.blockers = []; S.contentions = [];
    ["warnings", "blockers", "contention"].forEach((k) => S.dirty.add(k)); schedule();
    $("conn").textContent = "another ledger"; $("conn").className = "conn off";
  });
  on("gone", (x) => { $("conn").textContent = "coordinator unreachable: " + x.error; $("conn").className = "conn off"; });
})();
