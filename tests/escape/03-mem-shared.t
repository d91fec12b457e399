#!/bin/bash
# Escape 3: a memory limit that does not count shared memory is no limit.
# RLIMIT_DATA counts private mappings only, per process; MAP_SHARED
# anonymous memory, a memfd and SysV shm all escape it. So --mem, the
# run's whole memory, is a cgroup's memory.max or nothing: without a
# delegated cgroup sr-limit refuses it (111) and names the fix, and
# --data, the per-process rlimit, is the explicit choice of the gap.
. "$(dirname "$0")/../lib.sh"

# balloon KIND MIB: touch MIB MiB of KIND memory, then say "held"; for
# KIND tmpfs, written into a file of /dev/shm (removed after).
cc_probe_file balloon balloon.c
shmfile=/dev/shm/sr-balloon.$$
at_exit "rm -f $shmfile"

cgdir=/sys/fs/cgroup$(sed -n 's/^0:://p' /proc/self/cgroup)
if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ] && [ -w "$cgdir/cgroup.subtree_control" ]; then
	cgroup=yes
else
	cgroup=
	why="no delegated cgroup v2 here (/sys/fs/cgroup is $(stat -f -c %T /sys/fs/cgroup 2>/dev/null))"
fi

if [ -z "$cgroup" ]; then
	# Fail closed: --mem is refused, the program never runs.
	run sr-limit --mem 256M --stats "$T/refused.json" sh -c 'echo RAN'
	is "$rc" 111 "--mem without a delegated cgroup: 111"
	is "$out" "" "... and the program did not run"
	like "$err" "^sr-limit: fatal: --mem needs a delegated cgroup v2 \(.*\): run sr-limit under 'systemd-run --user --scope -p Delegate=yes', or use --data SIZE" \
		"... naming the fixes in one line"
	run sr-limit --mem 256M sr-jail sr-exec sh -c 'echo RAN'
	is "$rc:$out" "111:" "through the chain too"
	for kind in private shared memfd sysv tmpfs; do
		skip "--mem 256M stops a 2 GiB $kind balloon (reason memory)" "$why"
	done
else
	for kind in private shared memfd sysv tmpfs; do
		run sr-limit --mem 256M --stats "$T/$kind.json" "$T/balloon" $kind 2048 $shmfile
		rm -f $shmfile
		is "$out:$(json_get "$T/$kind.json" reason):$(json_get "$T/$kind.json" via)" \
			":memory:cgroup memory.max" "--mem 256M stops a 2 GiB $kind balloon (reason memory)"
	done
	skip "--mem without a delegated cgroup: 111" "a delegated cgroup is here"
fi
run sr-limit --cgroup off --mem 256M true
is "$rc" 100 "--mem with --cgroup=off is a usage error"
like "$err" "^sr-limit: usage: --mem needs a cgroup" "... and says so"

# --data is per process and private memory only, and says so: the report
# names it data (rlimit data), never memory.
run sr-limit --data 256M --stats "$T/data.json" "$T/balloon" private 512
is "$out" "" "--data 256M: a 512 MiB private balloon is refused"
is "$(json_get "$T/data.json" limits.data.via)" "rlimit data" "the report names the rlimit"
is "$(json_get "$T/data.json" limits.memory)" "<missing>" "... and claims no memory bound"
# The gap --data leaves, which is why --mem will not fall back to it: each
# kind of shared memory is not counted.
for kind in shared memfd sysv tmpfs; do
	run sr-limit --data 256M "$T/balloon" $kind 512 $shmfile
	rm -f $shmfile
	is "$out" "held" "--data 256M does not count a 512 MiB $kind balloon (the documented gap)"
done

# In the jail, SysV shm is the jail's own: a segment left behind dies with
# the jail's IPC namespace, and none of the host's is visible.
if have_userns; then
	run sr-jail sh -c 'cat /proc/sysvipc/shm | wc -l'
	is "$out" 1 "the jail sees no SysV shm segment but its own (header line only)"
else
	skip "the jail's SysV shm is its own" "no user namespaces here: $userns_why"
fi

done_testing
