# Preflight of a Kairos upgrade, run in the upgrade image with the host's root filesystem
# read-only at $HOST_DIR. A node already at the image's version is skipped: the reason goes to
# the termination message. Unknown versions never match, so they never skip a node.
set -eu
: "${HOST_DIR:=/host}" "${IMAGE_ROOT:=}" "${TERMINATION_LOG:=/dev/termination-log}"

target=$(kairos_version "$IMAGE_ROOT/etc")
current=$(kairos_version "$HOST_DIR/etc")
echo "The node runs ${current:-an unknown version}; the image holds ${target:-an unknown version}."
if [ -n "$target" ] && [ "$target" = "$current" ]; then
	printf 'already at %s\n' "$target" >"$TERMINATION_LOG"
fi
