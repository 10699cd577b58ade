// volery dashboard: plain JavaScript, no framework, no network but the
// node's own API (volery-api(7)).  Every string from the node goes into
// the page as text, never as HTML.
"use strict";

const state = { nodes: [], tasks: new Map(), workflows: [], queue: [],
  live: false, locked: false, told: new Map() };
let drawQueued = false;

// An element: h("td", {class: "x"}, "text", child...).
function h(tag, attrs, ...kids) {
  const e = document.createElementNS(
    tag === "svg" || attrs && attrs.svg ? "http://www.w3.org/2000/svg" :
    "http://www.w3.org/1999/xhtml", tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "svg" || v === undefined || v === null) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids.flat(Infinity)) {
    if (k === null || k === undefined) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return e;
}
const s = (tag, attrs, ...kids) => h(tag, Object.assign({svg: 1}, attrs),
  ...kids);

async function api(path, options) {
  const r = await fetch(path, options);
  const body = await r.json().catch(() => ({error: "not JSON"}));
  if (!r.ok) throw Object.assign(new Error(body.error || r.statusText),
    {body, status: r.status});
  return body;
}

function post(path, body) {
  return api(path, {method: "POST", headers: {"Content-Type":
    "application/json"}, body: JSON.stringify(body || {})});
}

function redraw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => { drawQueued = false; route(); });
}

async function loadAll() {
  const [nodes, tasks, workflows, queue] = await Promise.all([
    api("/api/nodes"), api("/api/tasks"), api("/api/workflows"),
    api("/api/queue")]);
  state.nodes = nodes;
  state.queue = queue;
  state.tasks = new Map(tasks.map(t => [t.uuid, received(t)]));
  state.workflows = workflows;
  redraw();
}

// The queue's order is the node's (priorities, ageing, workflows): asked
// again after task events, at most every 300 ms.
let queueTimer = null;
function queueChanged() {
  if (queueTimer) return;
  queueTimer = setTimeout(async () => {
    queueTimer = null;
    try { state.queue = await api("/api/queue"); redraw(); } catch (e) {}
  }, 300);
}


let events = null;
function listen() {
  const es = events = new EventSource("/api/events");
  es.onopen = () => { state.live = true; setLive(); loadAll(); };
  es.onerror = () => { state.live = false; setLive(); };
  // The node says when a card changes (at most every 250 ms).
  es.addEventListener("nodes", ev => {
    state.nodes = JSON.parse(ev.data);
    redraw();
  });
  es.addEventListener("task", ev => {
    const t = received(JSON.parse(ev.data));
    state.tasks.set(t.uuid, t);
    recountWorkflow(t.workflow);
    queueChanged();
    statsChanged();
    redraw();
  });
}

// A page left for another (kept in the browser's back-forward cache)
// gives its stream back: browsers allow six connections to a host.
window.addEventListener("pagehide", () => { if (events) events.close(); });
window.addEventListener("pageshow", ev => { if (ev.persisted) listen(); });

function setLive() {
  const e = document.getElementById("live");
  e.textContent = state.live ? "live" : "reconnecting…";
  e.className = state.live ? "live on" : "live";
}

// A workflow's summary, again from the tasks it has here.
function recountWorkflow(uuid) {
  const tasks = [...state.tasks.values()].filter(t => t.workflow === uuid);
  let wf = state.workflows.find(w => w.uuid === uuid);
  if (!wf) {
    wf = {uuid, name: tasks.length ? tasks[0].name : "?", submit_ms:
      tasks.length ? tasks[0].submit_ms : 0};
    state.workflows.unshift(wf);
  }
  wf.tasks = tasks.length;
  wf.states = {};
  for (const t of tasks) wf.states[t.shown_state] =
    (wf.states[t.shown_state] || 0) + 1;
  wf.progress = tasks.length ? Math.floor(tasks.reduce((a, t) =>
    a + t.progress, 0) / tasks.length) : 0;
  wf.done = tasks.every(t => ["Terminated", "Cancelled", "Failed"]
    .includes(t.state));
}

const final = t => ["Terminated", "Cancelled", "Failed"].includes(t.state);
const shortId = u => u.slice(0, 8);
function dur(ms) {
  if (ms === null || ms === undefined) return "–";
  if (ms < 1000) return ms + " ms";
  const sec = ms / 1000;
  if (sec < 60) return sec.toFixed(1) + " s";
  const m = Math.floor(sec / 60);
  return m < 60 ? m + "m" + String(Math.round(sec % 60)).padStart(2, "0") +
    "s" : Math.floor(m / 60) + "h" + String(m % 60).padStart(2, "0") + "m";
}
const when = ms => ms ? new Date(ms).toLocaleTimeString() : "–";
// A time of day to the minute; with the weekday if not within a day.
const hm = ms => new Date(ms).toLocaleString([], Object.assign({hour:
  "2-digit", minute: "2-digit"}, ms - Date.now() > 86400000 ?
  {weekday: "short"} : {}));

