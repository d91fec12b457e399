#!/bin/bash
# A limit that does not hold is never reported as held. For every limit
# of sr-limit, alone and through the chain: the program tries to exceed
# it, and to raise it, and the limit either holds by a mechanism that
# binds whoever runs it, or the run is refused naming why, or (under
# --best-effort) the run goes on and the report lists the limit under
# not_enforced, never under limits; each time the report says exactly
# which. make check runs this file as a user; tests/root/limit-as-root.t
# runs it as root, as CI jobs and containers start the chain.
. "$(dirname "$0")/lib.sh"

root=0
[ "$(id -u)" = 0 ] && root=1
me=$([ $root = 1 ] && echo root || echo "uid $(id -u)")
chmod 0755 "$T" # as root, the jail runs as nobody: it must reach $T/p
mkdir -p "$T/p"
cc_probe_file p/rp rp.c -pthread
# rl NAME...: try to raise each hard limit by one; says raised or why not.
cc_probe p/rl '#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
static const struct { const char *n; int r; } t[] = {
	{ "data", RLIMIT_DATA }, { "as", RLIMIT_AS }, { "cpu", RLIMIT_CPU },
	{ "nofile", RLIMIT_NOFILE }, { "fsize", RLIMIT_FSIZE },
	{ "stack", RLIMIT_STACK }, { "core", RLIMIT_CORE }, { "nproc", RLIMIT_NPROC } };
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		for (unsigned k = 0; k < sizeof t / sizeof *t; k++) {
			struct rlimit l;
			if (strcmp(argv[i], t[k].n) || getrlimit(t[k].r, &l) < 0)
				continue;
			if (l.rlim_max == RLIM_INFINITY) { printf("%s unlimited\n", t[k].n); continue; }
			l.rlim_cur = l.rlim_max = l.rlim_max + 1;
			printf("%s %s\n", t[k].n, setrlimit(t[k].r, &l) == 0 ? "raised" :
			       strerrorname_np(errno));
		}
	return 0;
}'
# hog: allocate and touch 1 MiB at a time, until stopped.
cc_probe p/hog '#include <stdlib.h>
#include <string.h>
int main(void) { for (;;) { char *p = malloc(1 << 20); if (!p) abort(); memset(p, 1, 1 << 20); } }'
# deep KIB: recurse through KIB KiB of stack.
cc_probe p/deep '#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int deep(long n)
{
	volatile char b[4000];
	memset((char *)b, (int)n, sizeof b);
	return n ? deep(n - 1) + b[7] : b[9];
}
int main(int argc, char **argv)
{
	long kib = atol(argv[1]);
	printf("deep %ld %d\n", kib, deep(kib / 4) & 0);
	return 0;
}'
stats() { json_get "$T/s.json" "$1"; }
# Where the chain can run: a user namespace for sr-jail.
modes="alone"
if have_userns; then modes="alone jail jail0"; else diag "no chain here: $userns_why"; fi
# lim MODE [sr-limit options] -- PROBE ARGS: the probe of $T/p under
# sr-limit, alone or through the chain (jail0: uid 0 inside the jail,
# with every capability of its user namespace).
lim() {
	local mode=$1 o=() pre=() dir=$T/p
	shift
	while [ "$1" != -- ]; do o+=("$1"); shift; done
	shift
	case $mode in
	jail) pre=(sr-jail --ro-bind "$T/p" /p sr-exec); dir=/p ;;
	jail0) pre=(sr-jail --uid 0 --ro-bind "$T/p" /p sr-exec); dir=/p ;;
	esac
	local prog=$1; shift
	run sr-limit "${o[@]}" --stats "$T/s.json" "${pre[@]}" "$dir/$prog" "$@"
}
run sr-limit --cgroup require true
cg=0
[ "$rc" = 0 ] && cg=1
cgwhy=$(sr-limit --stats-fd 1 true | python3 -c 'import json,sys; print(json.load(sys.stdin).get("cgroup_unavailable",""))')
diag "running as $me; cgroup: $([ $cg = 1 ] && echo usable || echo "none ($cgwhy)")"
# Does the caller hold CAP_SYS_RESOURCE, which raises any hard limit?
# res24 "CapXxx: HEX": is bit 24, CAP_SYS_RESOURCE, set?
res24() { local h; h=$(printf '%s' "$1" | awk '{print $2}'); echo $(( (0x${h:-0} >> 24) & 1 )); }
capres=$(res24 "$(grep ^CapEff: /proc/self/status)")

