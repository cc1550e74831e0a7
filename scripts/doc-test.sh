#!/usr/bin/env bash
# Runs every fenced shell block marked runnable (```sh runnable) in README.md and docs/, so that
# no document shows a command that no longer works. Each block runs with bash -euo pipefail in a
# fresh temporary directory that holds `build` (a link to the build directory) and links to the
# repository's devices/, workloads/, fleets/, scripts/ and docs/, so a block writes its outputs
# there and reads the catalogue as a user's checkout would. Prints each block's file:line, its
# seconds and, for a failure, its output; exits 1 if any block failed. ctest runs it as
# docs_runnable_blocks.
# Usage: scripts/doc-test.sh [build dir]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$root/build}")
work=$(mktemp -d /tmp/edgetwin-docs.XXXXXX)
trap 'rm -rf "$work"' EXIT
failed=0
blocks=0
start=$SECONDS
while IFS= read -r -d '' doc; do
  # Block starts (line numbers) and bodies, one file per block.
  awk -v out="$work/block" '
    /^```sh runnable[ \t]*$/ { inside = 1; n++; file = out "-" n; printf "%d\n", NR > (file ".line"); next }
    /^```/ && inside { inside = 0; next }
    inside { print > file }
  ' "$doc"
  for body in "$work"/block-[0-9]*; do
    [[ $body == *.line ]] && continue
    [[ -f $body ]] || continue
    blocks=$((blocks + 1))
    line=$(cat "$body.line")
    dir=$(mktemp -d "$work/run.XXXXXX")
    ln -s "$build" "$dir/build"
    for d in devices workloads fleets scripts docs; do ln -s "$root/$d" "$dir/$d"; done
    block_start=$SECONDS
    if (cd "$dir" && timeout 300 bash -euo pipefail "$body") > "$dir/output" 2>&1; then
      echo "ok   ${doc#"$root"/}:$line ($((SECONDS - block_start)) s)"
    else
      failed=$((failed + 1))
      echo "FAIL ${doc#"$root"/}:$line ($((SECONDS - block_start)) s)"
      sed 's/^/     | /' "$dir/output" | tail -20
    fi
    rm -f "$body" "$body.line"
  done
done < <(find "$root/README.md" "$root/docs" -name '*.md' -print0 | sort -z)
echo "doc-test: $blocks runnable blocks, $failed failed, $((SECONDS - start)) s"
[[ $failed -eq 0 ]]
