#!/bin/bash
# Turns a fresh Debian machine into a parcel-locker kiosk (README: "Installing a kiosk").
#
#   install.sh --server-url https://lockers.example [--app DIR] [--lock serial:/dev/serial/by-id/…]
#              [--root DIR] [--no-packages]
#
# --server-url  the service the kiosk talks to (written to /etc/parcel-locker/kiosk.json
#               on the first install; an existing kiosk.json is kept as it is)
# --app DIR     the kiosk application to install in /opt/parcel-locker-kiosk/app, as
#               `pnpm --filter @locker/kiosk deploy --prod DIR` makes it, renderer built
# --lock SPEC   serial:PATH (default serial:/dev/ttyUSB0), tcp:HOST:PORT, or simulator:BOARDS
# --release-key FILE  the public half of the operator's release key (PEM): installed as
#               /etc/parcel-locker/release-key.pub.pem; without it the kiosk takes no update
# --root DIR    install into DIR instead of / (a scratch root: tests, image builds);
#               nothing outside DIR is changed, no service is started
# --no-packages do not apt-get install Node, Chromium and cage
#
# Creates the system user locker-kiosk; the configuration folder /etc/parcel-locker
# (root:locker-kiosk 0750, kiosk.json 0640: it holds no secret); the data folder
# /var/lib/parcel-locker-kiosk (locker-kiosk 0700: the device token, credentials.json
# 0600 once enrolled, the report queue, logs, Chromium's profile); the two systemd units,
# enabled (the core on multi-user.target, the touchscreen session on graphical.target).
# Every path it sets is listed with its mode and owner in
# /opt/parcel-locker-kiosk/install-manifest. Running it again changes nothing it made.
set -euo pipefail

ROOT=/
SERVER_URL=
APP=
LOCK=serial:/dev/ttyUSB0
RELEASE_KEY=
PACKAGES=yes
USER_NAME=locker-kiosk
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die() {
  echo "install.sh: $*" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case $1 in
    --root) ROOT=${2:?--root needs a folder}; shift 2 ;;
    --server-url) SERVER_URL=${2:?--server-url needs a URL}; shift 2 ;;
    --app) APP=${2:?--app needs a folder}; shift 2 ;;
    --lock) LOCK=${2:?--lock needs serial:PATH, tcp:HOST:PORT or simulator:BOARDS}; shift 2 ;;
    --release-key) RELEASE_KEY=${2:?--release-key needs a PEM file}; shift 2 ;;
    --no-packages) PACKAGES=no; shift ;;
    -h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done

ROOT=$(realpath -m "$ROOT")
SCRATCH=no
[ "$ROOT" != / ] && SCRATCH=yes
R=${ROOT%/}
[ "$(id -u)" = 0 ] || [ $SCRATCH = yes ] || die "run it as root (sudo), or with --root DIR"
case $SERVER_URL in
  https://* | http://*) ;;
  '') [ -f "$R/etc/parcel-locker/kiosk.json" ] || die "--server-url is needed on the first install" ;;
  *) die "--server-url must start with https:// (got \"$SERVER_URL\")" ;;
