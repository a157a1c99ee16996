#!/usr/bin/env python3
"""make_corpus.py - (re)writes the committed seed corpus and dictionaries of
the fuzz targets from the project's own test data:

  corpus/api/   one input per tests/api/cases/<name>/ (route, content_type,
                request.json) in fuzz_api.c's layout, plus one bodiless
                request per route of api/routes.c and a few odd paths;
  corpus/hwdb/  every hwdb/gpus/*.yaml and hwdb/arch/*.yaml, and every
                distinct YAML file under tests/hwdb/cases/;
  api.dict, hwdb.dict  libFuzzer dictionaries: the JSON keys and string
                values of the API cases; the YAML keys of the database.

The route byte of an API seed is the route's index in api/routes.c's table
(read from the descriptors it names): rerun this after the table changes.
Every numeric field of each 200 case is also set to each of EXTREMES (huge,
tiny, negative, past int/int64/2^53 sizes): the overflow corners. Usage: python3 tests/fuzz/make_corpus.py
"""
import hashlib
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# must match fuzz_api.c
METHODS = ["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "get", ""]
CONTENT_TYPES = [None, "application/json", "application/json; charset=utf-8", "text/plain",
                 "APPLICATION/JSON", "", "application/jsonx"]


def routes():
    """(method, route) of every endpoint in api/routes.c's table order: the
    table names descriptors (&simt_api_x); each descriptor, beside its
    handler in api/*.c, gives its route as SIMT_MODEL_ENDPOINT("route", ...)
    (a POST) or as .method = "...", .route = "..."."""
    api = os.path.join(REPO, "api")
    text = open(os.path.join(api, "routes.c")).read()
    names = re.findall(r"&(simt_api_\w+)", text[text.index("table[]"):])
    sources = "".join(open(os.path.join(api, f)).read() for f in sorted(os.listdir(api)) if f.endswith(".c"))
    out = []
    for name in names:
        m = re.search(r"const struct simt_api_endpoint %s =\s*(.*?);" % name, sources, re.S)
        if not m:
            raise SystemExit("make_corpus: no descriptor %s in api/*.c" % name)
        body = m.group(1)
        model = re.match(r'SIMT_MODEL_ENDPOINT\(\s*"([^"]+)"', body)
        if model:
            out.append(("POST", model.group(1)))
            continue
        method = re.search(r'\.method = "([A-Z]+)"', body)
        route = re.search(r'\.route = "([^"]+)"', body)
        if not method or not route:
            raise SystemExit("make_corpus: cannot read the route of %s" % name)
        out.append((method.group(1), route.group(1)))
    if not out:
        raise SystemExit("make_corpus: no route found in api/routes.c")
    return out


# extreme values every numeric field of a 200 request is set to, one seed
# each (issue #16: sizes whose products overflow, huge and tiny numbers)
EXTREMES = [0, -1, 0.5, 1e-300, 1e300, -1e300, 2147483648, 4294967297, 9007199254740993, 134217728,
            536870912, 1099511627776, 9223372036854775807]


def extreme_seeds(table, all_ok):
    """For each 200 request, each top-level numeric field (and each numeric
    member of a nested object or of a list's first object) set to each value
    of EXTREMES: one seed per (request, field, value)."""
    out = {}
    for route, bodies in sorted(all_ok.items()):
        for n, body in enumerate(bodies):
            request = json.loads(body)
            slug = re.sub(r"[^a-z0-9]+", "-", route.lower()).strip("-")

            def spots(obj, path):
                for key, value in obj.items():
                    if isinstance(value, bool):
                        continue
                    if isinstance(value, (int, float)):
                        yield obj, key, path + key
                    elif isinstance(value, dict) and key != "gpu":
                        yield from spots(value, path + key + ".")
                    elif isinstance(value, list) and value and isinstance(value[0], dict):
                        yield from spots(value[0], path + key + "0.")
            for obj, key, path in list(spots(request, "")):
                saved = obj[key]
                for value in EXTREMES:
                    obj[key] = value
                    name = "extreme-%s-%d-%s-%s" % (slug, n, path, str(value).replace(".", "p"))
                    out[name] = api_input(table, "POST", route, "application/json", json.dumps(request).encode())
                obj[key] = saved
    return out


def api_input(table, method, path, content_type, body):
    """Bytes for fuzz_api.c: the route-table form when the route is in the
    table, else the explicit method + path form."""
    if content_type in CONTENT_TYPES:
        type_byte = CONTENT_TYPES.index(content_type)
        type_line = b""
    else:
        type_byte = 7
        type_line = content_type.encode() + b"\n"
    for index, (route_method, pattern) in enumerate(table):
        if route_method != method:
            continue
        if "{id}" in pattern:
            prefix, suffix = pattern.split("{id}")
            if not (path.startswith(prefix) and path.endswith(suffix)) or len(path) <= len(prefix) + len(suffix):
                continue
            gpu_id = path[len(prefix):len(path) - len(suffix)]
            if "/" in gpu_id:
                continue
            return bytes([index, type_byte | (1 << 3), 0]) + gpu_id.encode() + b"\n" + type_line + body
        if pattern == path:
            return bytes([index, type_byte, 0]) + type_line + body
    if method not in METHODS:
        raise SystemExit("make_corpus: method %r is not in fuzz_api.c's list" % method)
    return bytes([0x80 | METHODS.index(method), type_byte, 0]) + path.encode() + b"\n" + type_line + body


def field_table():
    """(name, type, min, max) of every field in hwdb/fields.c's table."""
    text = open(os.path.join(REPO, "hwdb", "fields.c")).read()
    out = []
    for m in re.finditer(r"^\s*F\((\w+), \"\w+\", (\w+), ([^,]+), ([^,]+), \w+\)", text, re.M):
        out.append((m.group(1), m.group(2), m.group(3).strip(), m.group(4).strip()))
    for m in re.finditer(r"^\s*M\((\w+), (\w+), ([^,]+), ([^,)]+)\)", text, re.M):
        out.append(("measured_" + m.group(1), m.group(2), m.group(3).strip(), m.group(4).strip()))
    return out


def whatif_seeds(table, requests):
    """One seed per field and bound: a route's request (round robin over
    the routes with a `gpu`) with the GPU overridden to the field's min or max,
    so the fuzzer starts from the corners the field table allows."""
    out = {}
    routes = sorted(requests)
    fields = [f for f in field_table() if f[1] in ("INT", "INT64", "DOUBLE")]
    for i, (name, _, low, high) in enumerate(fields):
        for j, (bound, value) in enumerate((("min", low), ("max", high))):
            path = routes[(2 * i + j) % len(routes)]
            request = json.loads(requests[path])
            base = "mi300x" if name in AMD_FIELDS else request["gpu"]
            request["gpu"] = {"base": base, name: json.loads(value)}
            out["whatif-%s-%s" % (name, bound)] = api_input(table, "POST", path, "application/json",
                                                           json.dumps(request).encode())
    return out


AMD_FIELDS = {"simds_per_cu", "max_waves_per_simd", "vgprs_per_simd_lane", "vgpr_allocation_unit",
              "max_vgprs_per_wave", "sgprs_per_simd", "sgpr_allocation_unit", "max_sgprs_per_wave",
              "lds_bytes_per_cu", "lds_allocation_unit_bytes", "max_lds_bytes_per_workgroup"}


def write_dir(path, files):
    if os.path.isdir(path):
        shutil.rmtree(path)
    os.makedirs(path)
    for name, data in sorted(files.items()):
        with open(os.path.join(path, name), "wb") as f:
            f.write(data)


def dict_line(token):
    escaped = "".join(c if c.isprintable() and c not in '"\\' else "\\x%02x" % ord(c) for c in token)
    return '"%s"\n' % escaped


def json_tokens(value, out):
    if isinstance(value, dict):
        for key, item in value.items():
            out.add('"%s":' % key)
            json_tokens(item, out)
    elif isinstance(value, list):
        for item in value:
            json_tokens(item, out)
    elif isinstance(value, str):
        out.add('"%s"' % value)


def main():
    table = routes()
    api = {}
    tokens = set()
    ok_requests = {}  # route path -> the body of a case answered 200
    all_ok = {}  # route path -> every body answered 200
    cases = os.path.join(REPO, "tests", "api", "cases")
    for name in sorted(os.listdir(cases)):
        folder = os.path.join(cases, name)
        if not os.path.isfile(os.path.join(folder, "route")):
            continue
        method, path = open(os.path.join(folder, "route")).read().split()
        content_type = None
        if os.path.isfile(os.path.join(folder, "content_type")):
            content_type = open(os.path.join(folder, "content_type")).read().strip()
        body = b""
        if os.path.isfile(os.path.join(folder, "request.json")):
            body = open(os.path.join(folder, "request.json"), "rb").read()
            try:
                json_tokens(json.loads(body), tokens)
            except ValueError:
                pass
        api["case-" + name] = api_input(table, method, path, content_type, body)
        status = open(os.path.join(folder, "status")).read().strip() if os.path.isfile(
            os.path.join(folder, "status")) else ""
        if status == "200" and method == "POST":
            all_ok.setdefault(path, []).append(body)
        if status == "200" and method == "POST" and path not in ok_requests:
            try:
                if isinstance(json.loads(body).get("gpu"), str):
                    ok_requests[path] = body
            except ValueError:
                pass
    for index, (method, pattern) in enumerate(table):
        slug = re.sub(r"[^a-z0-9]+", "-", pattern.lower()).strip("-") or "root"
        api["route-%02d-%s" % (index, slug)] = api_input(table, method, pattern.replace("{id}", "h200-sxm"),
                                                          "application/json", b"{}")
        tokens.add(pattern)
    api["path-query"] = api_input(table, "GET", "/healthz?x=1", None, b"")
    api["path-trailing-slash"] = api_input(table, "GET", "/v1/gpus/", None, b"")
    api["path-double-slash"] = api_input(table, "GET", "/v1/gpus//h200-sxm", None, b"")
    api["head-gpus"] = api_input(table, "HEAD", "/v1/gpus", None, b"")
    api["whatif-object"] = api_input(table, "POST", "/v1/occupancy", "application/json",
                                     b'{"gpu":{"base":"mi300x","sm_count":1,"warp_size":64},'
                                     b'"block_size":1024,"registers_per_thread":255}')
    api.update(whatif_seeds(table, ok_requests))
    api.update(extreme_seeds(table, all_ok))
    for name, _, low, high in field_table():
        tokens.add('"%s":' % name)
    write_dir(os.path.join(HERE, "corpus", "api"), api)
    with open(os.path.join(HERE, "api.dict"), "w") as f:
        f.write("# fuzz_api dictionary: written by make_corpus.py from tests/api/cases\n")
        for token in sorted(tokens):
            f.write(dict_line(token))

    hwdb = {}
    seen = set()
    keys = set()

    def add(name, data):
        digest = hashlib.sha1(data).hexdigest()
        if digest in seen:
            return
        seen.add(digest)
        hwdb[name] = data
        for line in data.decode("utf-8", "replace").splitlines():
            m = re.match(r"^\s*([A-Za-z_][A-Za-z0-9_]*):", line)
            if m:
                keys.add(m.group(1) + ":")

    for sub in ("gpus", "arch"):
        folder = os.path.join(REPO, "hwdb", sub)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".yaml"):
                add("%s-%s" % (sub, name), open(os.path.join(folder, name), "rb").read())
    cases = os.path.join(REPO, "tests", "hwdb", "cases")
    for case in sorted(os.listdir(cases)):
        for root, _, files in sorted(os.walk(os.path.join(cases, case))):
            for name in sorted(files):
                if name.endswith(".yaml") or name.endswith(".yml") or name.endswith(".YAML"):
                    sub = os.path.basename(root)
                    add("case-%s-%s-%s" % (case, sub, name), open(os.path.join(root, name), "rb").read())
    # nesting past the loader's limit (it must refuse fast, not compose)
    add("deep-flow.yaml", b"[" * 5000 + b"]" * 5000 + b"\n")
    add("deep-block.yaml", b"".join(b" " * i + b"- \n" for i in range(0, 400, 2)))
    write_dir(os.path.join(HERE, "corpus", "hwdb"), hwdb)
    with open(os.path.join(HERE, "hwdb.dict"), "w") as f:
        f.write("# fuzz_hwdb dictionary: written by make_corpus.py from the database's YAML keys\n")
        for token in sorted(keys) + ["&a ", "*a", "!!str ", "---\n", "...\n", "- ", "[", "]", "{", "}", "\"", "'"]:
            f.write(dict_line(token))
    print("make_corpus: %d api inputs, %d hwdb inputs" % (len(api), len(hwdb)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
