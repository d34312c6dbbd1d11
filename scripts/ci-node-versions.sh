#!/usr/bin/env bash
# The suite again on the other Node lines we support (default: 22 and 24), after `.ci/run`
# ran the README's install and `pnpm test` on the system Node (20).
#
#   bash scripts/ci-node-versions.sh [MAJOR...]
#
# Per line: the runtime comes from the npm registry's `node-linux-<arch>` package (the
# binary and its C headers, nothing else); the native modules are rebuilt from source
# against those headers (this machine's npm config points `nodedir` at the system Node's:
# overridden here), never taken from pnpm's side-effects cache; `pnpm test` then runs with
# that Node first in PATH, so vitest, its workers and every child process run on it.
# Afterwards the native builds of the system Node are put back, so `pnpm test` works again.
#
# The browser's tests (the kiosk's screens and journeys in Chromium, the console, the
# locker picker: Chromium's work, the same on any Node), the README's commands from a fresh
# clone and the two interface fuzzers (thousands of requests through the same server code)
# are the slow part; the lines beyond 20 skip SKIP_ON_OTHER_LINES (a vitest exclude glob;
# empty runs everything). Every package's unit and integration tests (PostgreSQL, SQLite,
# the serial line, the crypto), the kiosk core's journeys with the simulated board, and the
# kiosk's offline journey in Chromium through the browser host still run on each line.
set -euo pipefail
cd "$(dirname "$0")/.."
default_skip='{test/{kiosk/{journeys,screens*,enrolment,help-reports,link,onItsOwn,overflow,scanPickup,sharedDoor,speechWarmUp},console/*,picker/*,commands/*},server/test/{fuzz,opsFuzz}}.test.ts'
SKIP_ON_OTHER_LINES=${SKIP_ON_OTHER_LINES-$default_skip}
majors=("$@")
[ ${#majors[@]} -eq 0 ] && majors=(22 24)

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "no node-linux package for $(uname -m)" >&2 && exit 1 ;;
esac

# Called from .ci/run: what it ran before (install and test on the system Node) took as
# long as that process has lived.
summary=("node $(node -v) (system): not timed (not called from .ci/run)")
if [[ $(ps -o args= -p "$PPID") == *.ci/run* ]]; then
  summary=("node $(node -v) (system): $(ps -o etimes= -p "$PPID" | tr -d ' ') s for all .ci/run did before")
fi

work=$(mktemp -d)
# The native packages, as installed; their system-Node builds wait in $work meanwhile.
native=(
  "$(cd kiosk && node -p "path.dirname(require.resolve('better-sqlite3/package.json'))")"
  "$(cd lock-driver && node -p "path.dirname(require('node:module').createRequire(
    require.resolve('serialport')).resolve('@serialport/bindings-cpp/package.json'))")"
)
for i in "${!native[@]}"; do
  if [ -d "${native[$i]}/build" ]; then mv "${native[$i]}/build" "$work/build-$i"; fi
done
# (No build to put back: the system Node loaded the package's own prebuild.)
restore() {
  for i in "${!native[@]}"; do
    rm -rf "${native[$i]}/build"
    if [ -d "$work/build-$i" ]; then mv "$work/build-$i" "${native[$i]}/build"; fi
  done
  rm -rf "$work"
}
trap restore EXIT

run_on() {
  local major=$1 runtime="$work/node-$1" start=$SECONDS step
  mkdir -p "$runtime"
  step=$SECONDS
  npm pack --silent "node-linux-$arch@$major" --pack-destination "$work" >"$work/packed"
  tar -xzf "$work/$(tail -n1 "$work/packed")" -C "$runtime" --strip-components=1
  local fetched=$((SECONDS - step))
  export PATH="$runtime/bin:$PATH"
  local version
  version=$(node -v)
  [[ $version == "v$major."* ]] || { echo "expected Node $major, got $version" >&2 && exit 1; }
  echo "=== Node $version: rebuilding native modules against its headers" >&2

  step=$SECONDS
  # Nothing of the previous line's builds may survive: each build below is made afresh.
  for dir in "${native[@]}"; do rm -rf "$dir/build"; done
  # build_from_source: serialport's bindings would otherwise load their bundled prebuild.
  npm_config_nodedir="$runtime" npm_config_build_from_source=true \
    pnpm -r rebuild better-sqlite3 @serialport/bindings-cpp \
    --config.nodedir="$runtime" --config.side-effects-cache=false
  # Each must load under this runtime: a build for another ABI fails right here.
  (cd kiosk && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()")
  for i in "${!native[@]}"; do
    [ -d "${native[$i]}/build/Release" ] || { echo "no build of ${native[$i]}" >&2 && exit 1; }
  done
  local built=$((SECONDS - step))

  echo "=== Node $version: pnpm test${SKIP_ON_OTHER_LINES:+ (without $SKIP_ON_OTHER_LINES)}" >&2
  step=$SECONDS
  if [ -n "$SKIP_ON_OTHER_LINES" ]; then
    pnpm test --exclude "$SKIP_ON_OTHER_LINES"
  else
    pnpm test
  fi
  local tested=$((SECONDS - step))
  summary+=("node $version: $((SECONDS - start)) s (fetch ${fetched} s, native build ${built} s, tests ${tested} s)")
}

failed=()
for major in "${majors[@]}"; do
  # A subshell each: PATH and the runtime stay with their line. Run in the background and
  # waited for, so that errexit stays on inside it; a failing line does not stop the next.
  started=$SECONDS
  (
    run_on "$major"
    printf '%s\n' "${summary[-1]}" >"$work/summary-$major"
  ) &
  if ! wait $!; then
    failed+=("$major")
    echo "node $major: FAILED after $((SECONDS - started)) s" >"$work/summary-$major"
  fi
done
echo "=== durations" >&2
printf '%s\n' "${summary[0]}"
for major in "${majors[@]}"; do cat "$work/summary-$major"; done
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed on Node ${failed[*]}" >&2
  exit 1
fi