// A task as the node sent it, with when it should end by our clock
// (ends_in_ms is from the moment it was sent).
function received(t) {
  t.ends_at = t.ends_in_ms !== null && t.ends_in_ms !== undefined ?
    Date.now() + t.ends_in_ms : null;
  return t;
}

// What an end leaves of a deadline, as volery tasks says it: "20m to
// spare", "45s late"; "" without both.
function slack(deadline, end) {
  if (!deadline || !end) return "";
  const left = deadline - end, a = Math.abs(left);
  const span = a < 120000 ? Math.floor(a / 1000) + "s" : a < 7200000 ?
    Math.floor(a / 60000) + "m" : (a / 3600000).toFixed(1) + "h";
  return span + (left >= 0 ? " to spare" : " late");
}

// A deadline and how it stands: the expected end while there is work
// left, else whether the last end met it.
function deadlineText(deadline, tasks) {
  const open = tasks.filter(t => !final(t));
  if (!open.length) {
    const end = Math.max(...tasks.map(t => t.end_ms || 0));
    return when(deadline) + ": " + (end <= deadline ? "met, " : "missed, ") +
      slack(deadline, end);
  }
  if (open.some(t => t.ends_at === null))
    return when(deadline) + ": no forecast yet";
  const end = Math.max(...open.map(t => t.ends_at));
  return when(deadline) + ": expected to end " + when(end) + ", " +
    slack(deadline, end);
}

// What the node forecast when it took the deadline (volery run
// --deadline says the same), shown on the page the form goes to.
function toldText(r) {
  if (!r.deadline_ms) return null;
  const by = when(r.deadline_ms);
  if (r.forecast_ms === null) return "No forecast for the deadline " + by +
    ": no run of this program ended yet, or no node takes tasks now.";
  return r.forecast_ms <= r.deadline_ms ? "Expected to end " +
    when(r.forecast_ms) + " (deadline " + by + ")." : "Cannot meet " + by +
    ": expected to end " + when(r.forecast_ms) + "; scheduled all the same," +
    " after the work that can still meet its deadline.";
}

function chip(text, color) {
  return h("span", {class: "chip", style: "background:var(--" + color +
    ", var(--muted))"}, text);
}

function bar(t) {
  return h("div", {class: "bar", "data-state": t.shown_state,
    title: t.progress + "%"},
    h("span", {style: "width:" + t.progress + "%"}));
}

function taskLink(t) {
  return h("a", {href: "#/task/" + t.uuid}, t.array_index !== null ?
    t.name + "[" + t.array_index + "]" : t.name);
}

// The pool: a card per workstation, its state and what runs on it.
function poolGrid() {
  if (!state.nodes.length) return h("p", {class: "empty"}, "No node.");
  // This node first, then by name: cards keep their places.
  const nodes = [...state.nodes].sort((a, b) => (b.self - a.self) ||
    a.name.localeCompare(b.name));
  return h("div", {class: "grid", id: "pool"}, nodes.map(n => {
    const runs = [...state.tasks.values()].filter(t => t.node === n.name &&
      t.state === "Running");
    return h("div", {class: "card node", "data-node": n.name,
      "data-role": n.role, "data-state": n.state},
      h("h3", {}, n.name, n.role === "master" ?
        h("span", {class: "badge master"}, "master") : null,
        n.self ? h("span", {class: "badge"}, "this node") : null),
      h("div", {}, chip(n.state, n.state), " ",
        h("span", {class: "meta"}, n.free + "/" + n.slots + " slots free")),
      h("div", {class: "meta"}, n.cores ? n.cores + " cores, " +
        (n.memory_mb / 1024).toFixed(1) + " GB" : "", n.tags.length ?
        " · " + n.tags.join(", ") : ""),
      n.window ? h("div", {class: "meta window"}, n.window.opens_ms <=
        Date.now() ? "in its batch window until " + hm(n.window.closes_ms) :
        "batch window " + hm(n.window.opens_ms) + "–" +
        hm(n.window.closes_ms)) : null,
      n.quarantine ? h("div", {class: "meta quarantine"}, "quarantined: " +
        n.quarantine.why + "; takes no tasks until " +
        new Date(n.quarantine.until_ms).toLocaleString()) : null,
      runs.map(t => h("div", {style: "margin-top:.4em"}, taskLink(t), " ",
        h("span", {class: "pct"}, t.progress + "%"), bar(t))));
  }));
}

