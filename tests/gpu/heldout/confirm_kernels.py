#!/usr/bin/env python3
"""confirm_kernels.py - finishes a confirmation kernel set measured by
`simt-heldout --sizes confirm`: the meta only nvidia-smi and the build know
(card, driver, nvcc, clocks before and after), the ptxas check of every
row's registers and shared memory (as split.py does for the held-out set),
and "split": "confirm" on every row: no row of it is fitted.

    python3 confirm_kernels.py KERNELS_RAW META_BEFORE META_AFTER PTXAS OUT
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import merge_meta  # noqa: E402  ptxas_resources()


def main():
    raw, before, after, ptxas, out = sys.argv[1:6]
    with open(before) as f:
        b = json.load(f)
    with open(after) as f:
        a = json.load(f)
    smi_b, smi_a = (b.get("smi") or [{}])[0], (a.get("smi") or [{}])[0]
    with open(raw) as f:
        k = json.load(f)
    assert k["meta"].get("sizes") == "confirm", "not a --sizes confirm run"
    with open(ptxas) as f:
        pairs = set(merge_meta.ptxas_resources(f.read()).values())
    names = set()
    unmatched = 0
    for r in k["kernels"]:
        assert r["name"] not in names, r["name"]
        names.add(r["name"])
        res = r["request"]["resources"]
        if (res["registers_per_thread"], res["static_shared_bytes"]) not in pairs:
            unmatched += 1
        r["split"] = "confirm"
    k["meta"].update({
        "card": smi_b.get("name"), "driver": smi_b.get("driver_version"),
        "clocks_before": {x: smi_b.get(x) for x in smi_b if x.startswith("clocks")},
        "clocks_after": {x: smi_a.get(x) for x in smi_a if x.startswith("clocks")},
        "nvcc": b.get("meta", {}).get("nvcc"), "ptxas_pairs_unmatched": unmatched,
        "method": "simt-heldout --sizes confirm (tests/gpu/heldout): the held-out set's kernel kinds at sizes and "
                  "parameters the held-out set does not use, timed as it is (timing \"cold\": a sleep kernel, a "
                  "256 MiB L2 flush, an event pair around ONE launch; 2 untimed, 9 timed, median; "
                  "\"warm_back_to_back_N\": N launches over the same data after 3 untimed, time / N, median of 5 "
                  "windows). Requests written from each kernel's parameters by the same code as the held-out "
                  "set's.",
        "purpose": "An independent kernel set for issue 11: every row \"split\": \"confirm\", measured on "
                   "2026-12-02 after the held-out set's models were fitted and compared with the model only "
                   "after the code that wrote its requests was committed (5f12423); no row fitted.",
    })
    with open(out, "w") as f:
        f.write('{"meta": ' + json.dumps(k["meta"]) + ',\n "kernels": [\n')
        f.write(",\n".join("  " + json.dumps(r) for r in k["kernels"]))
        f.write("\n ]}\n")
    print("wrote %d kernels (%d everyday) to %s; ptxas unmatched %d"
          % (len(k["kernels"]), sum(r["class"] == "everyday" for r in k["kernels"]), out, unmatched))


if __name__ == "__main__":
    main()
