# scripts/stage.sh - run a command of the tree as an unprivileged account.
# Sourced by tests/run and bench/run. The sandbox is used by ordinary
# users, so when these scripts start as root they copy the built tree to a
# private staging directory that the account can read (the checkout may sit
# under a root-only home) and run there as that account, created on first
# use.
#
#   sr_stage_run ROOT USER SCRIPT [ENV=VALUE ...]
#       runs "bash STAGE/SCRIPT" as USER with a clean environment holding
#       PATH, LANG, HOME, TMPDIR, SR_ROOT=STAGE and the given variables;
#       returns its exit status and removes the staging directory.
sr_stage_run() {
	local root=$1 user=$2 script=$3 stage rc
	shift 3
	if ! id -u "$user" >/dev/null 2>&1; then
		echo "# creating unprivileged account '$user'"
		useradd --system --no-create-home --home-dir /nonexistent \
			--shell /usr/sbin/nologin "$user" || return 111
	fi
	echo "# started as root; running as unprivileged account '$user' (uid $(id -u "$user"))"
	stage=$(mktemp -d /tmp/sr-stage.XXXXXX) || return 111
	# .cache/rootfs/root: the tests' Debian rootfs, read where it is
	tar -C "$root" --exclude=./.git --exclude=./.cache/rootfs/root -cf - . |
		tar -C "$stage" -xf - || return 111
	mkdir -p "$stage/.home" "$stage/.tmp"
	chown -R "$user": "$stage"
	chmod 0700 "$stage"
	runuser -u "$user" -- env -i \
		PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		HOME="$stage/.home" TMPDIR="$stage/.tmp" USER="$user" LOGNAME="$user" \
		SR_ROOT="$stage" CI="${CI:-}" "$@" bash "$stage/$script"
	rc=$?
	rm -rf "$stage"
	return $rc
}
