// share.js - what makes the dashboard shareable and usable beyond one
// screen: the bearer token (asked once on a 401, kept in sessionStorage for
// the tab, sent as Authorization: Bearer), the page's state in its URL
// (every input, in the query string; a #hash with the same form is read
// too), text alternatives for the charts (an aria-label summary and a
// visually hidden data table per chart), CSV and PNG export of each chart,
// and the roofline kernels kept in localStorage. app.js calls these through
// window.simtShare; nothing here talks to the API itself.
"use strict";

(function () {
  const TOKEN_KEY = "simt.token";
  const KERNELS_KEY = "simt.roofline.kernels";
  let asking = null; // the one pending token prompt, shared by concurrent 401s

  function storage(kind) {
    try {
      return kind === "session" ? window.sessionStorage : window.localStorage;
    } catch (e) {
      return null; // storage disabled: the page still works, it only forgets
    }
  }

  // ---- the token ----------------------------------------------------------

  function token() {
    const s = storage("session");
    return (s && s.getItem(TOKEN_KEY)) || "";
  }

  // Asks once, however many requests failed at the same time. Resolves to
  // the new token, or "" when the user declined.
  function askToken(reason) {
    if (!asking) {
      asking = new Promise((resolve) => {
        setTimeout(() => {
          const given = window.prompt(`${reason}\nThis simtd needs a token (simtd --token-file). Token:`, "");
          const t = (given || "").trim();
          const s = storage("session");
          if (s) {
            if (t) s.setItem(TOKEN_KEY, t);
            else s.removeItem(TOKEN_KEY);
          }
          resolve(t);
        }, 0);
      }).finally(() => {
        setTimeout(() => { asking = null; }, 0);
      });
    }
    return asking;
  }

  // fetch with the token; on a 401, asks for a token (once) and tries again.
  let declined = false;
  async function authorizedFetch(path, init) {
    const send = (t) => {
      const headers = Object.assign({}, init.headers || {});
      if (t) headers.Authorization = `Bearer ${t}`;
      return fetch(path, Object.assign({}, init, { headers }));
    };
    const used = token();
    let resp = await send(used);
    if (resp.status !== 401 || declined) return resp;
    let fresh = token();
    if (fresh === used || !fresh) {
      fresh = await askToken(used ? "The token was refused." : "simtd answered 401 (unauthenticated).");
      if (!fresh) {
        declined = true;
        return resp;
      }
    }
    resp = await send(fresh);
    if (resp.status === 401) {
      const s = storage("session");
      if (s && s.getItem(TOKEN_KEY) === fresh) s.removeItem(TOKEN_KEY);
    }
    return resp;
  }

  // ---- state in the URL -----------------------------------------------------

  // Every input, select and textarea with an id, inside a form (the kernel
  // section's request too), and the GPU checkboxes
  // of the comparison and of the transformer section (each as one comma list,
  // under "cmp" and "tfg").
  const CHECK_GROUPS = [["cmp", "#cmp-gpus"], ["tfg", "#tf-gpus"]];
  function stateFields() {
    return Array.from(document.querySelectorAll("form input[id], form select[id], form textarea[id]"));
  }

  function readState() {
    const params = new URLSearchParams(location.search);
    const hash = location.hash.replace(/^#/, "");
    if (hash.includes("=")) {
      for (const [k, v] of new URLSearchParams(hash)) if (!params.has(k)) params.set(k, v);
    }
    return params;
  }

  function applyState(params) {
    for (const el of stateFields()) {
      if (!params.has(el.id)) continue;
      const v = params.get(el.id);
      if (el.type === "checkbox") el.checked = v === "1" || v === "true";
      else if (el.tagName === "SELECT") {
        if (Array.from(el.options).some((o) => o.value === v)) el.value = v;
      } else el.value = v;
    }
    for (const [key, group] of CHECK_GROUPS) {
      if (!params.has(key)) continue;
      const want = params.get(key).split(",").filter(Boolean);
      for (const box of document.querySelectorAll(`${group} input[type=checkbox]`)) box.checked = want.includes(box.value);
    }
  }

  function saveState() {
    const params = new URLSearchParams();
    // a textarea's line breaks and tabs become spaces: simtd refuses a URL with control characters
    for (const el of stateFields()) {
      const value = el.tagName === "TEXTAREA" ? el.value.replace(/\s*[\r\n\t]\s*/g, " ") : el.value;
      params.set(el.id, el.type === "checkbox" ? (el.checked ? "1" : "0") : value);
    }
    for (const [key, group] of CHECK_GROUPS) {
      params.set(key, Array.from(document.querySelectorAll(`${group} input:checked`)).map((el) => el.value).join(","));
    }
    history.replaceState(null, "", `${location.pathname}?${params.toString()}`);
  }

  // ---- text alternatives ------------------------------------------------------

  function fmt(v) {
    return typeof v === "number" && isFinite(v) ? Number(v.toPrecision(4)).toString() : String(v);
  }

  function rows(chart) {
    const out = [];
    for (const ds of chart.data.datasets) {
      for (const p of ds.data) out.push([ds.label, p.x, p.y]);
    }
    return out;
  }

  // Sets the canvas's aria-label to a one-sentence summary and refreshes the
  // chart's hidden data table (the figure's second child).
  function describe(chart, canvas, what) {
    const title = (chart.options.plugins.title || {}).text || "";
    const sets = chart.data.datasets.map((ds) => `${ds.label} (${ds.data.length} point${ds.data.length === 1 ? "" : "s"})`);
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", `${what}. ${title}. Series: ${sets.join("; ") || "none"}.`);
    const figure = canvas.closest("figure");
    let table = figure.querySelector("table.chart-data");
    if (!table) {
      const hidden = document.createElement("div"); // a table ignores width: 1px; its box does not
      hidden.className = "sr-only";
      table = document.createElement("table");
      table.className = "chart-data";
      hidden.appendChild(table);
      figure.appendChild(hidden);
    }
    const x = chart.options.scales.x.title.text;
    const y = chart.options.scales.y.title.text;
    const esc = (t) => String(t).replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]);
    table.innerHTML = `<caption>${esc(what)}: data</caption><tr><th>series</th><th>${esc(x)}</th><th>${esc(y)}</th></tr>` +
      rows(chart).map(([s, a, b]) => `<tr><td>${esc(s)}</td><td>${fmt(a)}</td><td>${fmt(b)}</td></tr>`).join("");
  }

  // ---- export -------------------------------------------------------------------

  function download(name, href) {
    const a = document.createElement("a");
    a.href = href;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  function csv(chart) {
    const x = chart.options.scales.x.title.text;
    const y = chart.options.scales.y.title.text;
    const quote = (t) => (/[",\n]/.test(String(t)) ? `"${String(t).replace(/"/g, "\"\"")}"` : String(t));
    return [["series", x, y].map(quote).join(",")].concat(rows(chart).map((r) => r.map(quote).join(","))).join("\n") + "\n";
  }

  // Adds "CSV" and "PNG" buttons under a chart's figure.
  function addExport(getChart, canvas, name) {
    const bar = document.createElement("div");
    bar.className = "export";
    for (const kind of ["CSV", "PNG"]) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "secondary small";
      b.textContent = kind;
      b.dataset.export = kind.toLowerCase();
      b.setAttribute("aria-label", `download the ${name} chart as ${kind}`);
      b.addEventListener("click", () => {
        const chart = getChart();
        if (kind === "CSV") download(`${name}.csv`, URL.createObjectURL(new Blob([csv(chart)], { type: "text/csv" })));
        else download(`${name}.png`, chart.toBase64Image("image/png", 1));
      });
      bar.appendChild(b);
    }
    canvas.closest("figure").appendChild(bar);
  }

  // ---- roofline kernels ------------------------------------------------------------

  function loadKernels() {
    const s = storage("local");
    try {
      const list = JSON.parse((s && s.getItem(KERNELS_KEY)) || "null");
      return Array.isArray(list) ? list.filter((k) => k && typeof k.name === "string" && k.flops > 0 && k.dram > 0) : null;
    } catch (e) {
      return null;
    }
  }

  function saveKernels(kernels) {
    const s = storage("local");
    if (s) s.setItem(KERNELS_KEY, JSON.stringify(kernels));
  }

  window.simtShare = { token, authorizedFetch, readState, applyState, saveState, describe, csv, addExport,
                       loadKernels, saveKernels };
})();
