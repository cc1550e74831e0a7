#!/usr/bin/env bash
# Every link between the repository's documents, and every docs/... path named in a document or a
# source comment, must point at a file that exists: a page moved or removed fails here, not in a
# reader's browser. ctest runs it as docs_links.
# Usage: scripts/doc-links.sh
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import os, re, subprocess, sys
files = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                       capture_output=True, text=True, check=True).stdout.split()
bad = []
for f in files:
    if not os.path.isfile(f) or f.endswith((".png", ".svg", ".etshard", ".gz", ".bin", ".jpg")):
        continue
    try:
        text = open(f, encoding="utf-8").read()
    except (UnicodeDecodeError, OSError):
        continue
    if f.endswith(".md"):
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1).split("#")[0]
            if target and not target.startswith(("http://", "https://", "mailto:")):
                if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(f), target))):
                    bad.append(f"{f}: link to {m.group(1)}")
    for m in re.finditer(r"(?<![\w/.-])(docs/[\w/.-]+\.(?:md|png|svg))", text):
        if not os.path.exists(m.group(1)):
            bad.append(f"{f}: names {m.group(1)}")
for line in bad:
    print(line)
print(f"doc-links: {len(bad)} dead")
sys.exit(1 if bad else 0)
PY
