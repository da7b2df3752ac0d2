#!/bin/sh
# Runs in a NodeOp's reboot pod: waits for the sentinel of its own Job (JOB_NAME-<unix time>),
# removes it and reboots the host. The sentinel goes before the reboot, so when the pod starts
# again after the reboot it finds nothing and waits until the operator removes it: one reboot,
# never two.
set -eu
dir="${SENTINEL_DIR:?}"
prefix="${JOB_NAME:?}-"
: "${REBOOT_COMMAND:?}"
interval="${POLL_SECONDS:-1}"
echo "Waiting for ${dir}/${prefix}<time>"
while :; do
	for f in "$dir/$prefix"*; do
		[ -f "$f" ] || continue
		# Only <job>-<digits> is ours; another Job whose name starts like ours is not.
		case "${f#"$dir/$prefix"}" in
		'' | *[!0-9]*) continue ;;
		esac
		rm -f "$f"
		echo "Found $f; rebooting"
		exec sh -c "$REBOOT_COMMAND"
	done
	sleep "$interval"
done
