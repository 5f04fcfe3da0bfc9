#!/usr/bin/env bash
# Gate every deployment file under deploy/ (or the ones given) with kvplan check.
# Exit 2 on any bad input, else 1 when any check fails, else 3 when any is UNCERTAIN, else 0
# (the order kvplan check itself uses for several files). In GitHub Actions, the
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
  # Severity: 2 (bad input) > 1 (FAIL) > 3 (UNCERTAIN) > 0 (PASS); anything else (4: internal error) wins.
  rank() { case $1 in 0) echo 0 ;; 3) echo 1 ;; 1) echo 2 ;; 2) echo 3 ;; *) echo 4 ;; esac; }
  if [ "$(rank $rc)" -gt "$(rank $status)" ]; then status=$rc; fi
done
exit $status
