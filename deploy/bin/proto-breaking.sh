#!/usr/bin/env bash
# `npm run proto:breaking [-- <git ref>]`: buf breaking (FILE rules) of the working tree's protos against a git ref.
# Default ref: `main` when working on another branch, else the previous commit (HEAD~1), so CI on main checks the
# newest commit and a feature branch checks everything it changes. Published packages may only change compatibly.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ref="${1:-}"
if [[ -z $ref ]]; then
  branch=$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo "")
  if [[ $branch != "main" ]] && git rev-parse --verify -q main >/dev/null; then ref=main; else ref=HEAD~1; fi
fi
if ! git rev-parse --verify -q "$ref^{commit}" >/dev/null; then
  echo "proto:breaking: no commit $ref to compare with; nothing to check"
  exit 0
fi
if [[ -z $(git ls-tree -r --name-only "$ref" -- proto | grep '\.proto$' || true) ]]; then
  echo "proto:breaking: $ref has no protos yet; nothing to check"
  exit 0
fi
npx buf breaking --against ".git#ref=$(git rev-parse "$ref")"
echo "proto:breaking: compatible with $ref"
