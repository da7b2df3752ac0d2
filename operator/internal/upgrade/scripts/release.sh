# Reading Kairos release files, shared by the preflight check and the upgrade script. Values
# are read with sed, never sourced: a release file is data, not code to run.

# release_value FILE KEY prints KEY's value in FILE (quotes removed), nothing when absent.
release_value() {
	[ -f "$1" ] || return 0
	sed -n "s/^[[:space:]]*$2=//p" "$1" | tail -n 1 |
		sed -e 's/^"\(.*\)"$/\1/' -e "s/^'\\(.*\\)'\$/\\1/"
}

# release_file DIR prints the release file in DIR (an etc directory) that names a Kairos
# version: kairos-release, else os-release. Nothing when neither does.
release_file() {
	for f in "$1/kairos-release" "$1/os-release"; do
		if [ -n "$(release_value "$f" KAIROS_VERSION)" ]; then
			echo "$f"
			return 0
		fi
	done
}

# kairos_version DIR prints the Kairos version described in DIR as the image tags spell it:
# KAIROS_VERSION, plus "-<software prefix><software version>" when a Kubernetes distribution
# is part of the system (v3.4.2-k3sv1.32.4+k3s1). Nothing when unknown.
kairos_version() {
	_file=$(release_file "$1")
	[ -n "$_file" ] || return 0
	_version=$(release_value "$_file" KAIROS_VERSION)
	_software=$(release_value "$_file" KAIROS_SOFTWARE_VERSION)
	if [ -n "$_software" ]; then
		_version="$_version-$(release_value "$_file" KAIROS_SOFTWARE_VERSION_PREFIX)$_software"
	fi
	echo "$_version"
}
