#!/usr/bin/env bash
# Builds the fuzzers (clang-14, ASan+UBSan+libFuzzer) and runs each for SECONDS (default 60),
# as many at once as KVPLAN_JOBS (default 2).
# Seeds: every bundled config for fuzz_config, fuzz/corpus/<target>/ for all. New crashes are
# written to fuzz/artifacts/; each one found becomes a file in tests/fuzz_regressions/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
targets="${2:-}"
build="${KVPLAN_FUZZ_BUILD:-build-fuzz}"
if [ "$build" = build-fuzz ]; then
  CXX=clang++-14 CC=clang-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -gline-tables-only -DNDEBUG" -DKVPLAN_BUILD_FUZZERS=ON \
    -DKVPLAN_BUILD_TESTS=OFF -DKVPLAN_BUILD_CLI=OFF -DKVPLAN_BUILD_RUNTIME=OFF -DKVPLAN_BUILD_PYTHON=OFF \
    -DKVPLAN_BUILD_EXAMPLES=OFF -DKVPLAN_BUILD_BENCH=OFF >/dev/null
fi
# KVPLAN_FUZZ_BUILD names another tree configured with KVPLAN_BUILD_FUZZERS=ON (CI's build-asan).
cmake --build "$build" -j"${KVPLAN_JOBS:-2}" >/dev/null
mkdir -p fuzz/artifacts
# One target per core at a time (KVPLAN_JOBS, default 2); each prints its summary when done.
run_one() {
  local exe=$1 name seeds work
  name=$(basename "$exe")
  work=$(mktemp -d)
  seeds=()
  [ -d "fuzz/corpus/$name" ] && seeds+=("fuzz/corpus/$name")
  [ "$name" = fuzz_config ] && seeds+=(model_configs tests/bad_configs)
  out=$("$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix=fuzz/artifacts/"$name"- -print_final_stats=1 "$work" "${seeds[@]}" 2>&1 \
    | grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==.*ERROR|SUMMARY|#[0-9]+ +DONE)' || true)
  rm -rf "$work"
  printf '== %s for %ss\n%s\n' "$name" "$seconds" "$out"
}
running=0
for exe in "$build"/bin/fuzz_*; do
  name=$(basename "$exe")
  if [ -n "$targets" ] && [[ ",$targets," != *",$name,"* ]]; then continue; fi
  run_one "$exe" &
  running=$((running + 1))
  if [ "$running" -ge "${KVPLAN_JOBS:-2}" ]; then wait -n; running=$((running - 1)); fi
done
wait
if ls fuzz/artifacts/* >/dev/null 2>&1; then
  # CI keeps only the log: print each input (base64, first 4 KiB) so it can be replayed from there.
  for a in fuzz/artifacts/*; do
    printf '== %s (%s bytes), base64:\n' "$a" "$(stat -c %s "$a")"
    head -c 4096 "$a" | base64 -w 100
  done
  echo "fuzz: crashes or timeouts found in fuzz/artifacts/"; exit 1
fi
echo "fuzz: no crash"
