"""update_readme - rewrites the ```json block after each curl example in
README.md with what a freshly started simtd really answers (for a maintainer
after a model change; test_readme.py then holds the README to it).
Usage: python3 tests/docs/update_readme.py build/server/simtd"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PAIR_RE = re.compile(r"(```sh\n(curl [^`]*?localhost:8080[^`]*?)```\n+```json\n)(.*?)(```)", re.S)


def main():
    simtd = sys.argv[1]
    path = os.path.join(REPO, "README.md")
    text = open(path, encoding="utf-8").read()
    proc = subprocess.Popen([simtd, "--port", "0", "--access-log", "off"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    port = re.search(r":(\d+)\s*$", proc.stdout.readline()).group(1)

    def answer(m):
        run = m.group(2).strip().replace("localhost:8080", "127.0.0.1:" + port)
        out = subprocess.run(["bash", "-o", "pipefail", "-c", run], stdout=subprocess.PIPE, text=True, timeout=30)
        body = json.dumps(json.loads(out.stdout), indent=2)
        return m.group(1) + body + "\n" + m.group(4)

    try:
        new = PAIR_RE.sub(answer, text)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    open(path, "w", encoding="utf-8").write(new)
    print("README.md: %d examples refreshed" % len(PAIR_RE.findall(text)))


if __name__ == "__main__":
    main()