/* Who looks (GET /api/login): a task's cancel is offered to its owner
 * and to those who may touch every task; to everyone while the node
 * could not say who looks (it checks the cancel itself anyway). */
let viewer = { user: "", admin: true };
const mayTouch = t => viewer.admin || !viewer.user || t.user === viewer.user;

function cancelButton(t) {
  if (final(t) || t.shown_state === "Unconfirmed" || !mayTouch(t))
    return null;
  return h("button", {class: "danger", "data-cancel": t.uuid, onclick: async ev => {
      ev.preventDefault();
      if (!confirm("Cancel " + t.name + " (" + shortId(t.uuid) +
          ") and every task that depends on it?")) return;
      try { await post("/api/tasks/" + t.uuid + "/cancel"); }
      catch (e) { alert("Not cancelled: " + e.message); }
    }}, "Cancel");
}

function tasksTable(tasks, cols, id) {
  if (!tasks.length) return h("p", {class: "empty", id}, "None.");
  const all = {
    name: ["Task", t => taskLink(t)],
    state: ["State", t => chip(t.shown_state, t.shown_state)],
    bar: ["Progress", t => h("div", {style: "display:flex;gap:.5em;" +
      "align-items:center"}, h("span", {class: "pct"}, t.progress + "%"),
      h("div", {style: "flex:1"}, bar(t)))],
    node: ["Node", t => t.node || "–"],
    pos: ["#", t => t.position],
    prio: ["Priority", t => [t.priority, t.aged ? h("span", {class: "badge",
      title: "ready longer than the ageing delay: runs as interactive"},
      "aged") : t.urgent && t.priority !== "interactive" ? h("span", {class: "badge", title: "its " +
      "workflow has an interactive task"}, "urgent") : null]],
    waiting: ["Why it waits", t => t.waiting || ""],
    submit: ["Submitted", t => when(t.submit_ms)],
    eta: ["Ends in", t => [dur(t.ends_in_ms), t.deadline_ms && t.ends_at ?
      h("span", {class: "meta"}, ", " + slack(t.deadline_ms, t.ends_at)) :
      null]],
    reason: ["Reason", t => t.reason || ""],
    cancel: ["", t => cancelButton(t)],
  };
  return h("table", {id}, h("tr", {}, cols.map(c => h("th", {}, all[c][0]))),
    tasks.map(t => h("tr", {"data-task": t.uuid, "data-state": t.state},
      cols.map(c => h("td", {}, all[c][1](t))))));
}

function workflowsTable(list) {
  if (!list.length) return h("p", {class: "empty"}, "No workflow.");
  return h("table", {id: "workflows"}, h("tr", {}, h("th", {}, "Workflow"),
    h("th", {}, "Tasks"), h("th", {}, "Progress"), h("th",
    {class: "hide-narrow"}, "Submitted")),
    list.map(w => h("tr", {"data-workflow": w.uuid},
      h("td", {}, h("a", {href: "#/workflow/" + w.uuid}, w.name + " " +
        shortId(w.uuid))),
      h("td", {}, Object.entries(w.states || {}).map(([k, v]) =>
        [chip(v + " " + k, k), " "])),
      h("td", {}, bar({progress: w.progress, shown_state:
        (w.states || {}).Failed ? "Failed" : w.done ? "Terminated" :
        "Running"})),
      h("td", {class: "hide-narrow"}, when(w.submit_ms)))));
}

function overview() {
  const tasks = [...state.tasks.values()];
  const running = tasks.filter(t => t.state === "Running");
  const blocked = tasks.filter(t => t.state === "Submitted");
  const failed = tasks.filter(t => t.state === "Failed").slice(-10);
  return [h("h2", {}, "Workstations"), poolGrid(),
    h("h2", {}, "Running"), tasksTable(running,
      ["name", "node", "bar", "eta", "cancel"]),
    h("h2", {}, "Queue, in the order the pool takes it"),
    tasksTable(state.queue, ["pos", "name", "prio", "waiting", "submit",
      "cancel"], "queue"),
    blocked.length ? [h("h2", {}, "Waiting for their inputs"),
      tasksTable(blocked.slice(0, 50), ["name", "prio", "submit",
        "cancel"])] : null,
    h("h2", {}, "Workflows"), workflowsTable(state.workflows.slice(0, 20)),
    h("h2", {}, "Failed"), tasksTable(failed, ["name", "node", "reason"])];
}

