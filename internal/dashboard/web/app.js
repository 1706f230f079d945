// Meridian's dashboard: pages over live watches of the management cluster
// (GET /api/watch, newline-delimited JSON). Everything is read-only and
// rendered with textContent, never as HTML.
"use strict";

// ---- state: one store per resource, fed by a watch stream ----------------

const stores = new Map(); // resource name -> {objects: Map(uid -> obj), synced: bool, error: string}
let resources = new Map(); // name -> {served, ...}
let token = sessionStorage.getItem("meridian-token") || "";
let viewerToken = false;

function headers() {
  return token ? { Authorization: "Bearer " + token } : {};
}

function store(name) {
  if (!stores.has(name)) stores.set(name, { objects: new Map(), synced: false, error: "" });
  return stores.get(name);
}

function list(name) {
  return [...store(name).objects.values()].sort((a, b) =>
    key(a).localeCompare(key(b)));
}

function key(o) {
  const m = o.metadata || {};
  return (m.namespace ? m.namespace + "/" : "") + m.name;
}

// stream follows every served resource on one connection (a browser opens
// at most six to one server), reconnecting when it breaks.
async function stream(names) {
  const query = names.map((n) => "resource=" + encodeURIComponent(n)).join("&");
  for (let delay = 500; ; delay = Math.min(delay * 2, 10000)) {
    try {
      const resp = await fetch("/api/watch?" + query, { headers: headers() });
      if (resp.status === 401) { askToken(); return; }
      if (!resp.ok) {
        const body = await resp.json().catch(() => ({}));
        throw new Error(body.error || resp.statusText);
      }
      const reader = resp.body.getReader();
      const decoder = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim()) apply(JSON.parse(line));
        }
        delay = 500;
      }
      setStatus("reconnecting", "error");
    } catch (e) {
      setStatus("reconnecting: " + (e.message || e), "error");
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}

function apply(m) {
  if (m.type === "PING") return;
  const s = store(m.resource);
  switch (m.type) {
    case "SYNC":
      s.objects = new Map((m.items || []).map((o) => [o.metadata.uid, o]));
      s.synced = true;
      s.error = "";
      break;
    case "ADDED":
    case "MODIFIED":
      s.objects.set(m.object.metadata.uid, m.object);
      break;
    case "DELETED":
      s.objects.delete(m.object.metadata.uid);
      break;
    case "ERROR":
      s.error = m.code === 403 ? "your credentials may not read them (" + m.error + ")" : m.error;
      break;
  }
  setStatus("live", "live");
  rerender();
}

let pending = false;
function rerender() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; render(); });
}

function setStatus(text, cls) {
  const el = document.getElementById("status");
  el.textContent = text;
  el.className = "status " + (cls || "");
}

function askToken() {
  document.getElementById("login").hidden = false;
  setStatus("needs a token", "error");
}

// ---- DOM helpers ---------------------------------------------------------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const SVG = "http://www.w3.org/2000/svg";
function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function section(title, id, ...body) {
  return h("section", { id }, h("h2", {}, title), ...body);
}

// table renders rows with columns [{title, get(o), num}]; empty says why.
function table(name, rows, cols, empty) {
  const st = store(name);
  const r = resources.get(name);
  if (r && !r.served) return h("p", { class: "empty" }, `${name} are not served by this API server (their CRDs are not installed).`);
  if (st.error && !st.synced) return h("p", { class: "bad" }, `cannot read ${name}: ${st.error}`);
  if (!st.synced) return h("p", { class: "muted" }, "loading…");
  if (rows.length === 0) return h("p", { class: "empty" }, empty);
  return h("table", { "data-resource": name },
    h("thead", {}, h("tr", {}, cols.map((c) => h("th", { class: c.num ? "num" : "" }, c.title)))),
    h("tbody", {}, rows.map((o) => h("tr", { "data-key": key(o) },
      cols.map((c) => h("td", { class: c.num ? "num" : "" }, c.get(o)))))));
}

function cond(o, type) {
  return ((o.status || {}).conditions || []).find((c) => c.type === type);
}

