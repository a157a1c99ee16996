"""simt.client - the Python client of simtd's HTTP API (version 1).

Standard library only (urllib.request, json). One method per endpoint of
the API as its OpenAPI document describes it (served by the daemon at
GET /openapi.json; api/openapi.json in the simtd repository); keyword
arguments are named exactly as the request fields, and
arguments left as None are not sent, so the server's defaults (and its
"assumptions" list) apply. Errors come back as SimtError, carrying the HTTP
status and the API's error body ({"error": {"code", "message",
"field"}}).

    >>> from simt import Client
    >>> c = Client("http://127.0.0.1:8080")        # token="..." for a simtd run with --token-file
    >>> c.occupancy("h200-sxm", block_size=256, registers_per_thread=64)["occupancy"]
    0.5
"""
import json
import os
import urllib.error
import urllib.request

__all__ = ["Client", "SimtError", "SimtConnectionError", "SweepResult", "DEFAULT_SERVER"]

DEFAULT_SERVER = "http://127.0.0.1:8080"


class SimtError(Exception):
    """The API answered an error.

    Attributes:
        status: the HTTP status (400, 404, 405, 413, 415, 422, 503).
        code: the API's error code ("unsatisfiable", "unknown_field", ...).
        message: the server's explanation.
        field: the offending request field as a JSON path, or None.
        body: the whole error body as a dict.
    """

    def __init__(self, status, body):
        self.status = status
        self.body = body if isinstance(body, dict) else {"error": {"code": "unexpected", "message": str(body)}}
        error = self.body.get("error", {}) if isinstance(self.body.get("error"), dict) else {}
        self.code = error.get("code")
        self.message = error.get("message", "")
        self.field = error.get("field")
        text = "%s %s: %s" % (status, self.code, self.message)
        if self.field:
            text += " (field: %s)" % self.field
        super().__init__(text)


class SimtConnectionError(SimtError):
    """The daemon could not be reached (status is None, code "unreachable")."""

    def __init__(self, url, reason):
        super().__init__(None, {"error": {"code": "unreachable",
                                          "message": "cannot reach simtd at %s: %s" % (url, reason)}})


def _flatten(prefix, value, out):
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(prefix + "." + key if prefix else key, item, out)
    elif isinstance(value, list) and all(not isinstance(v, (dict, list)) for v in value):
        out[prefix] = ",".join(str(v) for v in value)
    else:
        out[prefix] = value


class SweepResult(dict):
    """The answer of POST /v1/occupancy/sweep: a dict ({"gpu", "vary",
    "points" or, with format="columns", "columns", "assumptions"}) with
    helpers for tables and plots that work on either format."""

    @property
    def vary(self):
        """The varied field: block_size, registers_per_thread or dynamic_shared_bytes."""
        return self["vary"]

    @property
    def points(self):
        """The points, each the occupancy answer's fields plus "value" and
        "launchable" (for a columns answer, rebuilt from the columns)."""
        if "points" in self:
            return self["points"]
        columns = self["columns"]
        count = len(columns["value"])

        def at(col, i):
            return {k: at(v, i) for k, v in col.items()} if isinstance(col, dict) else col[i]
        points = []
        for i in range(count):
            point = {}
            for key, col in columns.items():
                if key == "limiter":
                    continue
                value = at(col, i)
                if value is not None or key not in ("waves", "reason"):
                    point[key] = value
            points.append(point)
        return points

    def column(self, name):
        """One field across the points, e.g. column("occupancy"); dotted
        names reach into nested objects ("limits.registers")."""
        return [row.get(name) for row in self.records()]

    def records(self):
        """The points as flat dicts: nested objects become dotted keys
        (limits.registers), lists of names become comma-joined strings."""
        rows = []
        for point in self.points:
            flat = {}
            _flatten("", point, flat)
            rows.append(flat)
        return rows

    def to_dataframe(self):
        """A pandas DataFrame of the points, indexed by the varied field.
        pandas is imported only here; ImportError when it is not installed."""
        try:
            import pandas
        except ImportError as exc:
            raise ImportError("SweepResult.to_dataframe needs pandas (pip install pandas); "
                              "records() gives the same rows as dicts") from exc
        frame = pandas.DataFrame.from_records(self.records())
        if "value" in frame.columns:
            frame = frame.set_index("value")
            frame.index.name = self.vary
        return frame


class TransformerResult(dict):
    """The answer of POST /v1/transformer: a dict ({"gpu", "layer",
    "model_time_s", "tokens_per_s", "memory", "assumptions", ...}) with the
    layer's per-operation table as rows or a DataFrame."""

    @property
    def ops(self):
        """The layer's operations, in order, each {"name", "kind", "time_s", "bound", ...}."""
        return self["layer"]["ops"]

    def records(self):
        """The per-operation table as flat dicts, each with its share of the layer's time."""
        layer_s = self["layer"]["time_s"]
        return [dict(op, share=op["time_s"] / layer_s if layer_s else None) for op in self.ops]

    def to_dataframe(self):
        """A pandas DataFrame of the operations (index: position in the
        layer). pandas is imported only here; ImportError when it is not
        installed."""
        try:
            import pandas
        except ImportError as exc:
            raise ImportError("TransformerResult.to_dataframe needs pandas (pip install pandas); "
                              "records() gives the same rows as dicts") from exc
        return pandas.DataFrame.from_records(self.records())