// A workflow's tasks as a DAG: columns by depth, edges labelled by the
// output they carry.
function dag(tasks) {
  const byId = new Map(tasks.map(t => [t.uuid, t]));
  const depth = new Map();
  const depthOf = (t, seen = new Set()) => {
    if (depth.has(t.uuid)) return depth.get(t.uuid);
    if (seen.has(t.uuid)) return 0;
    seen.add(t.uuid);
    let d = 0;
    for (const i of t.inputs) if (byId.has(i.task))
      d = Math.max(d, depthOf(byId.get(i.task), seen) + 1);
    depth.set(t.uuid, d);
    return d;
  };
  tasks.forEach(t => depthOf(t));
  const cols = [];
  for (const t of tasks) (cols[depth.get(t.uuid)] ||= []).push(t);
  const W = 150, H = 40, GX = 80, GY = 22;
  const pos = new Map();
  cols.forEach((col, x) => col.forEach((t, y) =>
    pos.set(t.uuid, {x: 20 + x * (W + GX), y: 20 + y * (H + GY)})));
  const width = 40 + cols.length * (W + GX) - GX;
  const height = 40 + Math.max(...cols.map(c => c.length)) * (H + GY) - GY;
  // One edge per pair of tasks, labelled by the outputs it carries.
  const pairs = new Map();
  for (const t of tasks) for (const i of t.inputs) {
    if (!pos.has(i.task)) continue;
    const k = i.task + ">" + t.uuid;
    if (!pairs.has(k)) pairs.set(k, {from: i.task, to: t.uuid, outs: []});
    pairs.get(k).outs.push(i.output);
  }
  const edges = [], labels = [];
  for (const e of pairs.values()) {
    const a = pos.get(e.from), b = pos.get(e.to);
    const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
    edges.push(s("path", {class: "edge", d: `M${x1},${y1} C${x1 + GX / 2},` +
      `${y1} ${x2 - GX / 2},${y2} ${x2},${y2}`}));
    labels.push(s("text", {class: "edge-label", x: (x1 + x2) / 2,
      y: (y1 + y2) / 2 - 4, "text-anchor": "middle"}, e.outs.join(",")));
  }
  const boxes = tasks.map(t => {
    const p = pos.get(t.uuid);
    return s("a", {href: "#/task/" + t.uuid},
      s("g", {"data-task": t.uuid, "data-state": t.shown_state},
        s("rect", {x: p.x, y: p.y, width: W, height: H, rx: 6,
          fill: "var(--" + t.shown_state + ")"}),
        s("rect", {x: p.x, y: p.y + H - 4, width: W * t.progress / 100,
          height: 4, fill: "rgba(255,255,255,.6)"}),
        s("text", {x: p.x + 8, y: p.y + 17}, t.name),
        s("text", {x: p.x + 8, y: p.y + 31, style: "font-size:10px"},
          t.shown_state + " " + t.progress + "%")));
  });
  return h("div", {class: "dag", id: "dag"}, s("svg", {width, height,
    viewBox: `0 0 ${width} ${height}`}, edges, labels, boxes));
}

async function workflowView(uuid) {
  let tasks = [...state.tasks.values()].filter(t => t.workflow === uuid);
  if (!tasks.length) {
    try { tasks = await api("/api/tasks?workflow=" + uuid); }
    catch (e) { return [h("p", {class: "empty"}, e.message)]; }
    tasks.forEach(t => state.tasks.set(t.uuid, received(t)));
  }
  tasks.sort((a, b) => a.submit_ms - b.submit_ms);
  const due = tasks.find(t => t.deadline_ms);
  return [h("h2", {}, "Workflow " + (tasks[0] ? tasks[0].name : "") + " " +
    uuid), told(uuid), due ? h("p", {id: "wf-deadline"}, "Deadline " +
    deadlineText(due.deadline_ms, tasks)) : null, dag(tasks),
    h("h2", {}, "Tasks"),
    tasksTable(tasks, ["name", "state", "bar", "node", "eta", "cancel"])];
}

