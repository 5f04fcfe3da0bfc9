#!/usr/bin/env bash
# Builds the container image (Dockerfile) and runs it: `kvplan size` as the README's command 1,
# the non-root user, no compiler in the final image. Exit 77 (CTest: skipped) with the reason when
# no container engine is usable here (none installed, no daemon, or no registry for the base image).
#   tests/install/test_image.sh <source dir>
set -uo pipefail
src="${1:?usage: test_image.sh <source dir>}"
engine=""
for e in docker podman; do command -v "$e" >/dev/null 2>&1 && { engine=$e; break; }; done
[ -n "$engine" ] || { echo "SKIPPED: no container engine (docker or podman) on this machine"; exit 77; }
"$engine" info >/dev/null 2>&1 || { echo "SKIPPED: $engine is installed but its daemon is not reachable"; exit 77; }
base=$(sed -nE 's/^ARG DEBIAN=(.*)$/debian:\1-slim/p' "$src/Dockerfile")
if ! "$engine" image inspect "$base" >/dev/null 2>&1 && ! timeout 60 "$engine" pull -q "$base" >/dev/null 2>&1; then
  echo "SKIPPED: $engine cannot pull the base image $base (no registry access)"; exit 77
fi
tag="kvplan-test:$$"
trap '"$engine" rmi -f "$tag" >/dev/null 2>&1' EXIT
if ! "$engine" build -q -t "$tag" "$src" >/tmp/kvplan-image-build.$$ 2>&1; then
  if grep -qiE "temporary failure|could not resolve|network is unreachable|failed to fetch" /tmp/kvplan-image-build.$$; then
    echo "SKIPPED: the image build has no network for apt ($(grep -m1 -iE 'temporary failure|could not resolve|unreachable|failed to fetch' /tmp/kvplan-image-build.$$))"
    rm -f /tmp/kvplan-image-build.$$; exit 77
  fi
  tail -30 /tmp/kvplan-image-build.$$; rm -f /tmp/kvplan-image-build.$$; echo "FAIL: image build"; exit 1
fi
rm -f /tmp/kvplan-image-build.$$
fail=0
out=$("$engine" run --rm "$tag" size Qwen/Qwen3-0.6B --tokens 40960 --json) || fail=1
echo "$out" | grep -q '"total_bytes": 4697620480' || { echo "FAIL: kvplan size in the image: $out"; fail=1; }
user=$("$engine" run --rm --entrypoint id "$tag" -u) || fail=1
[ "$user" != "0" ] || { echo "FAIL: the image runs as root"; fail=1; }
if "$engine" run --rm --entrypoint sh "$tag" -c 'command -v c++ || command -v g++ || command -v gcc || command -v cc'; then
  echo "FAIL: a compiler in the final image"; fail=1
fi
[ $fail -eq 0 ] && echo "ok: image builds, runs kvplan as uid $user, no compiler"
exit $fail
