"""test_readme - the README's examples are real: every ```sh block that runs
curl against localhost:8080 and is followed by a ```json block is run against
a freshly started simtd, and its output must equal the JSON shown (numbers to
1e-6 relative). Usage: python3 test_readme.py SIMTD_BINARY REPO_ROOT"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

BLOCK_RE = re.compile(r"```(\w+)\n(.*?)```", re.S)
LISTEN_RE = re.compile(r"simtd: listening on http://[^:]+:(\d+)")


def examples(readme):
    blocks = [(m.group(1), m.group(2)) for m in BLOCK_RE.finditer(readme)]
    for (lang, text), (next_lang, next_text) in zip(blocks, blocks[1:]):
        if lang == "sh" and next_lang == "json" and text.lstrip().startswith("curl ") and "localhost:8080" in text:
            yield text.strip(), next_text


def same(expected, actual, path="$"):
    if isinstance(expected, bool) or expected is None or isinstance(expected, str):
        if expected != actual:
            return "%s: expected %r, got %r" % (path, expected, actual)
        return None
    if isinstance(expected, (int, float)):
        if not isinstance(actual, (int, float)) or isinstance(actual, bool):
            return "%s: expected a number, got %r" % (path, actual)
        if abs(expected - actual) > 1e-6 * max(1.0, abs(expected)):
            return "%s: expected %r, got %r" % (path, expected, actual)
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return "%s: expected a list of %d, got %r" % (path, len(expected), actual)
        for i, (e, a) in enumerate(zip(expected, actual)):
            why = same(e, a, "%s[%d]" % (path, i))
            if why:
                return why
        return None
    if not isinstance(actual, dict) or set(expected) != set(actual):
        return "%s: expected keys %s, got %s" % (path, sorted(expected), sorted(actual) if isinstance(actual, dict) else actual)
    for key in expected:
        why = same(expected[key], actual[key], "%s.%s" % (path, key))
        if why:
            return why
    return None


def main():
    simtd, repo = sys.argv[1], sys.argv[2]
    readme = open(os.path.join(repo, "README.md"), encoding="utf-8").read()
    cases = list(examples(readme))
    if not cases:
        print("no curl examples found in README.md")
        return 1
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([simtd, "--port", "0", "--access-log", "off"], stdout=subprocess.PIPE, stderr=log, text=True)
    try:
        line = proc.stdout.readline()
        m = LISTEN_RE.search(line)
        if not m:
            print("simtd did not start: %r" % line)
            return 1
        port = m.group(1)
        failures = 0
        for command, shown in cases:
            run = command.replace("localhost:8080", "127.0.0.1:" + port)
            out = subprocess.run(["bash", "-o", "pipefail", "-c", run], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, timeout=30)
            try:
                why = same(json.loads(shown), json.loads(out.stdout))
            except ValueError as e:
                why = "not JSON (%s): shown %r, got %r %r" % (e, shown[:200], out.stdout[:200], out.stderr[:200])
            status = "ok" if why is None else "FAIL"
            print("%-4s %s" % (status, command.splitlines()[0][:110]))
            if why:
                failures += 1
                print("     " + why)
        print("%d README examples, %d failed" % (len(cases), failures))
        return 1 if failures else 0
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