async function taskView(uuid) {
  let t = state.tasks.get(uuid);
  if (!t) {
    try { t = await api("/api/tasks/" + uuid); }
    catch (e) { return [h("p", {class: "empty"}, e.message)]; }
  }
  const row = (k, v) => [h("dt", {}, k), h("dd", {}, v)];
  return [h("h2", {}, t.name + " " + t.uuid), told(uuid),
    h("dl", {class: "kv", id: "task"},
      row("State", [chip(t.shown_state, t.shown_state), " ",
        t.progress + "%"]),
      row("Workflow", h("a", {href: "#/workflow/" + t.workflow},
        shortId(t.workflow))),
      row("Priority", t.priority), row("Node", t.node || "–"),
      row("Scheduled by", (t.scheduler || "–") + (t.user ? " for " +
        t.user : "")),
      row("Submitted", when(t.submit_ms)), row("Started", when(t.start_ms)),
      row("Ended", when(t.end_ms)), t.deadline_ms ? row("Deadline",
        deadlineText(t.deadline_ms, [t])) : null,
      row("Waited", dur(t.wait_ms)),
      row("Ran", dur(t.elapsed_ms)), row("Attempts", t.attempts +
        (t.failures ? " (" + t.failures + " failed)" : "")),
      row("Exit", t.exit_code !== null ? "status " + t.exit_code :
        t.exit_signal !== null ? "signal " + t.exit_signal : "–"),
      row("CPU, memory", dur(t.cpu_ms) + ", " + (t.maxrss_kib !== null ?
        Math.round(t.maxrss_kib / 1024) + " MB" : "–")),
      t.command ? row("Command", h("span", {class: "mono"},
        t.command.map(w => /\s/.test(w) || w === "" ? JSON.stringify(w) : w)
        .join(" "))) : row("Arguments", h("span", {class: "mono"},
        [t.path ? "-p " + t.path : "", t.params ? "-x " + t.params : ""]
        .join(" ").trim() || "–")),
      row("Inputs", t.inputs.length ? t.inputs.map(i => h("div", {},
        h("a", {href: "#/task/" + i.task}, shortId(i.task)), " output " +
        i.output + ": ", h("span", {class: "mono"}, i.dataset || "–"))) :
        "–"),
      row("Outputs", t.outputs.length ? h("span", {class: "mono"},
        t.outputs.join(" ")) : "–"),
      row("Checkpoint", t.checkpoint ? "#" + t.checkpoint.seq + ", " +
        dur(Math.max(0, Date.now() - t.checkpoint.made_ms)) + " old, " +
        t.checkpoint.bytes + " bytes, kept on " +
        t.checkpoint.kept_by.join(", ") : "–"),
      t.waiting ? row("Waiting", t.waiting) : null,
      t.reason ? row("Reason", t.reason) : null),
    h("p", {}, cancelButton(t)), h("h2", {}, "Log"), taskLog(t)];
}

// Log lines as a table: time, level, message.
function logTable(lines) {
  if (!lines.length) return h("p", {class: "empty"}, "No line.");
  return h("table", {class: "log"}, lines.map(l => h("tr",
    {"data-level": l.level || ""},
    h("td", {class: "mono nowrap"}, l.time || ""),
    h("td", {}, l.level ? chip(l.level, "log-" + l.level) : ""),
    h("td", {class: "mono"}, l.message))));
}

// A task's own log lines, fetched again only when the task changed.
const taskLogs = new Map();
function taskLog(t) {
  const key = t.shown_state + "/" + t.attempts + "/" + t.progress;
  const box = h("div", {id: "task-log"});
  const show = lines => box.replaceChildren(logTable(lines));
  const have = taskLogs.get(t.uuid);
  if (have && have.key === key) show(have.lines);
  else api("/api/log?task=" + t.uuid).then(lines => {
    taskLogs.set(t.uuid, {key, lines});
    show(lines);
  }).catch(e => box.replaceChildren(h("p", {class: "problems"},
    e.message)));
  return box;
}

// The log search box: the filters of `volery log`.
function logView() {
  const field = (id, label, attrs) => h("label", {}, label + " ",
    h("input", Object.assign({type: "text", id}, attrs)));
  const level = h("select", {id: "log-level"}, ["", "debug", "info",
    "normal", "warning", "error"].map(l => h("option", {value: l},
    l || "any")));
  const out = h("div", {id: "log-result"});
  const go = h("button", {class: "primary", id: "log-search", onclick:
    async ev => {
      ev.preventDefault();
      const q = new URLSearchParams();
      for (const k of ["regex", "task", "since", "until", "lines"]) {
        const v = document.getElementById("log-" + k).value.trim();
        if (v) q.set(k, v);
      }
      if (level.value) q.set("level", level.value);
      out.replaceChildren(h("p", {class: "empty"}, "Searching…"));
      try { out.replaceChildren(logTable(await api("/api/log?" + q))); }
      catch (e) {
        out.replaceChildren(h("div", {class: "problems"}, e.message));
      }
    }}, "Search");
  return [h("h2", {}, "Search the log"),
    h("form", {class: "filters"},
      field("log-regex", "Matching", {placeholder: "regular expression",
        size: 28}),
      h("label", {}, "Level ", level),
      field("log-task", "Task", {placeholder: "uuid", size: 36}),
      field("log-since", "Since", {placeholder: "1h ago", size: 12}),
      field("log-until", "Until", {placeholder: "now", size: 12}),
      field("log-lines", "Lines", {value: "200", size: 5}), go),
    out];
}