esac
case $LOCK in
  serial:/*) LOCK_JSON="{ \"kind\": \"serial\", \"path\": \"${LOCK#serial:}\", \"baudRate\": 19200 }" ;;
  tcp:*:*)
    hp=${LOCK#tcp:}
    [[ ${hp##*:} =~ ^[0-9]+$ ]] || die "--lock tcp:HOST:PORT needs a port number (got \"$LOCK\")"
    LOCK_JSON="{ \"kind\": \"tcp\", \"host\": \"${hp%:*}\", \"port\": ${hp##*:} }" ;;
  simulator:[0-9]*) LOCK_JSON="{ \"kind\": \"simulator\", \"boards\": ${LOCK#simulator:} }" ;;
  *) die "--lock must be serial:/dev/…, tcp:HOST:PORT or simulator:BOARDS (got \"$LOCK\")" ;;
esac

if [ $PACKAGES = yes ] && [ $SCRATCH = no ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    nodejs chromium cage fonts-dejavu-core ca-certificates
fi

# --- the user -----------------------------------------------------------------------
PREFIX=()
if [ $SCRATCH = yes ]; then
  mkdir -p "$R/etc"
  for f in passwd group; do [ -e "$R/etc/$f" ] || : >"$R/etc/$f"; done
  for f in shadow gshadow; do [ -e "$R/etc/$f" ] || (umask 077 && : >"$R/etc/$f"); done
  PREFIX=(--prefix "$R")
fi
for g in dialout video input render; do
  grep -q "^$g:" "$R/etc/group" || groupadd "${PREFIX[@]}" --system "$g"
done
if ! grep -q "^$USER_NAME:" "$R/etc/passwd"; then
  useradd "${PREFIX[@]}" --system --user-group --no-create-home \
    --home-dir /var/lib/parcel-locker-kiosk --shell /usr/sbin/nologin \
    --groups dialout,video,input,render --comment "parcel locker kiosk" "$USER_NAME"
fi
KIOSK_UID=$(awk -F: -v u="$USER_NAME" '$1 == u { print $3 }' "$R/etc/passwd")
KIOSK_GID=$(awk -F: -v u="$USER_NAME" '$1 == u { print $3 }' "$R/etc/group")

# --- files, each with its mode and owner, listed in the manifest --------------------
MANIFEST_LINES=()
CAN_CHOWN=no
[ "$(id -u)" = 0 ] && CAN_CHOWN=yes
# place PATH MODE OWNER:GROUP (names; uid/gid from the root's own passwd and group)
place() {
  local path=$1 mode=$2 owner=$3 uid gid
  case $owner in
    root:root) uid=0 gid=0 ;;
    root:$USER_NAME) uid=0 gid=$KIOSK_GID ;;
    $USER_NAME:$USER_NAME) uid=$KIOSK_UID gid=$KIOSK_GID ;;
    *) die "no owner $owner" ;;
  esac
  chmod "$mode" "$R$path"
  [ $CAN_CHOWN = yes ] && chown "$uid:$gid" "$R$path"
  MANIFEST_LINES+=("$mode $owner $path")
}
folder() {
  mkdir -p "$R$1"
  place "$1" "$2" "$3"
}
file_from() { # file_from SOURCE PATH MODE OWNER
  install -D -m "$3" "$1" "$R$2"
  place "$2" "$3" "$4"
}

folder /etc/parcel-locker 0750 "root:$USER_NAME"
folder /var/lib/parcel-locker-kiosk 0700 "$USER_NAME:$USER_NAME"
folder /var/lib/parcel-locker-kiosk/session 0700 "$USER_NAME:$USER_NAME"
folder /opt/parcel-locker-kiosk 0755 root:root
folder /opt/parcel-locker-kiosk/bin 0755 root:root

CONFIG=/etc/parcel-locker/kiosk.json
if [ ! -f "$R$CONFIG" ]; then
  cat >"$R$CONFIG" <<JSON
{
  "serverUrl": "$SERVER_URL",
  "credentialsFile": "/var/lib/parcel-locker-kiosk/credentials.json",
  "lock": $LOCK_JSON,
  "cabinetFile": "cabinet.json",
  "dataDir": "/var/lib/parcel-locker-kiosk",
  "updates": {
    "dir": "/var/lib/parcel-locker-kiosk/updates",
    "publicKeyFile": "release-key.pub.pem"
  }
}
JSON
fi
place "$CONFIG" 0640 "root:$USER_NAME"
if [ -n "$RELEASE_KEY" ]; then
  grep -q 'BEGIN PUBLIC KEY' "$RELEASE_KEY" || die "--release-key $RELEASE_KEY is not a public key (PEM)"
  file_from "$RELEASE_KEY" /etc/parcel-locker/release-key.pub.pem 0644 root:root
fi

file_from "$HERE/wait-for-kiosk" /opt/parcel-locker-kiosk/bin/wait-for-kiosk 0755 root:root
for tool in lockctl kiosk-enrol; do
  case $tool in
    lockctl) target=/opt/parcel-locker-kiosk/app/node_modules/@locker/lock-driver/bin/lockctl.mjs ;;
    kiosk-enrol) target="--import tsx /opt/parcel-locker-kiosk/app/src/core/enrolCli.ts" ;;
  esac
  printf '#!/bin/sh\nexec /usr/bin/node %s "$@"\n' "$target" >"$R/opt/parcel-locker-kiosk/bin/$tool"
  place "/opt/parcel-locker-kiosk/bin/$tool" 0755 root:root
done

if [ -n "$APP" ]; then
  [ -f "$APP/package.json" ] && [ -d "$APP/dist/renderer" ] ||
    die "--app $APP is not a deployed kiosk (package.json and dist/renderer expected)"
  rm -rf "$R/opt/parcel-locker-kiosk/app.new"
  cp -a "$APP" "$R/opt/parcel-locker-kiosk/app.new"
  [ $CAN_CHOWN = yes ] && chown -R 0:0 "$R/opt/parcel-locker-kiosk/app.new"
  rm -rf "$R/opt/parcel-locker-kiosk/app"
  mv "$R/opt/parcel-locker-kiosk/app.new" "$R/opt/parcel-locker-kiosk/app"
  place /opt/parcel-locker-kiosk/app 0755 root:root
fi

UNITS=(parcel-locker-kiosk.service parcel-locker-kiosk-session.service)
for unit in "${UNITS[@]}"; do
  file_from "$HERE/$unit" "/etc/systemd/system/$unit" 0644 root:root
done

# --- start on boot ------------------------------------------------------------------
if [ $SCRATCH = yes ]; then
  # systemctl --root works offline: it makes the same links enable makes.
  systemctl --root="$R" enable "${UNITS[@]}" >/dev/null 2>&1 || {
    mkdir -p "$R/etc/systemd/system/multi-user.target.wants" "$R/etc/systemd/system/graphical.target.wants"
    ln -sf /etc/systemd/system/parcel-locker-kiosk.service "$R/etc/systemd/system/multi-user.target.wants/"
    ln -sf /etc/systemd/system/parcel-locker-kiosk-session.service "$R/etc/systemd/system/graphical.target.wants/"
  }
else
  systemctl daemon-reload
  systemctl set-default graphical.target
  systemctl enable "${UNITS[@]}"
fi

printf '%s\n' "# mode owner:group path (set by install.sh)" "${MANIFEST_LINES[@]}" \
  >"$R/opt/parcel-locker-kiosk/install-manifest"
chmod 0644 "$R/opt/parcel-locker-kiosk/install-manifest"

cat <<DONE
Kiosk installed${ROOT:+ in $ROOT}. Next (README, "Installing a kiosk"):
  1. map the cabinet:  /opt/parcel-locker-kiosk/bin/lockctl map --port PORT --boards N --cabinet /etc/parcel-locker/cabinet.json
  2. enrol:            sudo -u $USER_NAME /opt/parcel-locker-kiosk/bin/kiosk-enrol /etc/parcel-locker/kiosk.json CODE
  3. reboot, or:       systemctl start ${UNITS[*]}
DONE