function condCell(o, type) {
  const c = cond(o, type);
  if (!c) return h("span", { class: "muted" }, "unknown");
  return h("span", { class: c.status === "True" ? "ok" : "bad", title: c.message || "" },
    c.status === "True" ? type : c.reason || "Not" + type);
}

function age(t) {
  if (!t) return "";
  const sec = Math.max(0, (Date.now() - Date.parse(t)) / 1000);
  if (sec < 90) return Math.round(sec) + "s ago";
  if (sec < 5400) return Math.round(sec / 60) + "m ago";
  if (sec < 129600) return Math.round(sec / 3600) + "h ago";
  return Math.round(sec / 86400) + "d ago";
}

// quantity parses a Kubernetes quantity into a number (cores, bytes,
// grams, an amount of money): Go clients write decimals in the canonical
// form, "0.096" as "96m" and "12.5" as "12500m".
function quantity(q) {
  if (q === undefined || q === null || q === "") return NaN;
  if (typeof q === "number") return q;
  const m = String(q).match(/^([+-]?[0-9.]+)(?:[eE]([+-]?[0-9]+)|([a-zA-Z]*))$/);
  if (!m) return NaN;
  if (m[2] !== undefined) return parseFloat(m[1]) * 10 ** parseInt(m[2], 10);
  const mult = { "": 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
    Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, Pi: 1024 ** 5, Ei: 1024 ** 6 }[m[3]];
  return mult === undefined ? NaN : parseFloat(m[1]) * mult;
}

// money shows an amount of money, {amount, currency}, as "0.096 USD".
function money(p, digits = 4) {
  if (!p) return "";
  return `${fmt(quantity(p.amount), digits)} ${p.currency || ""}`.trim();
}

function fmt(n, digits = 1) {
  if (!isFinite(n)) return "–";
  return n.toLocaleString(undefined, { maximumFractionDigits: digits });
}

function gib(n) { return fmt(n / 1024 ** 3) + " GiB"; }

// usageBar draws used/total as a bar with the share as text.
function usageBar(used, total, label) {
  const share = total > 0 ? Math.min(1, used / total) : 0;
  return h("span", {}, s("svg", { width: 120, height: 12, role: "img", "aria-label": label },
    s("rect", { class: "bar-free", x: 0, y: 1, width: 120, height: 10 }),
    s("rect", { class: "bar-used", x: 0, y: 1, width: Math.round(120 * share), height: 10 })),
  " ", label);
}

function grams(g) {
  const n = quantity(g);
  if (!isFinite(n)) return "–";
  return n >= 1000 ? fmt(n / 1000, 2) + " kg" : fmt(n, 1) + " g";
}

// ---- pages ---------------------------------------------------------------

