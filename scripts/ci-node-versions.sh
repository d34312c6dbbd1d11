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
# What runs on the lines beyond 20 is what can differ between runtimes (docs/decisions.md,
# "CI"): every package's own tests (server/src, lock-driver, kiosk/src, shared, console/src:
# the server's whole HTTP, PostgreSQL and crypto stack, SQLite through better-sqlite3, the
# serial line through serialport's bindings, the kiosk's updater, launcher and browser host),
# the server's crash and backup tests, the driver's tests over pseudo-terminals and TCP, and
# one kiosk journey end to end (offline, in Chromium through the browser host). Left out
# (SKIP_ON_OTHER_LINES, a vitest exclude glob; empty runs everything): the browser's tests
# (Chromium's work, the same on any Node), the README's commands from a fresh clone, the two
# interface fuzzers (thousands of requests through the same server code the package tests
# run), the kiosk core's journeys across packages (the same modules the packages' tests
# load on each line, composed; they run on 20), and lockctl's own tests (the technician's
# commands over the driver whose serial, TCP and fault tests run on each line: a line's
# longest file, 72 s of waiting for doors, for argument parsing and sentences).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
default_skip='{test/{kiosk/!(offline),console/*,picker/*,commands/*},server/test/{fuzz,opsFuzz},lock-driver/test/lockctl}.test.ts'
SKIP_ON_OTHER_LINES=${SKIP_ON_OTHER_LINES-$default_skip}
mode=test
if [ "${1-}" = --prepare ]; then mode=prepare && shift; fi
majors=("$@")
[ ${#majors[@]} -eq 0 ] && majors=(22 24)

case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "no node-linux package for $(uname -m)" >&2 && exit 1 ;;
esac

# Each line's runtime and native builds (kept between --prepare and the test run).
prepared=$PWD/.data/node-lines
# The native packages, as installed, and where each one's own dependencies resolve from.
native=(
  "$(cd kiosk && node -p "path.dirname(require.resolve('better-sqlite3/package.json'))")"
  "$(cd lock-driver && node -p "path.dirname(require('node:module').createRequire(
    require.resolve('serialport')).resolve('@serialport/bindings-cpp/package.json'))")"
)
resolve_from=("$(dirname "${native[0]}")" "$(dirname "$(dirname "${native[1]}")")")

# node-gyp as pnpm runs it for an install script (the one that built these modules before).
gyp="$(dirname "$(readlink -f "$(command -v pnpm)")")/../dist/node_modules/node-gyp/bin/node-gyp.js"

# A line's runtime and its native builds, made in copies of the native packages under
# $prepared/MAJOR (never in node_modules, which the system Node's tests may be using
# meanwhile): `--prepare` makes them ahead, in the background of .ci/run's other work.
prepare() {
  local major=$1 dir="$prepared/$1" step=$SECONDS
  rm -rf "$dir" && mkdir -p "$dir/runtime"
  npm pack --silent "node-linux-$arch@$major" --pack-destination "$dir" >"$dir/packed"
  tar -xzf "$dir/$(tail -n1 "$dir/packed")" -C "$dir/runtime" --strip-components=1
  local fetched=$((SECONDS - step))
  export PATH="$dir/runtime/bin:$PATH"
  local version
  version=$(node -v)
  [[ $version == "v$major."* ]] || { echo "expected Node $major, got $version" >&2 && return 1; }
  step=$SECONDS
  for i in "${!native[@]}"; do
    # The package's files as installed (patched), without any build; its dependencies
    # (node-addon-api for the serial bindings' binding.gyp) resolve from where it lies.
    mkdir -p "$dir/src-$i"
    tar -C "${native[$i]}" --exclude=./build --exclude=./node_modules -cf - . | tar -xf - -C "$dir/src-$i"
    # At -O1, not the packages' -O3: these builds exist to prove that each line loads and
    # runs the addons' code (its ABI, its V8 and N-API calls), not to make SQLite fast, and
    # SQLite's amalgamation at -O3 is 130 s of a core on this box, 63 s at -O1; make appends
    # the environment's flags after gyp's, so the last -O is this one.
    (
      cd "$dir/src-$i"
      # Each distinct C compile once for both lines (scripts/cc-once.sh): SQLite's object
      # is the same for every line, and only one of them compiles it.
      CC="$root/scripts/cc-once.sh" CC_ONCE_DIR="$prepared/objects" \
        CFLAGS=-O1 CXXFLAGS=-O1 NODE_PATH="${resolve_from[$i]}" npm_config_nodedir="$dir/runtime" \
        node "$gyp" rebuild --release --nodedir="$dir/runtime" >"$dir/build-$i.log" 2>&1 ||
        { cat "$dir/build-$i.log" >&2 && exit 1; }
    ) &
  done
  local status=0
  for _ in "${native[@]}"; do wait -n || status=1; done
  [ $status -eq 0 ] || return 1
  echo "fetch ${fetched} s, native build $((SECONDS - step)) s" >"$dir/prepared"
}

run_on() {
  local major=$1 dir="$prepared/$1" start=$SECONDS step
  if [ ! -f "$dir/prepared" ]; then
    echo "=== Node $major: fetching it and building the native modules against its headers" >&2
    prepare "$major"
  fi
  export PATH="$dir/runtime/bin:$PATH"
  local version
  version=$(node -v)
  [[ $version == "v$major."* ]] || { echo "expected Node $major, got $version" >&2 && exit 1; }
  # Nothing of the previous line's builds may survive: each line gets the builds made
  # for it, afresh from source.
  for i in "${!native[@]}"; do
    rm -rf "${native[$i]}/build"
    cp -r "$dir/src-$i/build" "${native[$i]}/build"
    [ -d "${native[$i]}/build/Release" ] || { echo "no build of ${native[$i]}" >&2 && exit 1; }
  done
  # Each must load under this runtime: a build for another ABI fails right here.
  (cd kiosk && node -e "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()")
  node -e "require(process.argv[1] + '/dist/load-bindings.js')" "${native[1]}"

  echo "=== Node $version: pnpm test${SKIP_ON_OTHER_LINES:+ (without $SKIP_ON_OTHER_LINES)}" >&2
  step=$SECONDS
  # Kept as well as shown: a failing line's failures are printed again after the last
  # line's output (CI keeps only the tail of what it prints).
  local args=()
  if [ -n "$SKIP_ON_OTHER_LINES" ]; then args=(--exclude "$SKIP_ON_OTHER_LINES"); fi
  pnpm test "${args[@]}" 2>&1 | tee "$work/test-$major.log"
  local tested=$((SECONDS - step))
  summary+=("node $version: $((SECONDS - start)) s here ($(cat "$dir/prepared"), tests ${tested} s)")
}

if [ $mode = prepare ]; then
  # Every line at once: each build is mostly one compiler process.
  # The shared objects of cc-once too: every prepared build is made afresh here.
  rm -rf "$prepared/objects" && mkdir -p "$prepared"
  for major in "${majors[@]}"; do (prepare "$major") & done
  status=0
  for _ in "${majors[@]}"; do wait -n || status=1; done
  for major in "${majors[@]}"; do
    echo "node $major: $(cat "$prepared/$major/prepared" 2>/dev/null || echo FAILED)"
  done
  exit $status
fi

# Called from .ci/run: what it ran before (install and test on the system Node) took as
# long as that process has lived.
summary=("node $(node -v) (system): not timed (not called from .ci/run)")
if [[ $(ps -o args= -p "$PPID") == *.ci/run* ]]; then
  summary=("node $(node -v) (system): $(ps -o etimes= -p "$PPID" | tr -d ' ') s for all .ci/run did before")
fi

# The system Node's builds wait in $work meanwhile.
work=$(mktemp -d)
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
for major in "${failed[@]}"; do
  [ -f "$work/test-$major.log" ] || continue
  echo "=== Node $major: what failed (again, from its test output above)" >&2
  # vitest's account of each failure, from its first failure block to its summary.
  sed -n '/Failed Tests\|Unhandled Error\|FAIL /,/Test Files/p' "$work/test-$major.log" | head -n 300 >&2
done
echo "=== durations" >&2
printf '%s\n' "${summary[0]}"
for major in "${majors[@]}"; do cat "$work/summary-$major"; done
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed on Node ${failed[*]}" >&2
  exit 1
fi
