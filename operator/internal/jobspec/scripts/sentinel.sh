#!/bin/sh
# Runs in a NodeOp Job after the user's command succeeded: leaves a sentinel on the host that
# tells this node's reboot pod that it may reboot now. The file appears atomically (mv), so the
# reboot pod never sees a half-written name.
set -eu
dir="${HOST_DIR:?}/usr/local/.kairos"
mkdir -p "$dir"
tmp="$dir/.${JOB_NAME:?}.tmp"
: >"$tmp"
mv "$tmp" "$dir/${JOB_NAME}-$(date +%s)"
echo "Operation succeeded; reboot requested"