# --- Raising a limit from inside the run -------------------------------
# Control: what a program does to a limit set by its caller, without
# sr-limit. A soft limit below its hard limit can be raised by anyone; a
# hard limit only with CAP_SYS_RESOURCE (host root's, as in the VM).
run sh -c "ulimit -Sn 32 && '$T/p/rl' nofile >/dev/null && ulimit -Sn 33 && echo soft-raised"
is "$out" soft-raised "control: a soft limit is raised within its hard limit by anyone"
run sh -c "ulimit -n 32 && '$T/p/rl' nofile"
if [ "$capres" = 1 ]; then
	is "$out" "nofile raised" "control: with CAP_SYS_RESOURCE ($me) a hard limit is raised"
else
	is "$out" "nofile EPERM" "control: without CAP_SYS_RESOURCE ($me) a hard limit is not raised"
	if [ $root = 1 ]; then
		why="root's bounding set here lacks CAP_SYS_RESOURCE, as in most containers (make check-vm's root has it)"
	else
		why="an ordinary user holds no CAP_SYS_RESOURCE (tests/root/limit-as-root.t has this control where root does)"
	fi
	skip "control: a hard limit raised with CAP_SYS_RESOURCE" "$why"
fi
all="--data 256M --as 1G --cpu 5s --nofile 32 --fsize 1M --stack 2M --core 0"
for mode in $modes; do
	# shellcheck disable=SC2086
	lim "$mode" $all --timeout 20s -- rl data as cpu nofile fsize stack core
	is "$(echo $out)" \
		"data EPERM as EPERM cpu EPERM nofile EPERM fsize EPERM stack EPERM core EPERM" \
		"$mode, $me: no hard limit can be raised"
	lim "$mode" --cpu 5s -- rl cpu
	is "$(stats limits.cpu.seconds):$(stats limits.cpu.hard_seconds)" "5:6" \
		"$mode: --cpu 5s: SIGXCPU at 5 s, SIGKILL at 6 s, both in the report"
done
run sr-limit --nofile 32 sh -c 'ulimit -Sn 33'
nok "$me: nor the soft one (it is the hard one)" test "$rc" = 0
# CAP_SYS_RESOURCE: prog runs without it, and the report says so. (An
# ordinary user cannot take it out of the bounding set, which needs
# CAP_SETPCAP: that is for no_new_privs and nosuid, in the chain.)
run sr-limit --stats-fd 3 sh -c 'grep -E "^Cap(Prm|Bnd):" /proc/self/status' 3>"$T/s.json"
is "$(res24 "$(echo "$out" | grep ^CapPrm:)")" 0 "prog does not hold CAP_SYS_RESOURCE"
if [ $root = 1 ]; then
	is "$(res24 "$(echo "$out" | grep ^CapBnd:)")" 0 "root: nor can it get it back (bounding set)"
fi
if [ "$capres" = 1 ]; then
	is "$(stats capabilities_dropped)" CAP_SYS_RESOURCE "the report says it was dropped"
else
	is "$(stats capabilities_dropped)" "<missing>" "nothing to drop ($me holds no CAP_SYS_RESOURCE): the report says nothing"
fi
if unshare -r true 2>/dev/null; then
	# uid 0 of a user namespace: all of its capabilities, none of the host's.
	run unshare -r sh -c "grep ^CapBnd: /proc/self/status; ulimit -n 32 && '$T/p/rl' nofile"
	like "$out" "nofile EPERM" "control: in a user namespace, CAP_SYS_RESOURCE there raises no host limit"
	run unshare -r sr-limit --nofile 32 --stats "$T/s.json" sh -c 'grep ^CapBnd: /proc/self/status'
	bnd=$(res24 "$out")
	is "$bnd:$(stats capabilities_dropped)" "0:CAP_SYS_RESOURCE" \
		"as uid 0 of a user namespace, prog runs without CAP_SYS_RESOURCE, and the report says so"
else
	skip "CAP_SYS_RESOURCE in a user namespace" "unshare -r does not run here"
	skip "CAP_SYS_RESOURCE dropped in a user namespace" "unshare -r does not run here"
fi

