#!/usr/bin/env bash
# Debian packages the tests drive for real: socat (pseudo-terminal pairs for the board
# simulator), poppler-utils and zbar-tools (render a label and scan its barcode), and
# chromium (the kiosk's screens are tested in a real browser), and PostgreSQL 15's server
# and client tools (the backup test dumps and restores with pg_dump/pg_restore, which must
# match their server's version; Debian 12 has no newer ones).
# Installs only what is missing; needs root (or passwordless sudo) the first time.
set -euo pipefail
needed=()
command -v socat >/dev/null || needed+=(socat)
command -v pdftoppm >/dev/null || needed+=(poppler-utils)
command -v zbarimg >/dev/null || needed+=(zbar-tools)
command -v chromium >/dev/null || needed+=(chromium)
# The kiosk's systemd units are checked by systemd-analyze verify, which wants every
# command they run to exist: cage is the touchscreen session's compositor.
command -v systemd-analyze >/dev/null || needed+=(systemd)
command -v cage >/dev/null || needed+=(cage)
ls /usr/lib/postgresql/*/bin/postgres /usr/lib/postgresql/*/bin/pg_restore >/dev/null 2>&1 || needed+=(postgresql-15 postgresql-client-15)
[ ${#needed[@]} -eq 0 ] && exit 0
echo "installing test dependencies: ${needed[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${needed[@]}" >/dev/null
