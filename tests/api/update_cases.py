"""update_cases.py - rewrites the expected answers of tests/api/cases from a
built simtd, for a change that moves answers on purpose.

    python3 tests/api/update_cases.py SIMTD_BINARY [--dry-run]

For every case whose status still matches: each value the expected answer
names is replaced by the daemon's (the expected answer keeps its own keys: a
case that checks a part of an answer still checks only that part), and a
model answer's "figures_used" is taken whole. Error cases are left alone
(their code, field and message are written by hand), and a case whose status
changed is reported, not rewritten. Prints one line per case changed, with
the keys whose values moved. Review the diff: the folders are the test data,
this script only saves typing. Standard library only."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "e2e"))
import simtd_harness as harness  # noqa: E402


def refresh(expected, actual, path, moved):
    """expected with actual's values where both have them."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        return {k: refresh(v, actual.get(k, v), path + "." + k, moved) if k in actual else v
                for k, v in expected.items()}
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [refresh(e, a, "%s[%d]" % (path, i), moved) for i, (e, a) in enumerate(zip(expected, actual))]
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)) and \
            abs(expected - actual) <= 1e-9 * max(1.0, abs(expected)):
        return expected  # the test's own tolerance: float noise is no change
    if expected != actual:
        moved.append(path)
    return actual


def main():
    harness.SIMTD = os.path.abspath(sys.argv[1])
    harness.REPO = REPO
    dry = "--dry-run" in sys.argv
    root = os.path.join(REPO, "tests", "api", "cases")
    daemon = harness.Daemon()
    try:
        for name in sorted(os.listdir(root)):
            d = os.path.join(root, name)
            method, route = open(os.path.join(d, "route")).read().split()
            want = int(open(os.path.join(d, "status")).read())
            if method != "POST" or want != 200:
                continue
            request = json.load(open(os.path.join(d, "request.json")))
            status, answer = daemon.post_json(route, request)
            if status != want:
                print("%s: STATUS %d, expected %d (not rewritten)" % (name, status, want))
                continue
            expected = json.load(open(os.path.join(d, "response.json")))
            moved = []
            new = refresh(expected, answer, "", moved)
            if "figures_used" in answer and new.get("figures_used") != answer["figures_used"]:
                moved.append(".figures_used" + (" (new)" if "figures_used" not in new else ""))
                new["figures_used"] = answer["figures_used"]
            if new != expected:
                print("%s: %s" % (name, ", ".join(moved)))
                if not dry:
                    with open(os.path.join(d, "response.json"), "w") as f:
                        json.dump(new, f, indent=1)
                        f.write("\n")
    finally:
        daemon.close()


if __name__ == "__main__":
    main()
