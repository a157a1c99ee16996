// openapi_responses.mjs OPENAPI_JSON - the document against the daemon: each
// request below (API.md's examples among them) is first checked against the
// document's request schema, then sent to the real simtd at $SIMT_URL, and
// the answer is checked against the schema the document gives for that
// status. A row whose route the daemon lacks (404 not_found) is reported as
// skipped. Run by ctest through daemon.py.
import { readFileSync } from "node:fs";
import Ajv from "ajv-draft-04";

const file = process.argv[2];
const url = process.env.SIMT_URL;
if (!file || !url) {
  console.error("usage: SIMT_URL=http://... node openapi_responses.mjs openapi.json");
  process.exit(2);
}
const doc = JSON.parse(readFileSync(file, "utf8"));
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema({ ...doc, id: "openapi.json" }, "openapi.json");

const pointer = (parts) => parts.map((p) => String(p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
const resolveRef = (node) => {
  while (node && node.$ref) node = node.$ref.replace(/^#\//, "").split("/").reduce((at, k) => at[k.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
  return node;
};
const compiled = new Map();
function validatorAt(parts) {
  const ref = "openapi.json#/" + pointer(parts);
  if (!compiled.has(ref)) compiled.set(ref, ajv.compile({ $ref: ref }));
  return compiled.get(ref);
}

const H200 = "h200-sxm";
const rows = [
  ["GET", "/healthz", null, 200],
  ["GET", "/openapi.json", null, 200],
  ["GET", "/v1/gpus", null, 200],
  ["GET", "/v1/gpus/h200-sxm", null, 200],
  ["GET", "/v1/gpus/mi300x", null, 200],
  ["GET", "/v1/gpus/no-such-gpu", null, 404],
  ["POST", "/v1/occupancy", { gpu: H200, block_size: 256, registers_per_thread: 64, static_shared_bytes: 0, dynamic_shared_bytes: 0, carveout_percent: -1, block_barriers: 1, grid_size: 1000 }, 200],
  ["POST", "/v1/occupancy", { gpu: "mi300x", block_size: 256, registers_per_thread: 64 }, 200],
  ["POST", "/v1/occupancy", { gpu: { base: "h100-sxm", sm_count: 114, dram_bandwidth_bytes_per_s: 4.8e12 }, block_size: 128, registers_per_thread: 32 }, 200],
  ["POST", "/v1/occupancy", { gpu: H200, block_size: 2048, registers_per_thread: 64 }, 422],
  ["POST", "/v1/occupancy", { gpu: H200, block_size: 256 }, 400],
  ["POST", "/v1/occupancy", { gpu: H200, block_size: 256, registers_per_thread: 64, block_sise: 3 }, 400],
  ["POST", "/v1/gemm", { gpu: H200, m: 8192, n: 8192, k: 8192, dtype: "fp7" }, 400],
  ["POST", "/v1/gemm", { gpu: H200, m: 8192, n: 8192, k: 8192, dtype: "fp4" }, 422],
  ["POST", "/v1/occupancy/sweep", { gpu: H200, registers_per_thread: 64, vary: "block_size" }, 200],
  ["POST", "/v1/occupancy/sweep", { gpu: H200, block_size: 1024, vary: "registers_per_thread", from: 32, to: 96, step: 32 }, 200],
  ["POST", "/v1/launch/suggest", { gpu: H200, registers_per_thread: 32, static_shared_bytes: 0, dynamic_shared_bytes: 0, max_block_size: 1024 }, 200],
  ["POST", "/v1/roofline", { gpu: H200, flops: 1.0e12, precision: "fp16", tensor_cores: true, bytes: { dram: 4.0e9, l2: 1.2e10, shared: 0 } }, 200],
  ["POST", "/v1/roofline", { gpu: H200, flops: 1.0e12, precision: "fp32", bytes: 4.0e9 }, 200],
  ["POST", "/v1/memory/coalescing", { gpu: H200, element_bytes: 4, lane_stride_elements: 1, offset_elements: 0 }, 200],
  ["POST", "/v1/memory/banks", { gpu: H200, element_bytes: 4, lane_stride_elements: 32 }, 200],
  ["POST", "/v1/memory/constant", { gpu: H200, distinct_addresses: 4 }, 200],
  ["POST", "/v1/latency-hiding", { gpu: H200, warps_per_sm: 16, ilp: 2, bytes_per_lane: 16, level: "dram" }, 200],
  ["POST", "/v1/divergence", { paths: 4 }, 200],
  ["POST", "/v1/divergence", { random_paths: 2 }, 200],
  ["POST", "/v1/gemm", { gpu: H200, m: 8192, n: 8192, k: 8192, dtype: "bf16", batch: 1 }, 200],
  ["POST", "/v1/collective", { gpu: H200, op: "all_reduce", bytes: 1073741824, gpus: 8, link: "nvlink" }, 200],
  ["POST", "/v1/kernel", {
    gpu: H200,
    launch: { grid: [256, 256], block: [32, 8], dynamic_shared_bytes: 0 },
    resources: { registers_per_thread: 26, static_shared_bytes: 4224, block_barriers: 1 },
    per_thread: {
      flops: { fp32: 0 }, sfu_ops: 0,
      accesses: [
        { space: "global", op: "load", count: 4, element_bytes: 4, lane_stride_elements: 1, independent: 4 },
        { space: "shared", op: "store", count: 4, element_bytes: 4, lane_stride_elements: 1 },
        { space: "shared", op: "load", count: 4, element_bytes: 4, lane_stride_elements: 33 },
        { space: "global", op: "store", count: 4, element_bytes: 4, lane_stride_elements: 1 },
      ],
      branch: { paths: 1 },
    },
  }, 200],
  ["POST", "/v1/compare", { gpus: ["a100-sxm4-80gb", "h100-sxm", H200], question: "/v1/gemm", body: { m: 8192, n: 8192, k: 8192, dtype: "bf16" } }, 200],
];

let passed = 0;
let failed = 0;
let skipped = 0;
const fail = (what, detail) => {
  failed++;
  console.log(`FAIL - ${what}`);
  if (detail) console.log(JSON.stringify(detail, null, 2).split("\n").slice(0, 30).map((l) => "#   " + l).join("\n"));
};

for (const [method, path, body, expected] of rows) {
  const what = `${method} ${path}${body ? " " + JSON.stringify(body).slice(0, 60) : ""}`;
  const template = path.startsWith("/v1/gpus/") ? "/v1/gpus/{id}" : path;
  const op = (doc.paths[template] || {})[method.toLowerCase()];
  if (!op) {
    fail(`${what}: not in the document`);
    continue;
  }
  if (body) {
    // well-formed requests (answered 200 or 422) must pass the request
    // schema; those the server refuses as malformed (400) must fail it too
    const validate = validatorAt(["paths", template, method.toLowerCase(), "requestBody", "content", "application/json", "schema"]);
    const accepted = validate(body);
    if (expected === 400 ? accepted : !accepted) {
      fail(`${what}: the document's request schema ${accepted ? "accepts" : "refuses"} this request`, validate.errors);
      continue;
    }
  }
  const init = { method, headers: { Accept: "application/json" } };
  if (body) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const resp = await fetch(url + path, init);
  const answer = await resp.json();
  if (resp.status === 404 && answer.error && answer.error.code === "not_found" && expected !== 404) {
    skipped++;
    console.log(`skip - ${what}: route not in this daemon yet`);
    continue;
  }
  if (resp.status !== expected) {
    fail(`${what}: status ${resp.status}, expected ${expected}`, answer);
    continue;
  }
  const response = resolveRef(op.responses[String(resp.status)]);
  if (!response || !response.content || !response.content["application/json"]) {
    fail(`${what}: the document has no JSON schema for status ${resp.status}`);
    continue;
  }
  // the schema, at its place in the document, so that its $refs resolve
  const refParts = op.responses[String(resp.status)].$ref
    ? op.responses[String(resp.status)].$ref.replace(/^#\//, "").split("/")
    : ["paths", template, method.toLowerCase(), "responses", String(resp.status)];
  const validate = validatorAt([...refParts, "content", "application/json", "schema"]);
  if (!validate(answer)) {
    fail(`${what}: the ${resp.status} answer does not match the document`, validate.errors);
    continue;
  }
  passed++;
  console.log(`ok - ${what} -> ${resp.status}`);
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