// Charts: plain SVG, scaled to the data, the node's numbers as they are.
const chartState = { hours: 6, data: null, timer: null, asked: 0,
  loading: false };
const hhmm = ms => new Date(ms).toLocaleTimeString([], {hour: "2-digit",
  minute: "2-digit"});

async function loadStats() {
  chartState.asked = Date.now();
  chartState.loading = true;
  try {
    chartState.data = await api("/api/stats?hours=" + chartState.hours);
  } catch (e) { chartState.data = {error: e.message}; }
  chartState.loading = false;
  redraw();
}

// After task events, at most every 5 s, while the charts are shown.
function statsChanged() {
  if (!location.hash.startsWith("#/charts") || chartState.timer) return;
  chartState.timer = setTimeout(() => { chartState.timer = null;
    loadStats(); }, Math.max(0, 5000 - (Date.now() - chartState.asked)));
}

// One chart: an x axis of time buckets, bars (stacked) or lines.
function timeChart(id, buckets, series, unit) {
  const W = 720, H = 200, L = 48, B = 22, T = 10, R = 10;
  const n = buckets.length;
  const stackTop = b => series.filter(x => x.bar).reduce((a, x) =>
    a + (x.value(b) || 0), 0);
  const max = Math.max(1e-9, ...buckets.map(b => Math.max(stackTop(b),
    ...series.filter(x => !x.bar).map(x => x.value(b) || 0))));
  const X = i => L + (W - L - R) * i / n, Y = v => T + (H - T - B) *
    (1 - v / max);
  const bw = Math.max(1, (W - L - R) / n - 1);
  const kids = [];
  for (const f of [0, .5, 1]) {
    kids.push(s("line", {x1: L, x2: W - R, y1: Y(max * f), y2: Y(max * f),
      class: "grid"}));
    kids.push(s("text", {x: L - 4, y: Y(max * f) + 4, "text-anchor": "end",
      class: "axis"}, unit(max * f)));
  }
  for (let i = 0; i < n; i += Math.ceil(n / 6))
    kids.push(s("text", {x: X(i), y: H - 6, class: "axis"},
      hhmm(buckets[i].start_ms)));
  buckets.forEach((b, i) => {
    let base = 0;
    for (const x of series.filter(x => x.bar)) {
      const v = x.value(b) || 0;
      if (v > 0) kids.push(s("rect", {x: X(i), y: Y(base + v), width: bw,
        height: Y(base) - Y(base + v), fill: x.color, "data-bucket": i},
        s("title", {}, hhmm(b.start_ms) + " " + x.name + ": " + unit(v))));
      base += v;
    }
  });
  for (const x of series.filter(x => !x.bar)) {
    const pts = buckets.map((b, i) => x.value(b) === null ? null :
      [X(i) + bw / 2, Y(x.value(b))]).filter(Boolean);
    if (pts.length) kids.push(s("polyline", {points: pts.map(p =>
      p.join(",")).join(" "), fill: "none", stroke: x.color,
      "stroke-width": 2}));
    for (const p of pts) kids.push(s("circle", {cx: p[0], cy: p[1], r: 2.5,
      fill: x.color}));
  }
  return h("div", {class: "chart card", id},
    h("div", {class: "legend"}, series.map(x => h("span", {},
      h("i", {style: "background:" + x.color}), x.name))),
    s("svg", {viewBox: `0 0 ${W} ${H}`}, kids));
}

// A workstation's day: a bar of its hours, coloured by volunteer state,
// and beneath it the time it ran tasks.
function daysChart(days) {
  const states = ["idle", "dedicated", "batch", "busy", "suspended",
    "clash"];
  const names = [...new Set(days.flatMap(d => Object.keys(d.nodes)))]
    .sort();
  if (!names.length) return h("p", {class: "empty"}, "Nothing yet.");
  const hours = dur;
  return h("table", {class: "days", id: "days-chart"},
    h("tr", {}, h("th", {}, "Day"), h("th", {}, "Workstation"),
      h("th", {}, "Its 24 hours: volunteer states (top), tasks run " +
        "(bottom)")),
    days.filter(d => Object.keys(d.nodes).length).reverse().map(d =>
      names.filter(n => d.nodes[n]).map(n => {
        const o = d.nodes[n], day = 86400000;
        return h("tr", {"data-day": d.day, "data-node": n},
          h("td", {class: "nowrap"}, d.day), h("td", {}, n),
          h("td", {}, h("div", {class: "daybar"}, states.filter(k => o[k])
            .map(k => h("span", {style: "width:" + (100 * o[k] / day) +
              "%;background:var(--" + k + ")", title: k + " " +
              hours(o[k]), "data-state": k}))),
            h("div", {class: "daybar run"}, o.running ? h("span",
              {style: "width:" + Math.min(100, 100 * o.running / day) + "%",
                title: "ran tasks " + hours(o.running)}) : null),
            h("span", {class: "meta"}, states.filter(k => o[k]).map(k =>
              k + " " + hours(o[k])).concat(o.running ? ["ran tasks " +
              hours(o.running)] : []).join(" · "))));
      })));
}