# --- Each rlimit, exceeded ---------------------------------------------
for mode in $modes; do
	lim "$mode" --nofile 32 -- rp fds 100
	like "$out" "^opened [0-9]+ EMFILE$" "$mode, $me: --nofile 32 holds ($out)"
	ok "$mode: fewer than 32 descriptors opened" test "$(echo "$out" | awk '{print $2}')" -lt 32
	is "$(stats limits.nofile.via):$(stats limits.nofile.per)" "rlimit nofile:process" "$mode: reported as RLIMIT_NOFILE, per process"
	lim "$mode" --fsize 1M -- rp flood 0 # into run's file for stdout
	is "$rc:$(stat -c %s "$T/.out")" "153:1048576" "$mode, $me: --fsize 1M holds (SIGXFSZ at 1 MiB)"
	is "$(stats limits.fsize.via):$(stats limits.fsize.per)" "rlimit fsize:process" "$mode: reported as RLIMIT_FSIZE, per process"
	lim "$mode" --as 256M -- rp alloc 512
	is "$rc:$out" "1:alloc ENOMEM" "$mode, $me: --as 256M holds (512 MiB refused)"
	lim "$mode" --data 64M -- rp alloc 512
	is "$rc:$out" "1:alloc ENOMEM" "$mode, $me: --data 64M holds (512 MiB refused)"
	is "$(stats limits.data.via):$(stats limits.data.per)" "rlimit data:process" "$mode: reported as RLIMIT_DATA, per process"
	lim "$mode" --stack 1M -- deep 6000
	is "$rc" 139 "$mode, $me: --stack 1M holds (6000 KiB of stack: SIGSEGV)"
	is "$(stats limits.stack.via)" "rlimit stack" "$mode: reported as RLIMIT_STACK"
	lim "$mode" --cpu 1s -- rp spin 3000
	is "$rc:$out:$(stats reason):$(stats via)" "152::cpu:rlimit cpu" "$mode, $me: --cpu 1s holds, reported as cpu by rlimit cpu"
	lim "$mode" --timeout 300ms -- rp spin 600000
	is "$rc:$(stats reason):$(stats limits.timeout.per)" "124:timeout:run" "$mode, $me: --timeout holds, for the run"
	is "$(stats limits.core.bytes):$(stats limits.core.via)" "0:rlimit core" "$mode: core dumps off, by rlimit core"
done
# Controls: without the limits the same probes get what they ask for.
run "$T/p/rp" fds 100
is "$out" "opened 100 none" "control: without --nofile the probe opens 100"
run "$T/p/rp" alloc 512
is "$out" "alloc ok" "control: without --as/--data the probe allocates 512 MiB"
if [ "$(ulimit -s)" = unlimited ] || [ "$(ulimit -s)" -ge 8192 ]; then
	run "$T/p/deep" 6000
	is "$out" "deep 6000 0" "control: with an 8 MiB stack the probe recurses through 6000 KiB"
else
	skip "control: the stack probe without --stack" "the stack limit here is $(ulimit -s) KiB"
fi

# --- Processes ---------------------------------------------------------
run bash -c "ulimit -u 5 && '$T/p/rp' bomb 30 300"
if [ $root = 1 ]; then
	is "$out" "forked 30 none" "control: RLIMIT_NPROC does not bind root (ulimit -u 5, 30 forks)"
else
	like "$out" "^forked [0-9]+ EAGAIN$" "control: RLIMIT_NPROC binds $me (ulimit -u 5)"
fi
for mode in $modes; do
	tasks0=$(user_tasks)
	rm -f "$T/s.json"
	lim "$mode" --pids 10 --timeout 20s -- rp bomb 30 300
	if [ $cg = 1 ]; then
		like "$out" "^forked [0-9]+ EAGAIN$" "$mode, $me: --pids 10 holds by pids.max ($out)"
		ok "$mode: no more than 10 processes" test "$(echo "$out" | awk '{print $2}')" -le 10
		is "$(stats limits.pids.via):$(stats limits.pids.per)" "cgroup pids.max:run" \
			"$mode: reported as pids.max, for the run"
	elif [ $root = 1 ]; then
		is "$rc:$out" "111:" "$mode, root, no cgroup: --pids is refused before the program runs"
		like "$err" "^sr-limit: fatal: --pids cannot be held: RLIMIT_NPROC does not bind root, and there is no cgroup \(.+\): .*--best-effort" \
			"$mode: the one line says why and what to do"
		ok "$mode: no report claims it" test ! -e "$T/s.json"
		lim "$mode" --best-effort --pids 10 --timeout 20s -- rp bomb 30 300
		is "$rc:$out" "0:forked 30 none" "$mode, root, --best-effort: the run goes on, and nothing holds it to 10"
		is "$(stats limits.pids)" "<missing>" "$mode: the report does not list --pids as a limit"
		is "$(stats not_enforced.pids.count)" 10 "$mode: it lists it under not_enforced"
		like "$(stats not_enforced.pids.why)" "^RLIMIT_NPROC does not bind root, and no cgroup: ." "$mode: with why"
		like "$err" "^sr-limit: warning: --pids is not enforced \(--best-effort\)" "$mode: and says so on stderr"
	else
		like "$out" "^forked [0-9]+ EAGAIN$" "$mode, $me: --pids 10 holds by RLIMIT_NPROC ($out)"
		gone=$(tasks_gone "$tasks0")
		ok "$mode: no more than 10 processes more than the user had ($gone ended meanwhile)" \
			test "$(echo "$out" | awk '{print $2}')" -le $((10 + gone))
		base=$(stats limits.pids.base)
		is "$(stats limits.pids.via):$(stats limits.pids.per):$(stats limits.pids.uid)" \
			"rlimit nproc:user:$(id -u)" "$mode: reported as RLIMIT_NPROC over all of uid $(id -u)'s tasks"
		is "$(stats limits.pids.rlimit)" $((base + 10)) "$mode: the rlimit is the user's $base tasks at start plus 10"
		lim "$mode" --best-effort --pids 10 --timeout 20s -- rp bomb 30 300
		like "$out" "^forked [0-9]+ EAGAIN$" "$mode: --best-effort changes nothing where the limit holds"
		is "$(stats not_enforced):$(stats limits.pids.via)" "<missing>:rlimit nproc" "$mode: nothing reported unenforced"
	fi
	rm -f "$T/s.json"
