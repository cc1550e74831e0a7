#!/usr/bin/env bash
# docs/reference/cli.md is what scripts/cli-reference.sh writes from the programs' --help: an
# option added, renamed or given another default without the page regenerated fails here.
# ctest runs it as docs_cli_reference.
# Usage: scripts/cli-reference-test.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! diff -u "$root/docs/reference/cli.md" <("$root/scripts/cli-reference.sh" "${1:-$root/build}"); then
  echo "docs/reference/cli.md is out of date: scripts/cli-reference.sh build > docs/reference/cli.md" >&2
  exit 1
fi