const pages = {
  members() {
    const clusters = list("clusters");
    return [section("Member clusters", "members", table("clusters", clusters, [
      { title: "Cluster", get: (o) => o.metadata.name },
      { title: "Region", get: (o) => [o.spec.region, o.spec.zone].filter(Boolean).join(" / ") },
      { title: "Provider", get: (o) => o.spec.provider || "" },
      { title: "Health", get: (o) => condCell(o, "Ready") },
      { title: "Nodes", num: true, get: (o) => (o.status || {}).nodeCount ?? "" },
      { title: "CPU requested", get: (o) => {
        const st = o.status || {};
        const used = quantity((st.allocated || {}).cpu), total = quantity((st.allocatable || {}).cpu);
        return usageBar(used, total, `${fmt(used)} / ${fmt(total)} cores`);
      } },
      { title: "Memory requested", get: (o) => {
        const st = o.status || {};
        const used = quantity((st.allocated || {}).memory), total = quantity((st.allocatable || {}).memory);
        return usageBar(used, total, `${gib(used)} / ${gib(total)}`);
      } },
      { title: "Heartbeat", get: (o) => age((o.status || {}).lastHeartbeatTime) },
      { title: "Kubernetes", get: (o) => (o.status || {}).kubernetesVersion || "" },
    ], "No member clusters are registered."))];
  },

  workloads() {
    return [
      section("MultiClusterDeployments", "deployments", workloadTable("multiclusterdeployments")),
      section("MultiClusterJobs", "jobs", workloadTable("multiclusterjobs")),
    ];
  },

  pending() {
    const rows = [];
    for (const name of ["multiclusterdeployments", "multiclusterjobs"]) {
      for (const o of list(name)) {
        const st = o.status || {};
        const pendingIn = (st.clusters || []).filter((c) => c.pendingReplicas > 0);
        if ((st.unplacedReplicas || 0) > 0 || pendingIn.length > 0) rows.push({ o, pendingIn, kind: o.kind });
      }
    }
    const st = store("multiclusterdeployments");
    let body;
    if (!st.synced) body = h("p", { class: "muted" }, "loading…");
    else if (rows.length === 0) body = h("p", { class: "empty" }, "No replica is pending: every workload fits.");
    else body = h("table", { "data-resource": "pending" },
      h("thead", {}, h("tr", {}, ["Workload", "Kind", "Unplaced", "Pending in clusters", "Why"].map((t) => h("th", {}, t)))),
      h("tbody", {}, rows.map(({ o, pendingIn, kind }) => h("tr", { "data-key": key(o) },
        h("td", {}, key(o)), h("td", {}, kind),
        h("td", { class: "num" }, (o.status || {}).unplacedReplicas || 0),
        h("td", {}, pendingIn.map((c) => h("span", { class: "chip" }, `${c.name}: ${c.pendingReplicas}`))),
        h("td", {}, conditionMessages(o))))));
    return [section("Pending replicas", "pending", body)];
  },

  cloud() {
    const cps = list("cloudprovisioners");
    return [
      section("Cloud clusters", "cloud", table("cloudprovisioners", cps, [
        { title: "CloudProvisioner", get: (o) => key(o) },
        { title: "Cloud cluster", get: (o) => o.spec.cloudClusterName || "" },
        { title: "Provider", get: (o) => [o.spec.provider, o.spec.region].filter(Boolean).join(" / ") },
        { title: "Mode", get: (o) => o.spec.mode || "" },
        { title: "Phase", get: (o) => (o.status || {}).phase || "" },
        { title: "Nodes (ready / desired)", num: true, get: (o) => { const st = o.status || {}; return `${st.readyNodes || 0} / ${st.desiredNodes || 0}`; } },
        { title: "Pools", get: (o) => poolTable(o) },
        { title: "Last decision", get: (o) => { const d = (o.status || {}).lastDecision; return d ? `${d.action} ${d.nodes || ""} ${age(d.time)}: ${d.reason || ""}` : ""; } },
      ], "No CloudProvisioner: workloads burst nowhere.")),
      section("Timeline of bursts and pull-backs", "timeline", timeline()),
    ];
  },

  sharing() {
    return [
      section("Peers", "peers", table("peers", list("peers"), [
        { title: "Peer", get: (o) => key(o) },
        { title: "Cluster ID", get: (o) => o.spec.clusterID },
        { title: "Role", get: (o) => o.spec.role || "" },
        { title: "Phase", get: (o) => (o.status || {}).phase || "" },
        { title: "Ready", get: (o) => condCell(o, "Ready") },
        { title: "Latency", get: (o) => (o.status || {}).latency || "" },
        { title: "Last seen", get: (o) => age((o.status || {}).lastSeenTime) },
      ], "No peers.")),
      section("Advertisements", "advertisements", table("advertisements", list("advertisements"), [
        { title: "Advertisement", get: (o) => key(o) },
        { title: "From", get: (o) => o.spec.clusterID },
        { title: "Shapes", get: (o) => (o.spec.availability || []).map((a) => h("span", { class: "chip" }, `${a.name || "shape"} ×${a.count ?? 1}`)) },
        { title: "Prices", get: (o) => (o.spec.prices || []).map((p) => `${p.resource} ${money(p)}/${p.unit || ""}`).join(", ") },
        { title: "Decision", get: (o) => { const st = o.status || {}; return h("span", { class: st.decision === "Accepted" ? "ok" : st.decision === "Refused" ? "bad" : "muted" }, st.decision || "Pending"); } },
        { title: "Reason", get: (o) => [(o.status || {}).reason, (o.status || {}).message].filter(Boolean).join(": ") },
        { title: "Expires", get: (o) => (o.status || {}).expiresAt || "" },
      ], "No advertisements received.")),
      section("Reservations", "reservations", table("reservations", list("reservations"), [
        { title: "Reservation", get: (o) => key(o) },
        { title: "Consumer", get: (o) => o.spec.consumer },
        { title: "State", get: (o) => o.spec.state || "" },
        { title: "Slices", num: true, get: (o) => (o.spec.slices || []).length },
        { title: "Held", get: (o) => condCell(o, "Held") },
        { title: "Expires", get: (o) => o.spec.expiresAt || "" },
      ], "No capacity reserved for consumers.")),
      section("Virtual nodes", "virtualnodes", table("virtualnodes", list("virtualnodes"), [
        { title: "Node", get: (o) => o.metadata.name },
        { title: "Provider", get: (o) => (o.metadata.labels || {})["sharing.meridian.dev/provider"] || "" },
        { title: "Shape", get: (o) => (o.metadata.labels || {})["sharing.meridian.dev/shape"] || "" },
        { title: "Ready", get: (o) => nodeReady(o) },
        { title: "CPU", num: true, get: (o) => ((o.status || {}).allocatable || {}).cpu || "" },
        { title: "Memory", num: true, get: (o) => ((o.status || {}).allocatable || {}).memory || "" },
      ], "No virtual nodes in this cluster.")),
    ];
  },

  carbon() {
    const vms = list("cloudvms");
    const jobs = list("multiclusterjobs").filter((o) => (o.status || {}).emissions);
    return [
      section("CloudVM decisions: emissions against starting at once", "cloudvms",
        emissionsChart(vms.map((o) => ({ name: key(o), ...vmEmissions(o) }))),
        table("cloudvms", vms, [
          { title: "CloudVM", get: (o) => key(o) },
          { title: "Where", get: (o) => { const d = decision(o); return d ? `${d.provider}/${d.region}${d.zone ? " (" + d.zone + ")" : ""}` : ""; } },
          { title: "Instance", get: (o) => (decision(o) || {}).instanceType || "" },
          { title: "Price", num: true, get: (o) => { const p = (decision(o) || {}).pricePerHour; return p ? money(p) + "/h" : ""; } },
          { title: "Start", get: (o) => (decision(o) || {}).start || "" },
          { title: "Phase", get: (o) => (o.status || {}).phase || "" },
          { title: "Expected", num: true, get: (o) => grams(vmEmissions(o).expected) },
          { title: "Baseline", num: true, get: (o) => grams(vmEmissions(o).baseline) },
          { title: "Realised", num: true, get: (o) => grams(vmEmissions(o).realised) },
          { title: "Saved", num: true, get: (o) => saved(vmEmissions(o)) },
          { title: "Why", get: (o) => (decision(o) || {}).reason || "" },
        ], "No CloudVMs.")),
      section("MultiClusterJobs shifted in time", "jobemissions",
        emissionsChart(jobs.map((o) => ({ name: key(o), expected: o.status.emissions.expectedGrams, baseline: o.status.emissions.baselineGrams, realised: o.status.emissions.realisedGrams }))),
        table("multiclusterjobs", jobs, [
          { title: "Job", get: (o) => key(o) },
          { title: "Planned start", get: (o) => (o.status || {}).plannedStart || "" },
          { title: "Expected", num: true, get: (o) => grams(o.status.emissions.expectedGrams) },
          { title: "Baseline", num: true, get: (o) => grams(o.status.emissions.baselineGrams) },
          { title: "Realised", num: true, get: (o) => grams(o.status.emissions.realisedGrams) },
          { title: "Saved", num: true, get: (o) => saved({ baseline: o.status.emissions.baselineGrams, realised: o.status.emissions.realisedGrams, expected: o.status.emissions.expectedGrams }) },
        ], "No job has its emissions accounted yet.")),
    ];
  },

  advice() {
    const learned = [];
    for (const o of list("multiclusterdeployments")) {
      for (const c of (o.status || {}).clusters || []) {
        const p = (c.pluginScores || []).find((p) => p.plugin === "Learned");
        if (p) learned.push({ o, c, p });
      }
    }
    return [
      section("Optimizer (MultiClusterHorizontalPodAutoscalers)", "optimizer", table("multiclusterhorizontalpodautoscalers", list("multiclusterhorizontalpodautoscalers"), [
        { title: "Autoscaler", get: (o) => key(o) },
        { title: "Target", get: (o) => (o.spec.scaleTargetRef || {}).name || "" },
        { title: "Mode", get: (o) => o.spec.optimizer ? "optimizer" : "metrics" },
        { title: "Replicas (current → desired)", num: true, get: (o) => `${(o.status || {}).currentReplicas ?? "–"} → ${(o.status || {}).desiredReplicas ?? "–"}` },
        { title: "Phase", get: (o) => ((o.status || {}).optimizer || {}).phase || "" },
        { title: "Samples", num: true, get: (o) => ((o.status || {}).optimizer || {}).samples ?? "" },
        { title: "Reliability", num: true, get: (o) => ((o.status || {}).optimizer || {}).reliability ?? "" },
        { title: "Advice", get: (o) => { const a = ((o.status || {}).optimizer || {}).lastAdvice; return a ? `${a.replicas} replicas${a.costPerHour ? ", " + money(a.costPerHour) + "/h" : ""}${a.valid === false ? " (not valid)" : ""}: ${a.reason || ""}` : ""; } },
        { title: "Last scale", get: (o) => [(o.status || {}).lastScaleReason, age((o.status || {}).lastScaleTime)].filter(Boolean).join(", ") },
      ], "No MultiClusterHorizontalPodAutoscalers.")),
      section("Learned scorer (placement plugin Learned)", "learned", learned.length === 0
        ? h("p", { class: "empty" }, "No workload is placed with the Learned plugin.")
        : h("table", { "data-resource": "learned" },
          h("thead", {}, h("tr", {}, ["Workload", "Cluster", "Learned score", "Total score", "Replicas", "Reason"].map((t) => h("th", {}, t)))),
          h("tbody", {}, learned.map(({ o, c, p }) => h("tr", {},
            h("td", {}, key(o)), h("td", {}, c.name), h("td", { class: "num" }, p.score),
            h("td", { class: "num" }, c.score ?? ""), h("td", { class: "num" }, c.replicas || 0), h("td", {}, c.reason)))))),
    ];
  },
};

