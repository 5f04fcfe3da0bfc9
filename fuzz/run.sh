#!/usr/bin/env bash
# Builds the fuzzers (clang-14, ASan+UBSan+libFuzzer) and runs each for SECONDS (default 60).
# Seeds: every bundled config for fuzz_config, fuzz/corpus/<target>/ for all. New crashes are
# written to fuzz/artifacts/; each one found becomes a file in tests/fuzz_regressions/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
targets="${2:-}"
CXX=clang++-14 CC=clang-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVPLAN_BUILD_FUZZERS=ON \
  -DKVPLAN_BUILD_TESTS=OFF -DKVPLAN_BUILD_CLI=OFF -DKVPLAN_BUILD_RUNTIME=OFF -DKVPLAN_BUILD_PYTHON=OFF \
  -DKVPLAN_BUILD_EXAMPLES=OFF -DKVPLAN_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz -j"${KVPLAN_JOBS:-2}" >/dev/null
mkdir -p fuzz/artifacts
for exe in build-fuzz/bin/fuzz_*; do
  name=$(basename "$exe")
  if [ -n "$targets" ] && [[ ",$targets," != *",$name,"* ]]; then continue; fi
  work=$(mktemp -d)
  seeds=()
  [ -d "fuzz/corpus/$name" ] && seeds+=("fuzz/corpus/$name")
  [ "$name" = fuzz_config ] && seeds+=(model_configs tests/bad_configs)
  echo "== $name for ${seconds}s"
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix=fuzz/artifacts/"$name"- -print_final_stats=1 "$work" "${seeds[@]}" 2>&1 \
    | grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|==.*ERROR|SUMMARY|#[0-9]+ +DONE)' || true
  rm -rf "$work"
done
if ls fuzz/artifacts/* >/dev/null 2>&1; then
  echo "fuzz: crashes found in fuzz/artifacts/"; exit 1
fi
echo "fuzz: no crash"