function chartsView() {
  const d = chartState.data;
  if (d && d.error) return [h("p", {class: "problems"}, d.error)];
  if (!d || d.hours !== chartState.hours) {
    if (!chartState.loading) loadStats();
    return [h("p", {class: "empty"}, "Loading…")];
  }
  const perMin = d.bucket_ms / 60000;
  const ms = v => dur(Math.round(v));
  const range = h("p", {class: "filters"}, "Over the last ",
    [1, 6, 24, 168].map(n => h("button", {class: n === chartState.hours ?
      "primary" : "", "data-hours": n, onclick: () => {
        chartState.hours = n; chartState.data = null; loadStats(); }},
      n < 48 ? n + " h" : n / 24 + " days")));
  const total = d.buckets.reduce((a, b) => a + b.finished, 0);
  return [h("h2", {}, "Charts"), range,
    h("h3", {}, "Tasks finished per minute (" + total + " in " +
      (d.hours < 48 ? d.hours + " h" : d.hours / 24 + " days") + ")"),
    timeChart("finished-chart", d.buckets, [
      {name: "finished", color: "var(--Terminated)", bar: true,
        value: b => b.finished / perMin},
      {name: "failed", color: "var(--Failed)", bar: true,
        value: b => b.failed / perMin}], v => v.toFixed(v < 10 ? 1 : 0)),
    h("h3", {}, "Waiting time and makespan (medians of the tasks that " +
      "finished)"),
    timeChart("times-chart", d.buckets, [
      {name: "waiting (ready → started)", color: "var(--Suspended)",
        value: b => b.wait_ms},
      {name: "makespan (submitted → done)", color: "var(--Running)",
        value: b => b.makespan_ms}], ms),
    h("h3", {}, "Each workstation's days"), daysChart(d.days)];
}

function workflowsView() {
  return [h("h2", {}, "Workflows"), workflowsTable(state.workflows)];
}

// "End by" and "refuse if late", for either form: the fields, and what
// they add to the request.
function deadlineFields(id) {
  const at = h("input", {type: "datetime-local", id: id + "-deadline"});
  const strict = h("input", {type: "checkbox", id: id + "-strict"});
  return {
    fields: [h("label", {}, "End by ", at), h("label", {title: "not " +
      "scheduled if the forecast misses the deadline"}, strict,
      " refuse if late")],
    add(body) {
      if (at.value) body.deadline_ms = new Date(at.value).getTime();
      if (strict.checked) body.deadline_strict = true;
      return body;
    }};
}

// The forecast told at submit, on the page the form went to.
function told(uuid) {
  const text = state.told.get(uuid);
  return text ? h("p", {id: "told", class: "told"}, text) : null;
}

function submitView() {
  const name = h("input", {type: "text", id: "wf-name", value: "workflow.xml",
    size: 30});
  const text = h("textarea", {id: "wf-text", spellcheck: "false",
    placeholder: "<workflow>\n  <task id=\"I\" name=\"import\">...</task>\n" +
    "</workflow>"});
  const file = h("input", {type: "file", accept: ".xml", onchange: async () => {
      const f = file.files[0];
      if (!f) return;
      name.value = f.name;
      text.value = await f.text();
    }});
  const out = h("div", {id: "wf-result"});
  const due = deadlineFields("wf");
  const go = h("button", {class: "primary", id: "wf-submit", onclick:
    async ev => {
      ev.preventDefault();
      out.replaceChildren();
      try {
        const r = await post("/api/workflows", due.add({name: name.value,
          text: text.value}));
        state.told.set(r.workflow, toldText(r));
        out.append(h("div", {class: "ok"}, "Submitted: " + r.tasks.length +
          " tasks. ", h("a", {href: "#/workflow/" + r.workflow},
          "Follow it")));
        location.hash = "#/workflow/" + r.workflow;
      } catch (e) {
        out.append(h("div", {class: "problems"}, h("strong", {},
          e.message), h("ul", {}, (e.body && e.body.problems || [])
          .map(p => h("li", {}, p)))));
      }
    }}, "Submit");
  return [h("h2", {}, "Submit a workflow file"),
    h("p", {}, file, " or paste it: ", name),
    text, h("p", {class: "filters"}, due.fields, go), out, runForm()];
}