function workloadTable(name) {
  return table(name, list(name), [
    { title: "Workload", get: (o) => key(o) },
    { title: "Policy", get: (o) => ((o.spec.placement || {}).policy) || h("span", { class: "muted" }, "default") },
    { title: "Replicas", num: true, get: (o) => o.spec.replicas ?? o.spec.parallelism ?? "" },
    { title: "Ready", num: true, get: (o) => (o.status || {}).readyReplicas ?? (o.status || {}).active ?? "" },
    { title: "Placement", get: (o) => ((o.status || {}).clusters || []).filter((c) => c.replicas > 0)
      .map((c) => h("span", { class: "chip " + c.reason, title: c.message || "" }, `${c.name}=${c.replicas} ${c.reason}`)) },
    { title: "Unplaced", num: true, get: (o) => (o.status || {}).unplacedReplicas || 0 },
    { title: "Explanation", get: (o) => explanation(o) },
  ], "No workloads.");
}

// explanation lists every cluster the decision considered: replicas,
// reason, score, plugin scores and the filter's message.
function explanation(o) {
  const cs = (o.status || {}).clusters || [];
  if (cs.length === 0) return h("span", { class: "muted" }, "not decided yet");
  return h("details", {}, h("summary", {}, `${cs.length} clusters considered`),
    h("table", { class: "explain" },
      h("thead", {}, h("tr", {}, ["Cluster", "Reason", "Replicas", "Ready", "Pending", "Score", "Plugin scores", "Message"].map((t) => h("th", {}, t)))),
      h("tbody", {}, cs.map((c) => h("tr", {},
        h("td", {}, c.name), h("td", {}, h("span", { class: "chip " + c.reason }, c.reason)),
        h("td", { class: "num" }, c.replicas || 0), h("td", { class: "num" }, c.readyReplicas || 0),
        h("td", { class: "num" }, c.pendingReplicas || 0), h("td", { class: "num" }, c.score ?? ""),
        h("td", {}, (c.pluginScores || []).map((p) => `${p.plugin} ${p.score}`).join(", ")),
        h("td", {}, c.message || ""))))));
}