done
run sr-limit --cgroup off --pids 10 --stats "$T/s.json" "$T/p/rp" bomb 30 300
if [ $root = 1 ]; then
	is "$rc" 111 "root, --cgroup=off: --pids is refused"
else
	like "$rc:$out" "^0:forked [0-9]+ EAGAIN$" "$me, --cgroup=off: --pids holds by RLIMIT_NPROC"
fi
if unshare -r true 2>/dev/null; then
	# uid 0 of a user namespace: RLIMIT_NPROC binds it unless the
	# namespace maps it to host root (unshare -r run by root).
	run unshare -r sr-limit --cgroup off --pids 10 --stats "$T/s.json" "$T/p/rp" bomb 30 300
	if [ $root = 1 ]; then
		is "$rc:$out" "111:" "uid 0 of a user namespace that is host root's: --pids is refused"
		like "$err" "RLIMIT_NPROC does not bind root" "and says why"
	else
		like "$out" "^forked [0-9]+ EAGAIN$" "uid 0 of a user namespace: --pids holds by RLIMIT_NPROC"
		is "$(stats limits.pids.via):$(stats limits.pids.uid)" "rlimit nproc:0" "and is reported so, for its uid 0"
	fi
fi

# --- The run's memory and CPU bandwidth: a cgroup or nothing -----------
if [ $cg = 1 ]; then
	lim alone --mem 64M -- hog
	is "$rc:$(stats reason):$(stats limits.memory.via):$(stats limits.memory.per)" \
		"137:memory:cgroup memory.max:run" "$me: --mem holds by memory.max, for the run"
	lim alone --cpus 0.5 -- rl core
	is "$(stats limits.cpus.via)" "cgroup cpu.max" "$me: --cpus is cpu.max"
	skip "--mem and --cpus refused without a cgroup" "a cgroup is usable here"
else
	for opt in "--mem 64M" "--cpus 0.5"; do
		# shellcheck disable=SC2086
		lim alone $opt -- rp alloc 512
		is "$rc:$out" "111:" "$me, no cgroup: $opt is refused before the program runs"
		# shellcheck disable=SC2086
		lim alone --best-effort $opt -- rp alloc 512
		is "$rc:$out" "0:alloc ok" "$me, --best-effort: $opt: the run goes on, and nothing holds it"
		name=$([ "${opt%% *}" = --mem ] && echo memory || echo cpus)
		is "$(stats limits.$name)" "<missing>" "$opt: the report does not list it as a limit"
		like "$(stats not_enforced.$name.why)" "^no cgroup: ." "$opt: it lists it under not_enforced, with why"
		like "$err" "^sr-limit: warning: ${opt%% *} is not enforced \(--best-effort\)" "$opt: and says so on stderr"
	done
	run sr-limit --best-effort --cgroup require true
	is "$rc" 111 "--best-effort does not undo --cgroup=require"
	run sr-limit --best-effort --cgroup off --mem 64M true
	is "$rc" 100 "nor --cgroup=off with --mem (a usage error)"
fi

# Every limit the report lists says what it counts.
run sr-limit $all --pids 10 --timeout 20s --best-effort --stats "$T/s.json" true
ok "every member of limits has via and per (run, process or user)" python3 -c "
import json, sys
l = json.load(open('$T/s.json'))['limits']
bad = [k for k, v in l.items() if not v.get('via') or v.get('per') not in ('run', 'process', 'user')]
sys.exit(bool(bad) and print(bad) is None)"

done_testing
