#!/usr/bin/env bash
# Debian packages the tests drive for real: socat (pseudo-terminal pairs for the board
# simulator), poppler-utils and zbar-tools (render a label and scan its barcode), and
# chromium (the kiosk's screens are tested in a real browser).
# Installs only what is missing; needs root (or passwordless sudo) the first time.
set -euo pipefail
needed=()
command -v socat >/dev/null || needed+=(socat)
command -v pdftoppm >/dev/null || needed+=(poppler-utils)
command -v zbarimg >/dev/null || needed+=(zbar-tools)
command -v chromium >/dev/null || needed+=(chromium)
[ ${#needed[@]} -eq 0 ] && exit 0
echo "installing test dependencies: ${needed[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${needed[@]}" >/dev/null