function conditionMessages(o) {
  return ((o.status || {}).conditions || []).filter((c) => c.status !== "True" || c.type === "Placed")
    .map((c) => `${c.type}: ${c.message || c.reason}`).join("; ");
}

function poolTable(o) {
  const pools = (o.status || {}).pools || [];
  if (pools.length === 0) return "";
  return h("table", { class: "pools" },
    h("thead", {}, h("tr", {}, ["Pool", "Ready", "Nodes", "Desired", "Removing"].map((t) => h("th", {}, t)))),
    h("tbody", {}, pools.map((p) => h("tr", {},
      h("td", {}, p.name), h("td", { class: "num" }, p.readyNodes || 0), h("td", { class: "num" }, p.nodes || 0),
      h("td", { class: "num" }, p.desiredNodes || 0), h("td", {}, (p.removing || []).join(", "))))));
}

function nodeReady(n) {
  const c = ((n.status || {}).conditions || []).find((c) => c.type === "Ready");
  return h("span", { class: c && c.status === "True" ? "ok" : "bad" }, c && c.status === "True" ? "Ready" : "NotReady");
}

// timeline draws the events of Meridian's cloud and placement decisions
// on a time axis, one row per object, and lists them.
function timeline() {
  const st = store("events");
  if (!st.synced) return h("p", { class: "muted" }, st.error ? "cannot read events: " + st.error : "loading…");
  const kinds = new Set(["CloudProvisioner", "MultiClusterDeployment", "MultiClusterJob"]);
  const evs = [...st.objects.values()]
    .filter((e) => e.regarding && kinds.has(e.regarding.kind))
    .map((e) => ({ e, t: Date.parse(e.eventTime || e.deprecatedLastTimestamp || e.metadata.creationTimestamp) }))
    .sort((a, b) => a.t - b.t);
  if (evs.length === 0) return h("p", { class: "empty" }, "No bursts, removals or moves in the events the API server keeps.");
  const rows = [...new Set(evs.map(({ e }) => `${e.regarding.kind}/${e.regarding.name}`))];
  const t0 = evs[0].t, t1 = Math.max(evs[evs.length - 1].t, t0 + 60000);
  const W = 900, L = 220, rowH = 22, H = rows.length * rowH + 30;
  const x = (t) => L + ((t - t0) / (t1 - t0)) * (W - L - 20);
  const chart = s("svg", { width: W, height: H, role: "img", "aria-label": "timeline of bursts and pull-backs", "data-chart": "timeline" },
    rows.map((r, i) => s("text", { x: 4, y: 18 + i * rowH }, r)),
    s("line", { class: "axis", x1: L, y1: H - 20, x2: W - 20, y2: H - 20 }),
    s("text", { x: L, y: H - 6 }, new Date(t0).toLocaleTimeString()),
    s("text", { x: W - 90, y: H - 6 }, new Date(t1).toLocaleTimeString()),
    evs.map(({ e, t }) => s("circle", {
      class: "ev-" + (e.type || "Normal"), cx: x(t), cy: 14 + rows.indexOf(`${e.regarding.kind}/${e.regarding.name}`) * rowH, r: 5,
    }, s("title", {}, `${new Date(t).toLocaleTimeString()} ${e.reason}: ${e.note || ""}`))));
  const listing = h("table", { "data-resource": "events" },
    h("thead", {}, h("tr", {}, ["Time", "Object", "Reason", "What"].map((t) => h("th", {}, t)))),
    h("tbody", {}, evs.slice().reverse().slice(0, 100).map(({ e, t }) => h("tr", {},
      h("td", {}, new Date(t).toLocaleTimeString()), h("td", {}, `${e.regarding.kind}/${e.regarding.name}`),
      h("td", { class: e.type === "Warning" ? "bad" : "" }, e.reason), h("td", {}, e.note || "")))));
  return [chart, listing];
}