def _body(args, rename=None):
    """The request body from a method's arguments: None values are left out."""
    rename = rename or {}
    body = {}
    for key, value in args.items():
        if key == "self" or value is None:
            continue
        body[rename.get(key, key)] = value
    return body


class Client:
    """A connection to one simtd.

    Args:
        server: base URL, http:// or https:// (proxies from the usual
            environment variables); default $SIMT_SERVER or
            http://127.0.0.1:8080.
        timeout: seconds to wait for each answer.
        token: bearer token for a simtd started with --token-file (sent as
            "Authorization: Bearer TOKEN"); default $SIMT_TOKEN, else none.
    """

    def __init__(self, server=None, timeout=30.0, token=None):
        self.server = (server or os.environ.get("SIMT_SERVER") or DEFAULT_SERVER).rstrip("/")
        self.timeout = timeout
        self.token = token if token is not None else (os.environ.get("SIMT_TOKEN") or None)

    def __repr__(self):
        return "Client(%r)" % self.server

    # -- transport ---------------------------------------------------------

    def request(self, method, path, body=None):
        """Sends one request and returns the decoded JSON answer.

        Raises SimtError (with the error body) for any status >= 400 and
        SimtConnectionError when the daemon cannot be reached.
        """
        data = None
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.server + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
                content_type = resp.headers.get("Content-Type", "")
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                payload = json.loads(raw.decode("utf-8"))
            except ValueError:
                payload = raw.decode("utf-8", "replace")
            raise SimtError(exc.code, payload) from None
        except (urllib.error.URLError, OSError) as exc:
            raise SimtConnectionError(self.server, getattr(exc, "reason", exc)) from None
        if "json" not in content_type:
            return raw.decode("utf-8", "replace")
        return json.loads(raw.decode("utf-8"))

    def get(self, path):
        """GET any path (pass-through for endpoints without a method here)."""
        return self.request("GET", path)

    def post(self, path, body):
        """POST a body to any path (pass-through)."""
        return self.request("POST", path, body)

    # -- service and database ---------------------------------------------

    def healthz(self):
        """GET /healthz: {"status": "ok", "gpus": N, "version": "..."}."""
        return self.get("/healthz")

    def openapi(self):
        """GET /openapi.json: the OpenAPI 3 document of the API."""
        return self.get("/openapi.json")

    def gpus(self):
        """GET /v1/gpus: the list of GPU summaries (id, name, vendor,
        architecture, compute_capability, sm_count, ...)."""
        return self.get("/v1/gpus")["gpus"]

    def gpu(self, id):
        """GET /v1/gpus/{id}: the GPU's whole record with its sources."""
        return self.get("/v1/gpus/" + urllib.request.quote(id, safe=""))

    # -- occupancy ----------------------------------------------------------

    def occupancy(self, gpu, block_size, registers_per_thread, *, static_shared_bytes=None,
                  dynamic_shared_bytes=None, max_dynamic_shared_bytes=None, carveout_percent=None,
                  block_barriers=None, grid_size=None, cluster_size=None, non_portable_cluster_size=None,
                  figures=None):
        """POST /v1/occupancy: resident blocks and warps per SM, occupancy and
        its limiters, as cudaOccupancyMaxActiveBlocksPerMultiprocessor.
        cluster_size (an int or [x, y, z], compute capability 9.0 on) adds
        "active_clusters_per_gpu", as cudaOccupancyMaxActiveClusters; above 8
        blocks it needs non_portable_cluster_size=True.

        gpu is an id ("h200-sxm") or a what-if dict {"base": "h100-sxm",
        "sm_count": 114}. A configuration that cannot launch raises
        SimtError with status 422 and code "unsatisfiable".
        """
        return self.post("/v1/occupancy", _body(locals()))

    def occupancy_sweep(self, gpu, vary, *, block_size=None, registers_per_thread=None,
                        static_shared_bytes=None, dynamic_shared_bytes=None, max_dynamic_shared_bytes=None,
                        carveout_percent=None, block_barriers=None, grid_size=None, cluster_size=None,
                        non_portable_cluster_size=None, from_=None, to=None, step=None, format=None,
                        figures=None):
        """POST /v1/occupancy/sweep: occupancy against one varied field
        ("block_size", "registers_per_thread" or "dynamic_shared_bytes"),
        the graphs of the vendor's occupancy calculator. `from_` is sent as
        "from" (a Python keyword). format="columns" asks for one list per
        field instead of one object per point (smaller, for plots). Returns a
        SweepResult (a dict with records() and to_dataframe(), either format)."""
        return SweepResult(self.post("/v1/occupancy/sweep", _body(locals(), {"from_": "from"})))

    def launch_suggest(self, gpu, registers_per_thread, *, static_shared_bytes=None, dynamic_shared_bytes=None,
                       dynamic_shared_bytes_per_thread=None, max_block_size=None, carveout_percent=None,
                       block_barriers=None, figures=None):
        """POST /v1/launch/suggest: the block size of highest occupancy and
        the grid that fills the GPU, as cudaOccupancyMaxPotentialBlockSize."""
        return self.post("/v1/launch/suggest", _body(locals()))

    # -- roofline and memory ------------------------------------------------

    def roofline(self, gpu, flops, bytes, *, precision=None, tensor_cores=None, sparse=None, figures=None):
        """POST /v1/roofline: bound, attainable FLOP/s and time of a kernel
        doing `flops` operations and moving `bytes` (a number of DRAM bytes,
        or {"dram": .., "l2": .., "shared": ..})."""
        return self.post("/v1/roofline", _body(locals()))

    def coalescing(self, gpu, element_bytes, *, lane_stride_elements=None, offset_elements=None,
                   lane_addresses=None, active_lanes=None, figures=None):
        """POST /v1/memory/coalescing: sectors, cache lines, DRAM bytes and
        efficiency of one warp-wide global access (a stride, or 32 lane
        addresses in bytes)."""
        return self.post("/v1/memory/coalescing", _body(locals()))

    def banks(self, gpu, element_bytes, *, lane_stride_elements=None, offset_elements=None, lane_addresses=None,
              active_lanes=None, figures=None):
        """POST /v1/memory/banks: ways, wavefronts, efficiency, broadcast and
        the padding that removes the conflicts of one shared-memory access."""
        return self.post("/v1/memory/banks", _body(locals()))

    def constant(self, gpu, *, distinct_addresses=None, lane_addresses=None, figures=None):
        """POST /v1/memory/constant: the serialization of a constant-cache read."""
        return self.post("/v1/memory/constant", _body(locals()))

    def latency_hiding(self, gpu, *, warps_per_sm=None, ilp=None, bytes_per_lane=None, level=None,
                       active_sms=None, lanes=None, block_size=None, registers_per_thread=None, static_shared_bytes=None,
                       dynamic_shared_bytes=None, max_dynamic_shared_bytes=None, carveout_percent=None,
                       block_barriers=None, figures=None):
        """POST /v1/latency-hiding: bytes (or operations) in flight per SM
        against what the level's latency needs; warps_per_sm may be replaced
        by the occupancy fields."""
        return self.post("/v1/latency-hiding", _body(locals()))

    def divergence(self, *, paths=None, lane_paths=None, random_paths=None, gpu=None, figures=None):
        """POST /v1/divergence: serialization and SIMT efficiency for lanes
        over `paths` equal paths, explicit `lane_paths` (32 ints), or
        `random_paths`."""
        return self.post("/v1/divergence", _body(locals()))

    # -- whole kernels, GEMM, collectives, comparisons ------------------------

    def kernel(self, gpu, launch, resources, per_thread, *, figures=None):
        """POST /v1/kernel: predict one kernel launch from its shape (see
        the OpenAPI document for launch, resources and per_thread)."""
        return self.post("/v1/kernel", _body(locals()))

    def gemm(self, gpu, m, n, k, dtype, *, batch=None, sparse=None, launches=None, figures=None):
        """POST /v1/gemm: time, achieved FLOP/s, tile and wave efficiency of
        a (batched) GEMM on the tensor cores; sparse=True for 2:4 sparsity,
        launches="back_to_back" for one of many calls in a row."""
        return self.post("/v1/gemm", _body(locals()))

    def collective(self, gpu, op, bytes, gpus, *, link=None, algorithm=None, nodes=None, network_bytes_per_s=None,
                   host_memory_bytes_per_s=None, figures=None):
        """POST /v1/collective: time, algorithm, algbw and busbw of an
        NCCL-style collective (bytes counted as the NCCL tests count them)."""
        return self.post("/v1/collective", _body(locals()))

    def transformer(self, gpu, model, phase, *, batch=None, seq_len=None, kv_len=None, dtype=None,
                    parallel=None, figures=None):
        """POST /v1/transformer: one decoder layer (per-operation times), the
        whole model's time and tokens per second, and memory per GPU.
        `model` is a preset id (models()) or a shape dict; `dtype` e.g.
        {"weights": "fp8"}; `parallel` e.g. {"tp": 2}. Returns a
        TransformerResult: .ops / .records() / .to_dataframe() give the
        per-operation table."""
        return TransformerResult(self.post("/v1/transformer", _body(locals())))

    def models(self):
        """GET /v1/models: the transformer presets with their shapes and sources."""
        return self.get("/v1/models")

    def compare(self, gpus, question, body, *, figures=None):
        """POST /v1/compare: ask `question` (an endpoint path such as
        "/v1/gemm") with `body` (without gpu) of every GPU in `gpus`."""
        return self.post("/v1/compare", _body(locals()))
