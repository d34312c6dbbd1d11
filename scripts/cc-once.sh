#!/usr/bin/env bash
# The C compiler of the Node lines' native builds (scripts/ci-node-versions.sh): each
# distinct compile is done once, whichever line asks first. SQLite's amalgamation includes
# no header of Node's, so its object is the same for every line, and the second line takes
# the first one's instead of compiling it again (45 s of a core at -O1, in CI's minutes
# before the suite). A compile is known as ccache knows one in its preprocessor mode: by
# the compiler, the preprocessor's output and every flag; so one that includes Node's
# headers (better-sqlite3's own C++ is not compiled by this anyway) differs per line and is
# compiled for each. Anything that is not one source compiled to one object goes straight
# to the compiler.
#
#   CC=scripts/cc-once.sh CC_ONCE_DIR=DIR node-gyp rebuild ...
set -euo pipefail
compiler=${CC_ONCE_COMPILER:-cc}
all=("$@")
out='' dep='' deps=-MM compile=0 sources=0 preprocess=() flags=()
while [ $# -gt 0 ]; do
  case $1 in
    -o) out=$2 && shift ;;
    # Where the dependencies go: made afresh below, for this object's own path.
    -MF) dep=$2 && shift ;;
    -MT | -MQ) shift ;;
    -MMD) ;;
    -MD) deps=-M ;;
    -c) compile=1 ;;
    -E | -S | -M | -MM) compile=0 && break ;;
    -D* | -U* | -I*) preprocess+=("$1") ;;
    -*) preprocess+=("$1") && flags+=("$1") ;;
    *) preprocess+=("$1") && sources=$((sources + 1)) ;;
  esac
  shift
done
if [ $compile -eq 0 ] || [ $sources -ne 1 ] || [ -z "$out" ] || [ -z "${CC_ONCE_DIR-}" ] ||
  ! command -v flock >/dev/null; then
  exec "$compiler" "${all[@]}"
fi
mkdir -p "$CC_ONCE_DIR"
# What -D, -U and -I do is in the preprocessor's output (a define nothing reads changes
# nothing); every other flag is hashed with it.
key=$(
  {
    "$compiler" --version
    printf '%s\n' "${flags[@]}"
    "$compiler" -E "${preprocess[@]}"
  } | sha256sum | cut -c1-40
)
object="$CC_ONCE_DIR/$key.o"
# One line compiles while the other waits for its object (both lines build at once).
exec 9>"$object.lock"
flock 9
if [ -f "$object" ]; then
  cp "$object" "$out"
  echo "cc-once: $out from $object" >&2
  if [ -n "$dep" ]; then "$compiler" "$deps" -MF "$dep" -MT "$out" "${preprocess[@]}" 9>&-; fi
else
  # The lock is this script's alone: the compiler does not inherit it.
  "$compiler" "${all[@]}" 9>&-
  cp "$out" "$object.part"
  mv "$object.part" "$object"
fi