function decision(o) {
  return ((o.spec || {}).schedule || {}).decision;
}

function vmEmissions(o) {
  const d = decision(o) || {};
  return { expected: d.expectedEmissionsGrams, baseline: d.baselineEmissionsGrams, realised: ((o.status || {}).emissions || {}).realisedGrams };
}

function saved(e) {
  const base = quantity(e.baseline);
  const used = isFinite(quantity(e.realised)) ? quantity(e.realised) : quantity(e.expected);
  if (!isFinite(base) || base <= 0 || !isFinite(used)) return "–";
  return fmt(100 * (1 - used / base), 1) + " %";
}

// emissionsChart draws, per item, bars of realised (or expected) and
// baseline emissions on one scale.
function emissionsChart(items) {
  items = items.filter((i) => isFinite(quantity(i.baseline)));
  if (items.length === 0) return null;
  const max = Math.max(...items.map((i) => Math.max(quantity(i.baseline) || 0, quantity(i.realised) || 0, quantity(i.expected) || 0)), 1);
  const W = 900, L = 220, rowH = 30;
  const w = (g) => Math.round(((quantity(g) || 0) / max) * (W - L - 80));
  return h("div", {},
    h("div", { class: "legend" }, h("span", {}, h("span", { class: "sw realised" }), "realised"),
      h("span", {}, h("span", { class: "sw expected" }), "expected (not run yet)"), h("span", {}, h("span", { class: "sw baseline" }), "starting at once")),
    s("svg", { width: W, height: items.length * rowH + 6, role: "img", "aria-label": "emissions against the counterfactual", "data-chart": "emissions" },
      items.map((i, n) => {
        const y = 4 + n * rowH;
        const ran = isFinite(quantity(i.realised));
        return s("g", {},
          s("text", { x: 4, y: y + 12 }, i.name),
          s("rect", { class: ran ? "bar-realised" : "bar-expected", x: L, y, width: w(ran ? i.realised : i.expected), height: 11 }),
          s("rect", { class: "bar-baseline", x: L, y: y + 13, width: w(i.baseline), height: 11 }),
          s("text", { x: L + Math.max(w(ran ? i.realised : i.expected), w(i.baseline)) + 6, y: y + 18 },
            `${grams(ran ? i.realised : i.expected)} vs ${grams(i.baseline)}`));
      })));
}

