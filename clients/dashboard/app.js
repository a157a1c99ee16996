// app.js - simtd's dashboard: an occupancy calculator with its three graphs,
// a roofline chart, a shared-memory bank-conflict view, a transformer view
// (tokens per second against batch, memory per GPU), a whole-kernel
// prediction (POST /v1/kernel from an editable request) and a GPU comparison.
// Every number comes from the API of the daemon that served this page; the
// page only lays them out. Chart.js (window.Chart) comes from /static/chart.js;
// share.js (window.simtShare) brings the token, the state in the URL, the
// charts' text alternatives and export, and the kept roofline kernels.
//
// For tests, window.simtDashboard exposes the charts, the last answers, the
// routes this daemon lacks, and `updates` (a counter per view, bumped each
// time a view is redrawn from a new answer).
"use strict";

(function () {
  const state = {
    gpus: [],
    records: {},          // id -> GET /v1/gpus/{id}
    missingRoutes: [],    // API paths that answered 404 not_found
    updates: { occupancy: 0, sweeps: 0, roofline: 0, banks: 0, compare: 0, transformer: 0, kernel: 0 },
    charts: {},
    kernels: [],          // roofline points the user added
    last: {},
    ready: false,
  };
  window.simtDashboard = state;

  const $ = (id) => document.getElementById(id);
  const COLORS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777", "#4b5563"];

  // ---- the API ----------------------------------------------------------

  async function api(method, path, body) {
    const init = { method, headers: { Accept: "application/json" } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let resp;
    try {
      resp = await simtShare.authorizedFetch(path, init);
    } catch (e) {
      return { ok: false, status: 0, data: { error: { code: "unreachable", message: String(e) } } };
    }
    let data = null;
    try {
      data = await resp.json();
    } catch (e) {
      data = { error: { code: "bad_answer", message: "the answer was not JSON" } };
    }
    if (resp.status === 404 && data && data.error && data.error.code === "not_found" &&
        !state.missingRoutes.includes(path)) {
      state.missingRoutes.push(path);
    }
    return { ok: resp.ok, status: resp.status, data };
  }

  function missing(result) {
    return result.status === 404 && result.data && result.data.error && result.data.error.code === "not_found";
  }

  function errorText(result) {
    const e = (result.data && result.data.error) || {};
    return `${result.status} ${e.code || "error"}: ${e.message || ""}${e.field ? ` (field: ${e.field})` : ""}`;
  }

  function showError(id, text) {
    const el = $(id);
    el.textContent = text || "";
    el.hidden = !text;
  }

  function debounce(fn, ms) {
    let timer = null;
    return (...args) => {
      clearTimeout(timer);
      timer = setTimeout(() => fn(...args), ms);
    };
  }

  // Drops answers that arrive after a newer request of the same kind.
  function latest() {
    let serial = 0;
    return (promise) => {
      const mine = ++serial;
      return promise.then((value) => (mine === serial ? value : null));
    };
  }

  // ---- number formatting ------------------------------------------------

  function si(value, unit) {
    if (value === null || value === undefined || !isFinite(value)) return "–";
    const prefixes = ["", "k", "M", "G", "T", "P", "E"];
    let v = Math.abs(value);
    let i = 0;
    while (v >= 1000 && i < prefixes.length - 1) {
      v /= 1000;
      i++;
    }
    return `${Number((Math.sign(value) * v).toPrecision(3))} ${prefixes[i]}${unit}`;
  }

  function bytes(value) {
    if (value === null || value === undefined || !isFinite(value)) return "–";
    const prefixes = ["B", "KiB", "MiB", "GiB", "TiB"];
    let v = value;
    let i = 0;
    while (v >= 1024 && i < prefixes.length - 1) {
      v /= 1024;
      i++;
    }
    return `${Number(v.toPrecision(4))} ${prefixes[i]}`;
  }

  function seconds(value) {
    if (!isFinite(value)) return "–";
    if (value >= 1) return `${value.toPrecision(3)} s`;
    if (value >= 1e-3) return `${(value * 1e3).toPrecision(3)} ms`;
    if (value >= 1e-6) return `${(value * 1e6).toPrecision(3)} µs`;
    return `${(value * 1e9).toPrecision(3)} ns`;
  }

  function pct(value) {
    return isFinite(value) ? `${Math.round(value * 1000) / 10}%` : "–";
  }

  // ---- GPUs ---------------------------------------------------------------

  function fillGpuSelect(select, preferred) {
    select.innerHTML = "";
    for (const g of state.gpus) {
      const option = document.createElement("option");
      option.value = g.id;
      option.textContent = `${g.id} (${g.name})`;
      select.appendChild(option);
    }
    const ids = state.gpus.map((g) => g.id);
    select.value = ids.includes(preferred) ? preferred : ids[0];
  }

  async function gpuRecord(id) {
    if (!state.records[id]) {
      const r = await api("GET", `/v1/gpus/${encodeURIComponent(id)}`);
      if (!r.ok) throw new Error(errorText(r));
      state.records[id] = r.data;
    }
    return state.records[id];
  }

  // ---- occupancy ----------------------------------------------------------

  function occupancyBody() {
    const body = { gpu: $("occ-gpu").value };
    for (const [id, key] of [["occ-block", "block_size"], ["occ-regs", "registers_per_thread"],
                             ["occ-static", "static_shared_bytes"], ["occ-dynamic", "dynamic_shared_bytes"],
                             ["occ-carveout", "carveout_percent"], ["occ-barriers", "block_barriers"],
                             ["occ-grid", "grid_size"]]) {
      const text = $(id).value.trim();
      if (text !== "") body[key] = Number(text);
    }
    const cluster = clusterSize($("occ-cluster").value);
    if (cluster !== null) {
      body.cluster_size = cluster;
      if ($("occ-nonportable").checked) body.non_portable_cluster_size = true;
    }
    return body;
  }

  // "2" -> 2; "4,2,1", "4x2x1" or "[4, 2, 1]" -> [4, 2, 1]; "" -> null (no
  // clusters). Anything else goes to the daemon as written, which says what is wrong.
  function clusterSize(text) {
    const parts = text.replace(/[[\]\s]/g, "").split(/[,x×]/).filter((t) => t !== "");
    if (parts.length === 0) return null;
    const dims = parts.map(Number);
    return dims.length === 1 ? dims[0] : dims;
  }

  const CHART_TEXT = {
    block: "Occupancy against threads per block",
    regs: "Occupancy against registers per thread",
    smem: "Occupancy against dynamic shared memory per block",
    roofline: "Roofline: attainable FLOP/s against arithmetic intensity, with the added kernels",
  };

  // Redraws a chart and refreshes its text alternative.
  function drawn(name) {
    state.charts[name].update();
    simtShare.describe(state.charts[name], $(`chart-${name}`), CHART_TEXT[name]);
  }

  const SWEEPS = [
    { chart: "block", vary: "block_size", field: "block_size", title: "threads per block" },
    { chart: "regs", vary: "registers_per_thread", field: "registers_per_thread", title: "registers per thread" },
    { chart: "smem", vary: "dynamic_shared_bytes", field: "dynamic_shared_bytes", title: "dynamic shared bytes" },
  ];

  function makeSweepChart(canvas, title) {
    return new Chart(canvas, {
      type: "line",
      data: { datasets: [] },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        interaction: { mode: "nearest", intersect: false },
        scales: {
          x: { type: "linear", title: { display: true, text: title } },
          y: { min: 0, max: 1, title: { display: true, text: "occupancy" }, ticks: { callback: (v) => pct(v) } },
        },
        plugins: {
          legend: { position: "bottom", labels: { boxWidth: 12 } },
          title: { display: true, text: "" },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${ctx.parsed.x} → ${pct(ctx.parsed.y)}` } },
        },
      },
    });
  }

  const occLatest = latest();
  const sweepLatest = SWEEPS.map(() => latest());

  async function updateOccupancy() {
    const body = occupancyBody();
    const result = await occLatest(api("POST", "/v1/occupancy", body));
    if (result === null) return;
    state.last.occupancy = result;
    if (!result.ok) {
      showError("occ-error", errorText(result));
      $("occ-result").innerHTML = `<span class="big">cannot launch</span>`;
      $("occ-limits").innerHTML = "";
      $("occ-assumptions").innerHTML = "";
    } else {
      showError("occ-error", "");
      renderOccupancy(result.data);
    }
    state.updates.occupancy++;
    await updateSweeps(body, result.ok ? result.data : null);
    updateCompare();
  }

  function renderOccupancy(a) {
    const waves = a.waves !== undefined ? `, ${a.waves.toFixed(2)} waves of the grid` : "";
    const al = a.allocated || {};
    const allocated = al.registers_per_block !== undefined
      ? `<span id="occ-allocated">allocated per block: ${al.registers_per_block} registers, ${bytes(al.shared_bytes_per_block)} shared` +
        (al.shared_carveout_bytes !== undefined ? `; carveout ${bytes(al.shared_carveout_bytes)} per SM` : "") + "</span>"
      : "";
    const clusters = a.active_clusters_per_gpu !== undefined
      ? `<span>thread-block clusters: <b id="occ-clusters">${a.active_clusters_per_gpu}</b> active per GPU</span>`
      : "";
    $("occ-result").innerHTML =
      `<span class="big" id="occ-value">${pct(a.occupancy)}</span>` +
      `<span>${a.active_warps_per_sm} of ${a.max_warps_per_sm} warps, ${a.active_blocks_per_sm} blocks per SM${waves}</span>` +
      `<span>limited by <b id="occ-limiter">${a.limiters.join(", ").replace(/_/g, " ")}</b></span>` + clusters + allocated;
    const rows = Object.entries(a.limits).map(([name, blocks]) => {
      const hit = a.limiters.includes(name) ? " class=\"limiter\"" : "";
      const shown = blocks === null || blocks > 1e6 ? "no limit" : blocks;
      return `<tr${hit}><th>${name.replace(/_/g, " ")}</th><td>${shown}</td></tr>`;
    });
    $("occ-limits").innerHTML = `<caption>blocks per SM each limit allows</caption>${rows.join("")}`;
    $("occ-assumptions").innerHTML = (a.assumptions || []).map((s) => `<li>${escapeHtml(s)}</li>`).join("");
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" })[c]);
  }

  async function updateSweeps(body, current) {
    const jobs = SWEEPS.map(async (sweep, i) => {
      const request = Object.assign({}, body, { vary: sweep.vary });
      delete request[sweep.field];
      const result = await sweepLatest[i](api("POST", "/v1/occupancy/sweep", request));
      if (result === null) return;
      const chart = state.charts[sweep.chart];
      if (!result.ok) {
        chart.data.datasets = [];
        chart.options.plugins.title.text = errorText(result);
        drawn(sweep.chart);
        return;
      }
      state.last[sweep.chart] = result.data;
      const points = result.data.points.map((p) => ({ x: p.value, y: p.launchable ? p.occupancy : 0 }));
      const x = body[sweep.field] !== undefined ? body[sweep.field] : 0;
      const datasets = [{
        label: "occupancy",
        data: points,
        borderColor: COLORS[0],
        backgroundColor: COLORS[0],
        pointRadius: points.length > 64 ? 0 : 2,
        stepped: sweep.vary !== "block_size",
        borderWidth: 2,
      }];
      const impossible = result.data.points.filter((p) => !p.launchable).map((p) => ({ x: p.value, y: 0 }));
      if (impossible.length) {
        datasets.push({ label: "cannot launch", data: impossible, showLine: false, pointStyle: "crossRot",
                        pointRadius: 4, borderColor: "#9ca3af", backgroundColor: "#9ca3af" });
      }
      if (current) {
        const limiter = current.limiters.join(", ").replace(/_/g, " ");
        datasets.push({
          label: `current: ${x} → ${pct(current.occupancy)} (limited by ${limiter})`,
          data: [{ x, y: current.occupancy }],
          borderColor: COLORS[1],
          backgroundColor: COLORS[1],
          pointRadius: 7,
          pointStyle: "rectRot",
          showLine: false,
        });
        chart.options.plugins.title.text = `${result.data.gpu}: limited by ${limiter} at ${x}`;
      } else {
        chart.options.plugins.title.text = `${result.data.gpu}: the current configuration cannot launch`;
      }
      chart.data.datasets = datasets;
      drawn(sweep.chart);
    });
    await Promise.all(jobs);
    state.updates.sweeps++;
  }

  // ---- roofline -----------------------------------------------------------

  const X_MIN = 1e-2;
  const X_MAX = 1e4;

  // Ceilings from the GPU record: compute peaks per precision (CUDA cores and
  // tensor cores) and bandwidths per memory level.
  function ceilings(rec) {
    const sm = (rec.sm || {}).sm_count || 0;
    const clock = (rec.clocks || {}).boost_clock_hz || 0;
    const t = rec.throughput || {};
    const compute = [];
    for (const p of ["fp64", "fp32", "fp16"]) {
      const perClock = t[`${p}_flops_per_clock_per_sm`];
      if (perClock && sm && clock) compute.push({ label: `${p} (CUDA cores)`, value: perClock * sm * clock, precision: p, tensor: false });
    }
    const tensor = t.tensor_dense_flops_per_s || {};
    const byValue = new Map();
    for (const [p, v] of Object.entries(tensor)) {
      if (!(v > 0)) continue;
      if (!byValue.has(v)) byValue.set(v, []);
      byValue.get(v).push(p);
    }
    for (const [v, names] of byValue) compute.push({ label: `${names.join("/")} (tensor)`, value: v, precision: names[0], tensor: true });
    const mem = rec.memory || {};
    const memory = [];
    if (mem.dram_bandwidth_bytes_per_s) memory.push({ label: "DRAM", value: mem.dram_bandwidth_bytes_per_s });
    const measured = rec.measured || {};
    if (measured.dram_bandwidth_bytes_per_s) memory.push({ label: "DRAM (measured)", value: measured.dram_bandwidth_bytes_per_s });
    if (mem.l2_bandwidth_bytes_per_s) memory.push({ label: "L2", value: mem.l2_bandwidth_bytes_per_s });
    const s = rec.sm || {};
    if (s.shared_banks && s.shared_bank_bytes && sm && clock) {
      memory.push({ label: "shared memory", value: s.shared_banks * s.shared_bank_bytes * sm * clock });
    }
    compute.sort((a, b) => a.value - b.value);
    return { compute, memory };
  }

  function makeRooflineChart(canvas) {
    return new Chart(canvas, {
      type: "scatter",
      data: { datasets: [] },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        scales: {
          x: { type: "logarithmic", min: X_MIN, max: X_MAX, title: { display: true, text: "arithmetic intensity (FLOP per DRAM byte)" },
               ticks: { callback: (v) => (Number.isInteger(Math.log10(v)) ? String(v) : "") } },
          y: { type: "logarithmic", title: { display: true, text: "attainable FLOP/s" },
               ticks: { callback: (v) => (Number.isInteger(Math.log10(v)) ? si(v, "FLOP/s") : "") } },
        },
        plugins: {
          legend: { position: window.innerWidth < 700 ? "bottom" : "right", labels: { boxWidth: 12 } },
          title: { display: true, text: "" },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${ctx.parsed.x.toPrecision(3)} FLOP/B, ${si(ctx.parsed.y, "FLOP/s")}` } },
        },
      },
    });
  }

  async function roofPoint(rec, kernel) {
    const body = { gpu: rec.id, flops: kernel.flops, precision: kernel.precision, tensor_cores: kernel.tensor_cores };
    body.bytes = kernel.l2 ? { dram: kernel.dram, l2: kernel.l2 } : kernel.dram;
    const r = await api("POST", "/v1/roofline", body);
    if (r.ok) return { ai: r.data.arithmetic_intensity, flops_per_s: r.data.attainable_flops_per_s, time_s: r.data.time_s, bound: r.data.bound, from: "api" };
    if (!missing(r)) return { error: errorText(r) };
    // this daemon has no /v1/roofline yet: the classic roofline from the record
    const c = ceilings(rec);
    const peak = (c.compute.find((x) => x.precision === kernel.precision && x.tensor === kernel.tensor_cores) ||
                  c.compute.find((x) => x.precision === kernel.precision) || c.compute[c.compute.length - 1] || { value: 0 }).value;
    const bw = (c.memory[0] || { value: 0 }).value;
    const ai = kernel.flops / kernel.dram;
    const attainable = Math.min(peak, ai * bw);
    return { ai, flops_per_s: attainable, time_s: kernel.flops / attainable, bound: attainable < peak ? "dram" : "compute", from: "page" };
  }

  const roofLatest = latest();

  async function updateRoofline() {
    const id = $("roof-gpu").value;
    let rec;
    try {
      rec = await gpuRecord(id);
    } catch (e) {
      showError("roof-error", String(e.message || e));
      return;
    }
    const points = await roofLatest(Promise.all(state.kernels.map((k) => roofPoint(rec, k))));
    if (points === null) return;
    const c = ceilings(rec);
    const datasets = [];
    const topPeak = c.compute.length ? c.compute[c.compute.length - 1].value : 1e15;
    c.memory.forEach((m, i) => {
      const xEnd = Math.min(X_MAX, topPeak / m.value);
      datasets.push({ label: `${m.label} ${si(m.value, "B/s")}`, type: "line", showLine: true, pointRadius: 0, borderWidth: 2,
                      borderColor: COLORS[(i + 2) % COLORS.length], data: [{ x: X_MIN, y: m.value * X_MIN }, { x: xEnd, y: m.value * xEnd }] });
    });
    const dram = c.memory.length ? c.memory[0].value : 0;
    c.compute.forEach((p, i) => {
      const ridge = dram ? Math.max(X_MIN, p.value / dram) : X_MIN;
      datasets.push({ label: `${p.label} ${si(p.value, "FLOP/s")}`, type: "line", showLine: true, pointRadius: 0, borderWidth: 1.5,
                      borderDash: p.tensor ? [] : [6, 4], borderColor: COLORS[(i + 5) % COLORS.length],
                      data: [{ x: ridge, y: p.value }, { x: X_MAX, y: p.value }] });
    });
    const rows = [];
    let anyError = "";
    state.kernels.forEach((k, i) => {
      const p = points[i];
      if (p.error) {
        anyError = `${k.name}: ${p.error}`;
        return;
      }
      datasets.push({ label: `● ${k.name}`, data: [{ x: p.ai, y: p.flops_per_s }], pointRadius: 7, borderColor: "#111827",
                      backgroundColor: COLORS[(i + 1) % COLORS.length] });
      rows.push(`<tr><td>${escapeHtml(k.name)}</td><td>${si(k.flops, "FLOP")}</td><td>${bytes(k.dram)}</td>` +
                `<td>${k.precision}${k.tensor_cores ? " tensor" : ""}</td><td>${p.ai.toPrecision(3)}</td>` +
                `<td>${si(p.flops_per_s, "FLOP/s")}</td><td>${seconds(p.time_s)}</td><td>${p.bound}</td>` +
                `<td>${p.from === "api" ? "POST /v1/roofline" : "page (no /v1/roofline)"}</td></tr>`);
    });
    showError("roof-error", anyError);
    $("roof-kernels").innerHTML = rows.length
      ? "<tr><th>kernel</th><th>work</th><th>DRAM</th><th>precision</th><th>FLOP/B</th><th>attainable</th><th>time</th><th>bound</th><th>from</th></tr>" + rows.join("")
      : "";
    const chart = state.charts.roofline;
    chart.data.datasets = datasets;
    const ys = datasets.flatMap((d) => d.data.map((p) => p.y)).filter((y) => y > 0);
    chart.options.scales.y.min = Math.pow(10, Math.floor(Math.log10(Math.min(...ys))));
    chart.options.scales.y.max = Math.pow(10, Math.ceil(Math.log10(Math.max(...ys) * 1.5)));
    chart.options.plugins.title.text = `${rec.name}: a ceiling per precision and memory level`;
    drawn("roofline");
    state.last.roofline = { gpu: id, points };
    state.updates.roofline++;
  }

  function readKernelForm() {
    const num = (id) => {
      const text = $(id).value.trim();
      return text === "" ? 0 : Number(text);
    };
    const kernel = {
      name: $("roof-name").value.trim() || `kernel ${state.kernels.length + 1}`,
      flops: num("roof-flops"), dram: num("roof-dram"), l2: num("roof-l2"),
      precision: $("roof-precision").value, tensor_cores: $("roof-tensor").checked,
    };
    if (!(kernel.flops > 0) || !(kernel.dram > 0)) {
      showError("roof-error", "FLOPs and DRAM bytes must be positive numbers (1e12 is fine)");
      return null;
    }
    return kernel;
  }

  // ---- bank conflicts -------------------------------------------------------

  // The 4-byte words each lane touches, and their banks (32 banks of 4 bytes).
  function laneWords(elementBytes, stride, offset) {
    const lanes = [];
    for (let lane = 0; lane < 32; lane++) {
      const address = (offset + lane * stride) * elementBytes;
      const first = Math.floor(address / 4);
      const last = Math.floor((address + elementBytes - 1) / 4);
      const words = [];
      for (let w = first; w <= last; w++) words.push(w);
      lanes.push(words);
    }
    return lanes;
  }

  function drawBankGrid(el, lanes) {
    const wordsPerBank = new Map();
    for (const words of lanes) {
      for (const w of words) {
        const bank = w % 32;
        if (!wordsPerBank.has(bank)) wordsPerBank.set(bank, new Set());
        wordsPerBank.get(bank).add(w);
      }
    }
    let worst = 1;
    for (const set of wordsPerBank.values()) worst = Math.max(worst, set.size);
    const cells = [];
    cells.push("<div class=\"corner\">lane\\bank</div>");
    for (let b = 0; b < 32; b++) cells.push(`<div class="head">${b}</div>`);
    lanes.forEach((words, lane) => {
      cells.push(`<div class="head">${lane}</div>`);
      const banks = new Set(words.map((w) => w % 32));
      for (let b = 0; b < 32; b++) {
        if (!banks.has(b)) {
          cells.push("<div class=\"cell\"></div>");
          continue;
        }
        const ways = wordsPerBank.get(b).size;
        const level = Math.min(5, Math.ceil(Math.log2(ways)));  // 2-way .. 32-way
        cells.push(`<div class="cell hit w${ways > 1 ? level : 0}" title="lane ${lane}, bank ${b}: ${ways}-way"></div>`);
      }
    });
    el.innerHTML = cells.join("");
    return worst;
  }

  const bankLatest = latest();

  async function updateBanks() {
    const gpu = $("bank-gpu").value;
    const elementBytes = Number($("bank-element").value);
    const stride = Number($("bank-stride").value || 0);
    const offset = Number($("bank-offset").value || 0);
    const base = { gpu, element_bytes: elementBytes, lane_stride_elements: stride, offset_elements: offset };
    const before = await bankLatest(api("POST", "/v1/memory/banks", base));
    if (before === null) return;
    let padding = 0;
    let beforeText;
    let fromApi = before.ok;
    if (before.ok) {
      showError("bank-error", "");
      padding = before.data.suggested_padding_elements || 0;
      beforeText = `${before.data.ways}-way, ${before.data.wavefronts} wavefront(s), efficiency ${pct(before.data.efficiency)}` +
                   (before.data.broadcast ? ", broadcast" : "");
    } else if (missing(before)) {
      showError("bank-error", "this simtd has no POST /v1/memory/banks yet: the grids below are drawn in the page; padding not suggested");
    } else {
      showError("bank-error", errorText(before));
      return;
    }
    const worstBefore = drawBankGrid($("bank-before"), laneWords(elementBytes, stride, offset));
    if (!fromApi) beforeText = `${worstBefore}-way (counted in the page)`;
    $("bank-before-title").textContent = `as written: stride ${stride}`;
    $("bank-before-stats").textContent = beforeText;

    const paddedStride = stride + padding;
    let afterText = "no padding needed";
    if (padding > 0) {
      const after = await api("POST", "/v1/memory/banks", Object.assign({}, base, { lane_stride_elements: paddedStride }));
      afterText = after.ok
        ? `${after.data.ways}-way, ${after.data.wavefronts} wavefront(s), efficiency ${pct(after.data.efficiency)}`
        : errorText(after);
      state.last.banksAfter = after.data;
    }
    drawBankGrid($("bank-after"), laneWords(elementBytes, paddedStride, offset));
    $("bank-after-title").textContent = padding > 0
      ? `padded by ${padding} element${padding === 1 ? "" : "s"}: stride ${paddedStride}` : "with the suggested padding";
    $("bank-after-stats").textContent = afterText;
    state.last.banks = before.data;
    state.updates.banks++;
  }

  // ---- comparison -------------------------------------------------------------

  const SPEC_ROWS = [
    ["architecture", (r) => `${r.architecture} (${r.compute_capability})`],
    ["SMs / CUs", (r) => (r.sm || {}).sm_count],
    ["boost clock", (r) => si((r.clocks || {}).boost_clock_hz, "Hz")],
    ["memory", (r) => bytes((r.memory || {}).dram_bytes)],
    ["DRAM bandwidth", (r) => si((r.memory || {}).dram_bandwidth_bytes_per_s, "B/s")],
    ["L2", (r) => bytes((r.memory || {}).l2_bytes)],
    ["fp32 (CUDA cores)", (r) => si(((r.throughput || {}).fp32_flops_per_clock_per_sm || 0) * ((r.sm || {}).sm_count || 0) * ((r.clocks || {}).boost_clock_hz || 0), "FLOP/s")],
    ["bf16 tensor (dense)", (r) => si(((r.throughput || {}).tensor_dense_flops_per_s || {}).bf16, "FLOP/s")],
    ["fp8 tensor (dense)", (r) => si(((r.throughput || {}).tensor_dense_flops_per_s || {}).fp8, "FLOP/s")],
    // AMD records keep these in their "amd" group: VGPRs per SIMD lane, LDS per CU
    ["32-bit registers per SM / CU", (r) => (r.vendor === "amd"
      ? ((r.amd || {}).vgprs_per_simd_lane || 0) * ((r.limits || {}).warp_size || 64) * ((r.amd || {}).simds_per_cu || 0)
      : (r.limits || {}).registers_per_sm)],
    ["shared memory (LDS) per SM / CU", (r) => bytes(r.vendor === "amd" ? (r.amd || {}).lds_bytes_per_cu : (r.limits || {}).shared_bytes_per_sm)],
    ["max warps (waves) per SM / CU", (r) => (r.limits || {}).max_warps_per_sm],
  ];

  function selectedCompareGpus() {
    return Array.from(document.querySelectorAll("#cmp-gpus input:checked")).map((el) => el.value);
  }

  // One question of several GPUs: POST /v1/compare when the daemon has it,
  // else one request per GPU. Returns {id: {ok, data}}.
  async function askEach(ids, path, body) {
    const out = {};
    const r = await api("POST", "/v1/compare", { gpus: ids, question: path, body });
    if (r.ok) {
      r.data.results.forEach((res, i) => {
        out[ids[i]] = { ok: !res.error, data: res };
      });
      return out;
    }
    await Promise.all(ids.map(async (id) => {
      const one = await api("POST", path, Object.assign({ gpu: id }, body));
      out[id] = { ok: one.ok, data: one.data };
    }));
    return out;
  }

  const compareLatest = latest();

  async function updateCompareNow() {
    const ids = selectedCompareGpus();
    if (!ids.length) {
      $("cmp-table").innerHTML = "";
      return;
    }
    let records;
    try {
      records = await Promise.all(ids.map(gpuRecord));
    } catch (e) {
      showError("cmp-error", String(e.message || e));
      return;
    }
    const occ = occupancyBody();
    delete occ.gpu;
    delete occ.cluster_size; // most GPUs have no cluster layout: compare occupancy alone
    delete occ.non_portable_cluster_size;
    const answers = await compareLatest(Promise.all([
      askEach(ids, "/v1/occupancy", occ),
      askEach(ids, "/v1/gemm", { m: 8192, n: 8192, k: 8192, dtype: "bf16" }),
    ]));
    if (answers === null) return;
    const [occupancy, gemm] = answers;
    showError("cmp-error", "");
    const cell = (res, fmt) => {
      if (!res) return "<td>–</td>";
      if (!res.ok) {
        const e = res.data.error || {};
        return `<td class="na" title="${escapeHtml(e.message || "")}">${escapeHtml(e.code || "error")}</td>`;
      }
      return `<td>${fmt(res.data)}</td>`;
    };
    const head = `<tr><th></th>${records.map((r) => `<th title="${escapeHtml(r.name)}">${r.id}</th>`).join("")}</tr>`;
    const rows = SPEC_ROWS.map(([label, fn]) => `<tr><th>${label}</th>${records.map((r) => `<td>${fn(r) ?? "–"}</td>`).join("")}</tr>`);
    const occLabel = `${occ.block_size || "?"} threads, ${occ.registers_per_thread ?? "?"} registers`;
    rows.push(`<tr class="model"><th>occupancy (${occLabel})</th>${ids.map((id) => cell(occupancy[id], (a) => `${pct(a.occupancy)} <small>${a.limiters.join(", ").replace(/_/g, " ")}</small>`)).join("")}</tr>`);
    rows.push(`<tr class="model"><th>blocks per SM</th>${ids.map((id) => cell(occupancy[id], (a) => a.active_blocks_per_sm)).join("")}</tr>`);
    const gemmMissing = Object.values(gemm).every((res) => res && !res.ok && (res.data.error || {}).code === "not_found");
    if (!gemmMissing) {
      rows.push(`<tr class="model"><th>bf16 GEMM 8192³</th>${ids.map((id) => cell(gemm[id], (a) => `${seconds(a.time_s)} <small>${si(a.achieved_flops_per_s, "FLOP/s")}</small>`)).join("")}</tr>`);
    }
    $("cmp-table").innerHTML = head + rows.join("");
    state.last.compare = { ids, occupancy, gemm };
    state.updates.compare++;
  }

  const updateCompare = debounce(updateCompareNow, 100);

  // ---- transformer ------------------------------------------------------------

  // Tokens per second against batch (a POST /v1/transformer per point, one line
  // per checked GPU, at most TF_MAX_GPUS of them) and a memory bar for the
  // first checked GPU at the chosen batch, beside the largest batch that fits.
  const TF_BATCHES = [1, 2, 4, 8, 16, 32, 64, 128, 256];
  const TF_MAX_GPUS = 4;
  const GIB = 1024 * 1024 * 1024;
  CHART_TEXT.transformer = "Transformer: tokens per second against batch, one line per GPU";
  CHART_TEXT.tfmem = "Transformer: memory per GPU (weights, KV cache, activations) against the GPU's memory";

  function selectedTfGpus() {
    return Array.from(document.querySelectorAll("#tf-gpus input:checked")).map((el) => el.value);
  }

  function transformerBody(gpu, batch) {
    const phase = $("tf-phase").value;
    const len = Number($("tf-len").value || 0);
    const body = { gpu, model: $("tf-model").value, phase, batch, dtype: { weights: $("tf-weights").value },
                   parallel: { tp: Number($("tf-tp").value) } };
    if (phase === "decode") body.kv_len = len;
    else body.seq_len = len;
    return body;
  }

  function makeTransformerChart(canvas) {
    return new Chart(canvas, {
      type: "line",
      data: { datasets: [] },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        interaction: { mode: "nearest", intersect: false },
        scales: {
          x: { type: "logarithmic", min: 1, max: 256, title: { display: true, text: "batch" },
               afterBuildTicks: (axis) => { axis.ticks = TF_BATCHES.map((v) => ({ value: v })); },
               ticks: { callback: (v) => String(v) } },
          y: { type: "linear", min: 0, title: { display: true, text: "tokens per second" }, ticks: { callback: (v) => si(v, "") } },
        },
        plugins: {
          legend: { position: "bottom", labels: { boxWidth: 12 } },
          title: { display: true, text: "" },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: batch ${ctx.parsed.x} → ${si(ctx.parsed.y, "tokens/s")}` } },
        },
      },
    });
  }

  function makeMemoryChart(canvas) {
    return new Chart(canvas, {
      type: "bar",
      data: { datasets: [] },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        indexAxis: "y",
        scales: {
          x: { stacked: true, min: 0, title: { display: true, text: "GiB per GPU" } },
          y: { type: "category", stacked: true, title: { display: true, text: "batch" } },
        },
        plugins: {
          legend: { position: "bottom", labels: { boxWidth: 12 } },
          title: { display: true, text: "" },
          tooltip: { callbacks: { label: (ctx) => `${ctx.dataset.label}: ${ctx.parsed.x.toPrecision(4)} GiB` } },
        },
      },
    });
  }

  const tfLatest = latest();

  async function updateTransformerNow() {
    let ids = selectedTfGpus();
    const dropped = ids.length > TF_MAX_GPUS ? ids.slice(TF_MAX_GPUS) : [];
    ids = ids.slice(0, TF_MAX_GPUS);
    const barBatch = Math.max(1, Number($("tf-batch").value || 1));
    const ask = (gpu, batch) => api("POST", "/v1/transformer", transformerBody(gpu, batch));
    const answers = await tfLatest(Promise.all([
      Promise.all(ids.map((id) => Promise.all(TF_BATCHES.map((b) => ask(id, b))))),
      ids.length ? ask(ids[0], barBatch) : Promise.resolve(null),
    ]));
    if (answers === null) return;
    const [curves, bar] = answers;
    const errors = dropped.length ? [`only the first ${TF_MAX_GPUS} GPUs are drawn (not ${dropped.join(", ")})`] : [];
    const datasets = [];
    ids.forEach((id, i) => {
      const bad = curves[i].find((r) => !r.ok);
      if (bad) {
        errors.push(`${id}: ${errorText(bad)}`);
        return;
      }
      // a GPU keeps its colour whatever else is checked
      const color = COLORS[Math.max(0, state.gpus.findIndex((g) => g.id === id)) % COLORS.length];
      const fits = curves[i].map((r) => r.data.memory.fits);
      datasets.push({ label: id, data: curves[i].map((r, j) => ({ x: TF_BATCHES[j], y: r.data.tokens_per_s })),
                      borderColor: color, backgroundColor: fits.map((f) => (f ? color : "#ffffff")),
                      pointBorderColor: color, pointRadius: 4, borderWidth: 2 });
    });
    const chart = state.charts.transformer;
    chart.data.datasets = datasets;
    const phase = $("tf-phase").value;
    chart.options.plugins.title.text = `${$("tf-model").value}, ${phase} at ${phase === "decode" ? "kv_len" : "seq_len"} ` +
      `${$("tf-len").value}, ${$("tf-weights").value} weights, tp ${$("tf-tp").value}`;
    drawn("transformer");
    if (bar && !bar.ok && !errors.some((e) => e.startsWith(`${ids[0]}:`))) errors.push(`${ids[0]}: ${errorText(bar)}`);
    const rows = bar && bar.ok ? [{ label: `batch ${barBatch}`, a: bar.data }] : [];
    const maxBatch = rows.length ? rows[0].a.memory.max_batch : 0;
    if (maxBatch > 0 && maxBatch !== barBatch) {
      const atMax = await ask(ids[0], maxBatch);
      if (atMax.ok) rows.push({ label: `max batch ${maxBatch}`, a: atMax.data });
    }
    drawMemoryBar(ids[0], rows);
    showError("tf-error", errors.join("; "));
    state.last.transformer = { ids, curves: curves.map((c) => c.map((r) => r.data)), bar: bar ? bar.data : null };
    state.updates.transformer++;
  }

  // One stacked bar per row: the chosen batch, and the largest batch that
  // fits (memory.max_batch, asked for itself), both against the GPU's memory.
  function drawMemoryBar(gpu, rows) {
    const chart = state.charts.tfmem;
    if (!rows.length) {
      chart.data.datasets = [];
      chart.data.labels = [];
      chart.options.plugins.title.text = gpu ? `${gpu}: no answer` : "no GPU selected";
      $("tf-maxbatch").textContent = "";
      drawn("tfmem");
      return;
    }
    const first = rows[0].a.memory;
    const cap = first.gpu_memory_bytes;
    const parts = [["weights", (m) => m.weights_bytes, "#2563eb"], ["KV cache", (m) => m.kv_cache_bytes, "#ea580c"],
                   ["activations", (m) => m.activations_bytes, "#16a34a"],
                   ["free", (m) => Math.max(0, cap - m.total_bytes_per_gpu), "#d1d5db"]];
    chart.data.labels = rows.map((r) => r.label);
    chart.data.datasets = parts.map(([label, get, color]) => ({
      label, backgroundColor: color, borderColor: color, stack: "memory",
      data: rows.map((r) => ({ x: get(r.a.memory) / GIB, y: r.label })),
    }));
    chart.options.scales.x.max = Math.max(cap, ...rows.map((r) => r.a.memory.total_bytes_per_gpu)) / GIB;
    chart.options.plugins.title.text = `${gpu}: ${bytes(first.total_bytes_per_gpu)} of ${bytes(cap)} at ${rows[0].label}` +
      (first.fits ? "" : " (does not fit)");
    $("tf-maxbatch").textContent = first.max_batch > 0 ? `max batch ${first.max_batch}` : "max batch 0 (the weights alone do not fit)";
    drawn("tfmem");
  }

  const updateTransformer = debounce(updateTransformerNow, 150);

  async function startTransformer() {
    const models = await api("GET", "/v1/models");
    if (!models.ok) {
      showError("tf-error", `GET /v1/models: ${errorText(models)}`);
      $("transformer").dataset.unavailable = "1";
      return false;
    }
    $("tf-model").innerHTML = models.data.models.map((m) =>
      `<option value="${escapeHtml(m.id)}">${escapeHtml(m.id)} (${escapeHtml(m.name)})</option>`).join("");
    if (models.data.models.some((m) => m.id === "llama3-8b")) $("tf-model").value = "llama3-8b";
    const defaults = ["h100-sxm", "h200-sxm"];
    $("tf-gpus").innerHTML = state.gpus.map((g) =>
      `<label><input type="checkbox" value="${g.id}"${defaults.includes(g.id) ? " checked" : ""}> ${g.id}</label>`).join("");
    return true;
  }

  function wireTransformer() {
    state.charts.transformer = makeTransformerChart($("chart-transformer"));
    state.charts.tfmem = makeMemoryChart($("chart-tfmem"));
    const relabel = () => {
      $("tf-len-label").textContent = $("tf-phase").value === "decode" ? "Context (kv_len)" : "Prompt (seq_len)";
    };
    relabel();
    $("tf-phase").addEventListener("change", relabel);
    for (const el of [$("tf-form"), $("tf-gpus")]) {
      el.addEventListener("input", updateTransformer);
      el.addEventListener("change", updateTransformer);
    }
    $("tf-form").addEventListener("submit", (e) => e.preventDefault());
  }

  // ---- kernel -------------------------------------------------------------------

  // POST /v1/kernel with the textarea's request, which a preset (index.html's #kern-presets)
  // fills and the GPU select rewrites; shown: time, bound, each breakdown term, occupancy.
  const kernelLatest = latest();

  // Two-space JSON with each innermost object or array on one line (an access per line).
  function kernelText(body) {
    return JSON.stringify(body, null, 2).replace(/[{[][^{}[\]]*[}\]]/g, (m) => m.replace(/\s*\n\s*/g, " "));
  }

  function kernelBody() { // { body } from the textarea, or { error } saying why it is not JSON
    try {
      return { body: JSON.parse($("kern-body").value) };
    } catch (e) {
      return { error: `the request is not JSON: ${e.message}` };
    }
  }

  function fillKernelPreset() {
    const preset = JSON.parse($("kern-presets").textContent)[$("kern-preset").value];
    if (preset) $("kern-body").value = kernelText(Object.assign({}, preset, { gpu: $("kern-gpu").value }));
  }

  // Lays the request out again with `changes` merged in; text that is not JSON stays as typed.
  function relayKernel(changes) {
    const { body } = kernelBody();
    if (body && typeof body === "object" && !Array.isArray(body)) $("kern-body").value = kernelText(Object.assign(body, changes));
  }

  async function updateKernel() {
    const { body, error } = kernelBody();
    if (error) {
      showError("kern-error", error);
      state.updates.kernel++;
      return;
    }
    const result = await kernelLatest(api("POST", "/v1/kernel", body));
    if (result === null) return;
    state.last.kernel = result;
    showError("kern-error", result.ok ? "" : errorText(result));
    if (result.ok) renderKernel(result.data);
    else for (const id of ["kern-result", "kern-breakdown", "kern-assumptions"]) $(id).innerHTML = "";
    state.updates.kernel++;
  }

  function renderKernel(a) {
    const occ = a.occupancy || {};
    const occText = occ.occupancy === undefined ? "" : `<span>occupancy <b id="kern-occupancy">${pct(occ.occupancy)}</b> ` +
      `(${occ.active_blocks_per_sm} blocks per SM, limited by ${(occ.limiters || []).join(", ").replace(/_/g, " ")})</span>`;
    const waves = a.waves !== undefined ? `, ${a.waves.toFixed(2)} waves` : "";
    $("kern-result").innerHTML =
      `<span class="big" id="kern-time">${seconds(a.time_s)}</span>` +
      `<span>bound by <b id="kern-bound">${escapeHtml(a.bound)}</b> on ${escapeHtml(a.gpu)}${waves}</span>` + occText;
    const rows = Object.entries(a.breakdown || {}).map(([name, value]) => {
      const hit = name === `${a.bound}_s` ? " class=\"limiter\"" : "";
      return `<tr${hit} data-term="${escapeHtml(name)}"><th>${escapeHtml(name)}</th><td>${value === 0 ? "0" : seconds(value)}</td></tr>`;
    });
    $("kern-breakdown").innerHTML = `<caption>breakdown (each term alone; they overlap)</caption>${rows.join("")}`;
    $("kern-assumptions").innerHTML = (a.assumptions || []).map((s) => `<li>${escapeHtml(s)}</li>`).join("");
  }

  function startKernel() {
    if (!simtShare.readState().has("kern-body")) fillKernelPreset();
    else relayKernel({}); // the URL's request, kept on one line there
    $("kern-preset").addEventListener("change", fillKernelPreset);
    $("kern-gpu").addEventListener("change", () => relayKernel({ gpu: $("kern-gpu").value }));
    $("kern-form").addEventListener("submit", (e) => {
      e.preventDefault();
      updateKernel();
    });
  }

  // ---- start ------------------------------------------------------------------

  async function start() {
    if (typeof Chart === "undefined") {
      $("server-status").textContent = "the chart library did not load (/static/chart.js): apt-get install libjs-chart.js";
      $("server-status").className = "status bad";
      return;
    }
    const health = await api("GET", "/healthz");
    const list = await api("GET", "/v1/gpus");
    if (!health.ok || !list.ok) {
      $("server-status").textContent = `simtd did not answer: ${errorText(list.ok ? health : list)}`;
      $("server-status").className = "status bad";
      return;
    }
    $("server-status").textContent = `simtd ${health.data.version} · ${health.data.gpus} GPUs`;
    $("server-status").className = "status ok";
    state.gpus = list.data.gpus;

    for (const id of ["occ-gpu", "roof-gpu", "bank-gpu", "kern-gpu"]) fillGpuSelect($(id), "h200-sxm");
    const defaults = ["a100-sxm4-80gb", "h100-sxm", "h200-sxm", "b200", "mi300x"];
    $("cmp-gpus").innerHTML = state.gpus.map((g) =>
      `<label><input type="checkbox" value="${g.id}"${defaults.includes(g.id) ? " checked" : ""}> ${g.id}</label>`).join("");

    const haveTransformer = await startTransformer();
    simtShare.applyState(simtShare.readState());
    startKernel();
    for (const s of SWEEPS) state.charts[s.chart] = makeSweepChart($(`chart-${s.chart}`), s.title);
    state.charts.roofline = makeRooflineChart($("chart-roofline"));
    if (haveTransformer) wireTransformer();
    const exportName = { roofline: "roofline", transformer: "transformer-tokens", tfmem: "transformer-memory" };
    for (const name of Object.keys(state.charts)) {
      simtShare.addExport(() => state.charts[name], $(`chart-${name}`), exportName[name] || `occupancy-${name}`);
    }
    document.addEventListener("input", simtShare.saveState);
    document.addEventListener("change", simtShare.saveState);
    simtShare.saveState();

    const occUpdate = debounce(updateOccupancy, 150);
    $("occ-form").addEventListener("input", occUpdate);
    $("occ-form").addEventListener("change", occUpdate);
    $("occ-form").addEventListener("submit", (e) => e.preventDefault());

    $("roof-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const k = readKernelForm();
      if (k) {
        state.kernels.push(k);
        simtShare.saveKernels(state.kernels);
        updateRoofline();
      }
    });
    $("roof-clear").addEventListener("click", () => {
      state.kernels = [];
      simtShare.saveKernels(state.kernels);
      updateRoofline();
    });
    $("roof-gpu").addEventListener("change", updateRoofline);

    const bankUpdate = debounce(updateBanks, 150);
    $("bank-form").addEventListener("input", bankUpdate);
    $("bank-form").addEventListener("change", bankUpdate);
    $("bank-form").addEventListener("submit", (e) => e.preventDefault());
    $("cmp-gpus").addEventListener("change", updateCompare);

    // the kernels kept from an earlier visit, else a first one so the roofline
    // has a point: 1 TFLOP over 4 GB of DRAM in fp16
    const kept = simtShare.loadKernels();
    state.kernels = kept !== null ? kept
      : [{ name: "example (1 TFLOP, 4 GB, fp16)", flops: 1e12, dram: 4e9, l2: 0, precision: "fp16", tensor_cores: true }];
    await Promise.all([updateOccupancy(), updateRoofline(), updateBanks(), haveTransformer ? updateTransformerNow() : null,
                      updateKernel()]);
    await updateCompareNow();
    state.ready = true;
    document.body.dataset.ready = "1";
  }

  window.addEventListener("DOMContentLoaded", () => {
    start().catch((e) => {
      $("server-status").textContent = `dashboard error: ${e.message || e}`;
      $("server-status").className = "status bad";
      throw e;
    });
  });
})();