// One command, as `volery run --shell` would run it.
function runForm() {
  const line = h("input", {type: "text", id: "run-line", size: 60,
    spellcheck: "false", placeholder: "make -j4 && ./test.sh"});
  const dir = h("input", {type: "text", id: "run-cwd", size: 24,
    placeholder: "/ (its own run directory if empty)"});
  const prio = h("select", {id: "run-priority"}, h("option", {}, "low"),
    h("option", {}, "interactive"));
  const out = h("div", {id: "run-result"});
  const due = deadlineFields("run");
  const go = h("button", {class: "primary", id: "run-go", onclick:
    async ev => {
      ev.preventDefault();
      out.replaceChildren();
      const task = {command: ["/bin/sh", "-c", line.value],
        priority: prio.value};
      if (dir.value.trim()) task.cwd = dir.value.trim();
      try {
        const r = await post("/api/tasks", due.add(task));
        state.told.set(r.uuid, toldText(r));
        location.hash = "#/task/" + r.uuid;
      } catch (e) {
        out.append(h("div", {class: "problems"}, e.message));
      }
    }}, "Run");
  return [h("h2", {}, "Or run one command"),
    h("form", {class: "filters"}, h("label", {}, "Shell line ", line),
      h("label", {}, "In ", dir), h("label", {}, "Priority ", prio),
      due.fields, go),
    out];
}

// Another host's browser: the operator key's answer to a challenge buys
// a session cookie (volery-api(7)); the key itself never comes here.
async function loginView(why) {
  let c;
  try { c = await api("/api/login"); }
  catch (e) { return [h("p", {class: "problems"}, e.message)]; }
  if (!c.challenge) return [h("p", {class: "problems"}, "This node takes " +
    "no operator from another host (it has no operator key).")];
  const answer = h("input", {type: "text", id: "login-answer", size: 72,
    autocomplete: "off", spellcheck: "false",
    placeholder: "AUTH 3f9c…"});
  const out = h("div", {id: "login-result"}, why ?
    h("div", {class: "problems"}, why) : null);
  const go = h("button", {class: "primary", id: "login-go", onclick:
    async ev => {
      ev.preventDefault();
      try {
        await post("/api/login", {challenge: c.challenge,
          answer: answer.value.trim()});
        location.reload();
      } catch (e) {
        document.getElementById("main").replaceChildren(
          ...(await loginView(e.message)));
      }
    }}, "Log in");
  return [h("h2", {}, "Log in with the operator key"),
    h("p", {}, "This node is on another host. On a machine that holds " +
      "the operator key, run:"),
    h("pre", {class: "mono", id: "login-command"}, c.command),
    h("p", {}, "and paste the line it prints:"),
    // In a form, Enter in the box presses the button.
    h("form", {}, h("p", {}, answer, " ", go)), out];
}

async function logout() {
  await post("/api/logout").catch(() => {});
  location.reload();
}

async function route() {
  if (state.locked) return;
  const hash = location.hash || "#/";
  const [, view, arg] = hash.match(/^#\/([a-z]*)\/?(.*)$/) || [];
  for (const a of document.querySelectorAll("nav a"))
    a.classList.toggle("active", a.dataset.view === (view || "overview"));
  let parts;
  if (view === "workflow") parts = await workflowView(arg);
  else if (view === "task") parts = await taskView(arg);
  else if (view === "workflows") parts = workflowsView();
  else if (view === "charts") parts = chartsView();
  else if (view === "log") {
    if (document.getElementById("log-regex")) return;
    parts = logView();
  }
  else if (view === "submit") {
    // The form keeps what was typed: drawn once per visit.
    if (document.getElementById("wf-text")) return;
    parts = submitView();
  } else parts = overview();
  document.getElementById("main").replaceChildren(...parts.flat()
    .filter(Boolean));
}

window.addEventListener("hashchange", () => {
  if (state.locked) return;
  document.getElementById("main").replaceChildren();
  route();
});
async function start() {
  try {
    await loadAll();
  } catch (e) {
    const main = document.getElementById("main");
    if (e.status === 401) {
      state.locked = true;
      document.getElementById("live").textContent = "not logged in";
      main.replaceChildren(...(await loginView()));
    }
    else main.replaceChildren(h("p", {class: "problems"},
      "Cannot read the node's API: " + e.message));
    return;
  }
  const who = await api("/api/login").catch(() => ({local: true}));
  if (typeof who.user === "string")
    viewer = { user: who.user, admin: !!who.admin };
  if (!who.local) document.querySelector("header").append(h("button",
    {id: "logout", onclick: logout}, "Log out"));
  listen();
}
start();