// ---- routing -------------------------------------------------------------

function route() {
  const name = (location.hash || "#members").slice(1);
  return pages[name] ? name : "members";
}

function render() {
  const name = route();
  for (const a of document.querySelectorAll("#nav a")) a.classList.toggle("active", a.getAttribute("href") === "#" + name);
  const page = document.getElementById("page");
  // Keep open explanations open across updates.
  const open = new Set([...page.querySelectorAll("details[open]")].map((d) => d.closest("tr")?.dataset.key));
  page.replaceChildren(...pages[name]().flat().filter(Boolean));
  for (const d of page.querySelectorAll("details")) if (open.has(d.closest("tr")?.dataset.key)) d.open = true;
  page.dataset.page = name;
}

async function start() {
  const cfg = await (await fetch("/api/config")).json();
  viewerToken = cfg.viewerToken;
  if (viewerToken && !token) { askToken(); return; }
  const resp = await fetch("/api/resources", { headers: headers() });
  if (resp.status === 401) { askToken(); return; }
  if (!resp.ok) { setStatus("cannot reach the API server", "error"); return; }
  resources = new Map((await resp.json()).map((r) => [r.name, r]));
  setStatus("connected to " + cfg.server, "live");
  render();
  const served = [...resources.values()].filter((r) => r.served).map((r) => r.name);
  if (served.length > 0) stream(served);
}

document.getElementById("login").addEventListener("submit", (ev) => {
  ev.preventDefault();
  token = document.getElementById("token").value.trim();
  sessionStorage.setItem("meridian-token", token);
  document.getElementById("login").hidden = true;
  start();
});
window.addEventListener("hashchange", render);
// Ages ("12s ago") move on even when nothing changes.
setInterval(rerender, 10000);
start();
