#!/usr/bin/env bash
# Gate every deployment file under deploy/ (or the ones given) with kvplan check.
# Exit 0 when all pass, 1 when any check fails, 2 on bad input. In GitHub Actions, the
# `github` format turns each failure into an error annotation on the deployment file.
set -u
KVPLAN=${KVPLAN:-kvplan}
FORMAT=${FORMAT:-text}
[ -n "${GITHUB_ACTIONS:-}" ] && FORMAT=github
files=("$@")
[ ${#files[@]} -eq 0 ] && files=("$(dirname "$0")/deployment.yaml")
status=0
for f in "${files[@]}"; do
  "$KVPLAN" check "$f" --format "$FORMAT"
  rc=$?
  if [ $rc -gt $status ]; then status=$rc; fi
done
exit $status
