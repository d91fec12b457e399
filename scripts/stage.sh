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
	# .cache/rootfs/root: the tests' Debian rootfs, read where it is.
	# The pinned npm trees (hundreds of MB, read only by the tests) are
	# linked, not copied, where the file system allows it: they stay root's
	# and read-only to the account, and are left out of the chown.
	tar -C "$root" --exclude=./.git --exclude=./.vm --exclude=./.cache/rootfs/root --exclude='./tests/*/node_modules' \
		-cf - . | tar -C "$stage" -xf - || return 111
	chown -R "$user": "$stage"
	local nm
	for nm in "$root"/tests/*/node_modules; do
		[ -d "$nm" ] || continue
		nm=${nm#"$root"/}
		# SR_STAGE_NM_DIR (make check-vm under TCG, where a copy takes
		# minutes): a link to DIR/SUBDIR/node_modules, a read-only bind of it.
		local bound=${SR_STAGE_NM_DIR:-}/$(basename "$(dirname "$nm")")/node_modules
		if [ -n "${SR_STAGE_NM_DIR:-}" ] && [ -d "$bound" ]; then
			ln -s "$bound" "$stage/$nm" || return 111
			continue
		fi
		cp -al "$root/$nm" "$stage/$nm" 2>/dev/null ||
			{ rm -rf "${stage:?}/$nm"; cp -a "$root/$nm" "$stage/$nm"; } || return 111
	done
	mkdir -p "$stage/.home" "$stage/.tmp"
	chown "$user": "$stage/.home" "$stage/.tmp"
	chmod 0700 "$stage"
	runuser -u "$user" -- env -i \
		PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
		HOME="$stage/.home" TMPDIR="$stage/.tmp" USER="$user" LOGNAME="$user" \
		SR_ROOT="$stage" CI="${CI:-}" "$@" bash "$stage/$script"
	rc=$?
	rm -rf "$stage"
	return $rc
}
