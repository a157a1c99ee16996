#!/usr/bin/env python3
"""confirm_kernels.py - finishes an independent kernel set measured by
`simt-heldout --sizes confirm` or `--sizes confirm2`: the meta only
nvidia-smi and the build know (card, driver, nvcc, clocks before and after),
the ptxas check of every row's registers and shared memory (as split.py does
for the held-out set), and "split": "confirm" (or "confirm2") on every row:
no row of either set is fitted.

    python3 confirm_kernels.py KERNELS_RAW META_BEFORE META_AFTER PTXAS OUT [--set confirm|confirm2|check3|check4|check5|check6|probe|wide]

--set (default confirm) names the set: the raw file's meta "sizes" must say
it, and it is every row's "split" (probe: the fit probes, split "fit"). For confirm2 the rows' names are checked
against the committed held-out and confirm files (tests/gpu/results/h200/
heldout/kernels.json, confirm/kernels.json): none may be shared.

--set wide is the other way round: the rows measure again, by name and
request, the 8- and 16-byte reads of the card's earlier lists, each element
now loaded whole (heldout.cuh says why). Each row takes the split of the
row it replaces on the same card and names that row's file in "replaces";
a row no earlier list of that card has gets split "wide" (judged apart).
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import merge_meta  # noqa: E402  ptxas_resources()

TIMING = ("timed as it is (timing \"cold\": a sleep kernel, a 256 MiB L2 flush, an event pair around ONE "
          "launch; 2 untimed, 9 timed, median; \"warm_back_to_back_N\": N launches over the same data after 3 "
          "untimed, time / N, median of 5 windows)")

SETS = {
    "confirm": {
        "method": "simt-heldout --sizes confirm (tests/gpu/heldout): the held-out set's kernel kinds at sizes and "
                  "parameters the held-out set does not use, " + TIMING + ". Requests written from each "
                  "kernel's parameters by the same code as the held-out set's.",
        "purpose": "An independent kernel set for issue 11: every row \"split\": \"confirm\", measured on "
                   "2026-12-02 after the held-out set's models were fitted and compared with the model only "
                   "after the code that wrote its requests was committed (5f12423); no row fitted.",
        "disjoint_from": ["heldout/kernels.json"],
    },
    "confirm2": {
        "method": "simt-heldout --sizes confirm2 (tests/gpu/heldout): the held-out set's kernel kinds at sizes "
                  "and parameters neither the held-out set nor the first independent set (--sizes confirm) "
                  "uses, " + TIMING.replace("timed as it is", "timed as they are") + ". Requests written from "
                  "each kernel's parameters by the same code as the held-out set's (the scatter rows' store "
                  "carries the table's elements as distinct_addresses, as the gather rows' load does).",
        "purpose": "A second independent kernel set for issue 11: measured on the H200 on 2026-12-07 after that "
                   "day's model changes (L2 write bandwidth and request rate, scatter tables, back-to-back launch "
                   "interval, a warp's lines in flight, the L2's reuse edge, partial-sector stores) were committed "
                   "(9962ab3), and compared with the model only after it was committed; no row fitted. The same "
                   "set measured on an H100 SXM earlier that day is tests/gpu/results/h100/confirm/kernels2.json.",
        "disjoint_from": ["heldout/kernels.json", "confirm/kernels.json"],
    },
    "check3": {
        "method": "simt-heldout --sizes check3 (tests/gpu/heldout): softmax and layer norm rows of 20 to 56 KiB, "
                  "gathers from tables of 12 to 40 MiB, FP64 FMA chains at one to four blocks an SM, sizes and "
                  "parameters no other list uses, " + TIMING.replace("timed as it is", "timed as they are") +
                  ". Requests written from each kernel's parameters by the same code as the held-out set's.",
        "purpose": "A third independent kernel set for issue 11, small: the classes the counter-based rules of "
                   "the afternoon of 2026-12-07 touched (a row read again past a quarter of the L2's reuse share, "
                   "repeat_whole_fraction; a gather's table near what an L2 partition holds, "
                   "l2_effective_ways; FP64 chains, fp64_fma_latency_cycles), measured once those rules were "
                   "committed and compared with the model only after the measurement was committed; no row "
                   "fitted.",
        "disjoint_from": ["heldout/kernels.json", "confirm/kernels.json", "../h100/confirm/kernels2.json",
                          "../h100/kernels_probe.json"],
    },
    "check4": {
        "method": "simt-heldout --sizes check4 (tests/gpu/heldout): scatters of 2^24 random 4-byte stores into "
                  "tables of 40 MiB to 2 GiB and 4-byte stores 192 B to 2 KiB apart, sizes and strides no other "
                  "list uses, " + TIMING.replace("timed as it is", "timed as they are") + ". Requests written "
                  "from each kernel's parameters by the same code as the held-out set's.",
        "purpose": "A fourth independent kernel set for issue 11, small: the class the DRAM read-modify-write "
                   "rate of 2026-12-07 touched (dram_partial_stores_per_s: a partly written sector on a row of "
                   "its own), measured once that rule was committed and compared with the model only after the "
                   "measurement was committed; no row fitted.",
        "disjoint_from": ["heldout/kernels.json", "confirm/kernels.json", "confirm/kernels2.json",
                          "confirm/kernels3.json", "../h100/kernels_probe.json"],
    },
    "check5": {
        "method": "simt-heldout --sizes check5 (tests/gpu/heldout): scatters of 2^24 random 4-byte stores into "
                  "tables of 28 to 112 MiB (near the L2's size), sizes no other list uses, "
                  + TIMING.replace("timed as it is", "timed as they are") + ". Requests written from each "
                  "kernel's parameters by the same code as the held-out set's.",
        "purpose": "A fifth independent kernel set for issue 11, small: the store-table rule of 2026-12-07 (a "
                   "table keeps the share of its lines a gather's would; read-modify-writes on the L2 slices), "
                   "measured once that rule was committed and compared with the model only after the "
                   "measurement was committed; no row fitted.",
        "disjoint_from": ["heldout/kernels.json", "confirm/kernels.json", "confirm/kernels2.json",
                          "confirm/kernels3.json", "confirm/kernels4.json", "../h100/kernels_probe.json"],
    },
    "check6": {
        "method": "simt-heldout --sizes check6 (tests/gpu/heldout): integer hash loops of 4 to 48 rounds over "
                  "2^20 to 2^26 elements and a loaded value's chain of 16 to 256 dependent FMAs (e_poly), "
                  "round counts and grid sizes no other list uses, "
                  + TIMING.replace("timed as it is", "timed as they are") + ". Requests written from each "
                  "kernel's parameters by the same code as the held-out set's.",
        "purpose": "A sixth independent kernel set for issue 11, small: the waves-in-step rule of 2026-12-07 "
                   "(where the pipes set the pace, each wave waits out its first load round), measured once that "
                   "rule was committed and compared with the model only after the measurement was committed; no "
                   "row fitted.",
        "disjoint_from": ["heldout/kernels.json", "confirm/kernels.json", "../h100/confirm/kernels2.json",
                          "../h100/confirm/kernels3.json", "../h100/confirm/kernels4.json",
                          "../h100/confirm/kernels5.json", "../h100/kernels_probe.json"],
    },
    "wide": {
        "method": "simt-heldout --sizes wide (tests/gpu/heldout): the 8- and 16-byte reads of the heldout, "
                  "confirm and confirm2 lists (coalesce_8B_*, coalesce_16B_*, l2_read_*) by the same names, sizes "
                  "and requests, each element loaded whole (__ldg: ld.global.nc.v2/v4.u32), "
                  + TIMING.replace("timed as it is", "timed as they are") + ".",
        "purpose": "Issue 11: until 2026-12-08 m_coalesce and m_l2_read read an 8- or 16-byte element as 2 or 4 "
                   "separate 4-byte loads (the PTX held ld.global.nc.u32; Nsight Compute on the H100 counted 2 or "
                   "4 L1 requests an element and, lanes 256 B or more apart, 1.3-1.55x the L2 sectors of one "
                   "load a lane: tests/gpu/results/h100/ncu/coalesce-*.json), so those rows measured another "
                   "kernel than their request said. These rows replace them (\"replaces\": the earlier file, "
                   "\"split\": its row's); the model's answers were committed before the run "
                   "(tests/gpu/results/<card>/confirm/blind-predictions-wide.json); no row fitted.",
        "replaces": {"h200": {"heldout/kernels.json": None, "confirm/kernels.json": None,
                              "confirm/kernels2.json": "h200-confirm2"},
                     "h100": {"heldout/kernels.json": None, "confirm/kernels2.json": None}},
    },
    "probe": {
        "split": "fit",
        "method": "simt-heldout --sizes probe (tests/gpu/heldout): the held-out set's kernel kinds at sizes no "
                  "other set uses, " + TIMING.replace("timed as it is", "timed as they are") + ".",
        "purpose": "Fit data for issue 11 (every row \"split\": \"fit\"): gathers from and scatters into "
                   "L2-resident tables, L2 warm working sets near the L2's capacity, 16-byte loads of a few "
                   "warps at ILP 4 to 16.",
        "disjoint_from": ["heldout/kernels.json", "confirm/kernels.json", "confirm/kernels2.json"],
    },
}


def committed_names(rel):
    path = os.path.join(HERE, "..", "results", "h200", rel)
    if not os.path.exists(path):
        print("note: %s not found; names not checked against it" % path)
        return set()
    with open(path) as f:
        return {r["name"] for r in json.load(f)["kernels"]}


def main():
    args = sys.argv[1:]
    which = "confirm"
    if "--set" in args:
        i = args.index("--set")
        which = args[i + 1]
        del args[i:i + 2]
    if len(args) != 5 or which not in SETS:
        sys.exit(__doc__)
    raw, before, after, ptxas, out = args
    spec = SETS[which]
    with open(before) as f:
        b = json.load(f)
    with open(after) as f:
        a = json.load(f)
    smi_b, smi_a = (b.get("smi") or [{}])[0], (a.get("smi") or [{}])[0]
    with open(raw) as f:
        k = json.load(f)
    assert k["meta"].get("sizes") == which, "not a --sizes %s run" % which
    with open(ptxas) as f:
        pairs = set(merge_meta.ptxas_resources(f.read()).values())
    others, earlier = set(), {}
    for rel in spec.get("disjoint_from", []):
        others |= committed_names(rel)
    if "replaces" in spec:
        card = "h200" if "H200" in (smi_b.get("name") or "") else "h100"
        for rel, forced in spec["replaces"][card].items():
            path = os.path.join(HERE, "..", "results", card, rel)
            with open(path) as f:
                for r in json.load(f)["kernels"]:
                    earlier[r["name"]] = (rel, forced or r["split"], r["request"])
    names = set()
    unmatched = 0
    for r in k["kernels"]:
        assert r["name"] not in names, r["name"]
        assert r["name"] not in others, "%s is a row of an earlier set" % r["name"]
        names.add(r["name"])
        res = r["request"]["resources"]
        if (res["registers_per_thread"], res["static_shared_bytes"]) not in pairs:
            unmatched += 1
        r["split"] = spec.get("split", which)
        if "replaces" in spec and r["name"] in earlier:
            rel, split, request = earlier[r["name"]]
            mine = dict(r["request"], resources=None, gpu=None)
            theirs = dict(request, resources=None, gpu=None)
            assert mine == theirs, "%s: request differs from %s's beyond gpu and resources" % (r["name"], rel)
            r["split"], r["replaces"] = split, rel
    k["meta"].update({
        "card": smi_b.get("name"), "driver": smi_b.get("driver_version"),
        "clocks_before": {x: smi_b.get(x) for x in smi_b if x.startswith("clocks")},
        "clocks_after": {x: smi_a.get(x) for x in smi_a if x.startswith("clocks")},
        "nvcc": b.get("meta", {}).get("nvcc"), "ptxas_pairs_unmatched": unmatched,
        "method": spec["method"],
        "purpose": spec["purpose"],
    })
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        f.write('{"meta": ' + json.dumps(k["meta"]) + ',\n "kernels": [\n')
        f.write(",\n".join("  " + json.dumps(r) for r in k["kernels"]))
        f.write("\n ]}\n")
    print("wrote %d kernels (%d everyday) of set %s to %s; ptxas unmatched %d"
          % (len(k["kernels"]), sum(r["class"] == "everyday" for r in k["kernels"]), which, out, unmatched))


if __name__ == "__main__":
    main()
