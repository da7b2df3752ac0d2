# Upgrades Kairos on the host from this container's root filesystem (the new image), with the
# host's root filesystem at $HOST_DIR.
#
# Usage: upgrade [--active] [--recovery] [--debug] -- [PATH_TO_KEEP...]
#
# Paths arrive as separate arguments, never through shell parsing, so any character in them is
# safe; each becomes one --exclude-path argument of kairos-agent.
set -eu
: "${HOST_DIR:=/host}" "${IMAGE_ROOT:=}" "${TERMINATION_LOG:=/dev/termination-log}"

active='' recovery='' debug=''
while [ $# -gt 0 ]; do
	case "$1" in
	--active) active=yes ;;
	--recovery) recovery=yes ;;
	--debug) debug=--debug ;;
	--)
		shift
		break
		;;
	*)
		echo "upgrade: unknown option $1" >&2
		exit 2
		;;
	esac
	shift
done
if [ -z "$active$recovery" ]; then
	echo "upgrade: nothing to upgrade: pass --active and/or --recovery" >&2
	exit 2
fi

# Replace the paths in "$@" by --exclude-path pairs, one path per argument.
n=$#
while [ "$n" -gt 0 ]; do
	set -- "$@" --exclude-path "$1"
	shift
	n=$((n - 1))
done

# Report the version being installed for the operator to check after the reboot. Written now:
# once the host's /dev is bound over ours, /dev/termination-log is no longer the kubelet's
# file. The operator reads it only if the upgrade succeeds.
f=$(release_file "$IMAGE_ROOT/etc")
if [ -n "$f" ]; then
	printf 'KAIROS_VERSION=%s\nKAIROS_SOFTWARE_VERSION=%s\n' \
		"$(release_value "$f" KAIROS_VERSION)" "$(release_value "$f" KAIROS_SOFTWARE_VERSION)" >"$TERMINATION_LOG"
fi
echo "Installing ${IMAGE_ROOT:-/}: $(kairos_version "$IMAGE_ROOT/etc")"

# kairos-agent needs the host's devices (partitions) and runtime state.
mount --rbind "$HOST_DIR/dev" /dev
mount --rbind "$HOST_DIR/run" /run

if [ -n "$recovery" ]; then
	echo "Upgrading the recovery system"
	kairos-agent $debug upgrade --recovery --source dir:/ "$@"
fi
if [ -n "$active" ]; then
	echo "Upgrading the active system"
	kairos-agent $debug upgrade --source dir:/ "$@"
fi
echo "Upgrade installed"
