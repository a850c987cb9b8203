#!/usr/bin/env bash
# Installs everything rtlab needs on a fresh Debian machine; safe to run again.
#   1. Debian packages listed in deps/apt.txt (only the missing ones)
#   2. a virtualenv in .venv with rtlab and its dev and lab extras
#   3. each deps/setup.d/*.sh (components that need more: npm packages, toolchains)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}

mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' deps/apt.txt | awk '{print $1}')
missing=()
for pkg in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
if [ ! -x "$VENV/bin/python" ]; then
    echo "setup: creating $VENV"
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
# dev: tests and lint; lab: pyserial and labgrid; plot: matplotlib (an analysis-only
# install leaves lab and plot out)
"$VENV/bin/python" -m pip install -q -e '.[dev,lab,plot]'

for hook in deps/setup.d/*.sh; do
    [ -e "$hook" ] || continue
    echo "setup: $hook"
    VENV="$VENV" bash "$hook"
done
echo "setup: done"
