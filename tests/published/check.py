"""check.py - runs every published measurement in published.json against a real
simtd and prints one table: gpu, what, published, predicted, error, pass.

    python3 tests/published/check.py SIMTD_BINARY [--strict] [--json OUT]

The daemon is started on a free port with a private copy of the bundled
hardware database (tests/e2e/simtd_harness.py). Each row names the endpoint,
the request body as the API takes it, the answer field it is judged on and a
relative tolerance. A field that is a time (time_s) is turned into a
bandwidth with the row's bytes_per_time.

Exit status: 1 when a request fails (HTTP status other than 200, or the field
missing from the answer), except a 400 on a row marked "pending" (it names a
request field the API contract has and the daemon does not take yet); with
--strict also when a row is outside its tolerance or pending, unless the row
is marked "known_miss" (a miss with its reason, printed loudly every run, and
named when it comes back within tolerance so the mark can go); else 0.
Standard library only."""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
import simtd_harness as harness  # noqa: E402


def predicted_value(row, answer):
    """The figure the answer predicts for this row, in the row's unit."""
    field = row["compare"]["field"]
    value = answer
    for part in field.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError("answer has no %s" % field)
        value = value[part]
    if not isinstance(value, (int, float)) or value <= 0:
        raise ValueError("%s is %r" % (field, value))
    per_time = row["compare"].get("bytes_per_time")
    return per_time / value if per_time else float(value)


def short(value, unit):
    if unit == "cycles":
        return "%.0f cyc" % value
    scale = {"flop/s": ("TFLOP/s", 1e12), "bytes/s": ("GB/s", 1e9)}.get(unit)
    if scale:
        return "%.1f %s" % (value / scale[1], scale[0])
    return "%.4g %s" % (value, unit)


def run(rows, daemon):
    results = []
    for row in rows:
        status, answer = daemon.post_json(row["endpoint"], row["request"])
        result = {"id": row["id"], "gpu": row["gpu"], "kind": row["kind"], "status": status,
                  "published": row["published"]["value"], "unit": row["published"]["unit"],
                  "tolerance": row["tolerance"], "same_source": row["same_source_as_database"],
                  "known_miss": row.get("known_miss")}
        if status != 200:
            message = answer.get("error", {}).get("message", "") if isinstance(answer, dict) else ""
            result["failure"] = "HTTP %d %s" % (status, message)
            if row.get("pending") and status == 400:
                result["pending"] = row["pending"]
        else:
            try:
                result["predicted"] = predicted_value(row, answer)
                result["error"] = result["predicted"] / result["published"] - 1.0
                result["pass"] = abs(result["error"]) <= row["tolerance"]
            except (KeyError, ValueError) as exc:
                result["failure"] = str(exc)
        results.append(result)
    return results


def print_table(results, out=sys.stdout):
    out.write("%-16s %-12s %-28s %14s %14s %8s %s\n" % ("gpu", "what", "row", "published", "predicted",
                                                       "error", "pass"))
    for r in results:
        if "failure" in r:
            verdict = ("PENDING: " if "pending" in r else "REQUEST FAILED: ") + r["failure"]
            out.write("%-16s %-12s %-28s %14s %14s %8s %s\n" % (r["gpu"], r["kind"], r["id"],
                                                               short(r["published"], r["unit"]), "-", "-",
                                                               verdict))
            continue
        echo = "" if str(r["same_source"]).startswith("no") else " (echo)"
        out.write("%-16s %-12s %-28s %14s %14s %+7.1f%% %s%s\n" % (
            r["gpu"], r["kind"], r["id"], short(r["published"], r["unit"]), short(r["predicted"], r["unit"]),
            100.0 * r["error"], "yes" if r["pass"] else "NO", echo))
    judged = [r for r in results if "failure" not in r]
    passed = sum(1 for r in judged if r["pass"])
    independent = [r for r in judged if str(r["same_source"]).startswith("no")]
    out.write("\n%d rows, %d answered, %d within tolerance (%d of %d rows whose source does not feed the "
              "database)\n" % (len(results), len(judged), passed, sum(1 for r in independent if r["pass"]),
                               len(independent)))
    misses = [r for r in judged if not r["pass"] and r.get("known_miss")]
    if misses:
        out.write("\n*** %d KNOWN MISS(ES), outside tolerance and not held by --strict:\n" % len(misses))
        for r in misses:
            out.write("*** %s (%+.1f%%): %s\n" % (r["id"], 100.0 * r["error"], r["known_miss"]))
    for r in judged:
        if r["pass"] and r.get("known_miss"):
            out.write("note: %s is marked known_miss but is within tolerance now: drop the mark\n" % r["id"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("simtd", help="path of the simtd binary")
    parser.add_argument("--strict", action="store_true", help="fail when a row is outside its tolerance")
    parser.add_argument("--table", default=os.path.join(HERE, "published.json"), help="the rows (JSON)")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    with open(args.table, encoding="utf-8") as f:
        rows = json.load(f)["rows"]
    harness.SIMTD = os.path.abspath(args.simtd)
    harness.REPO = REPO
    daemon = harness.Daemon()
    try:
        results = run(rows, daemon)
    finally:
        daemon.close()
    print_table(results)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    failed = [r for r in results if "failure" in r and "pending" not in r]
    pending = [r for r in results if "pending" in r]
    outside = [r for r in results if "failure" not in r and not r["pass"] and not r.get("known_miss")]
    if failed:
        sys.stderr.write("%d request(s) failed\n" % len(failed))
        return 1
    if args.strict and (outside or pending):
        sys.stderr.write("%d row(s) outside tolerance, %d pending (--strict)\n" % (len(outside), len(pending)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
