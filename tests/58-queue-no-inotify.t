#!/bin/bash
# The kernel counts inotify instances and watches per user, across all of
# the user's programs: one tenant's runs (each jail may take an eighth)
# can hold every one the service user has. sr-queue's worker, `sr-queue
# wait` and `cancel`, and sr-mcp's wait for a run must then go on without
# inotify (polling, said once in the log), never die or hang with the
# runs left queued. The attack is played in a user namespace of the test's
# own whose inotify limits are set low (the count is checked at every
# level of namespaces up to the host's, so this takes nothing from the
# account's own): a helper holds every instance left, and the control
# shows that no program there can make one.
. "$(dirname "$0")/lib.sh"
need_userns
command -v unshare >/dev/null || skip_all "unshare (util-linux) is not installed"
unshare -U -r true 2>/dev/null || skip_all "unshare -U -r does not work here"

cc_probe_file rp rp.c -pthread
uid=$(id -u) gid=$(id -g)
# in_ns INSTANCES WATCHES CMD...: CMD as this user, in a user namespace
# below one whose inotify limits are the numbers given.
in_ns() {
	unshare -U -r sh -c 'echo "$1" >/proc/sys/user/max_inotify_instances &&
		echo "$2" >/proc/sys/user/max_inotify_watches && shift 2 &&
		exec unshare -U --map-user="$U" --map-group="$G" "$@"' sh "$@"
}
export U=$uid G=$gid

cat >"$T/inside.sh" <<'INSIDE'
set -u
trap 'kill $holder 2>/dev/null' EXIT
holder=
sp=$T/spool-$1
case $1 in
instances)
	stdbuf -oL "$T/rp" inotify 100000 600000 >"$T/held" &
	holder=$!
	for _ in $(seq 600); do grep -q inotify "$T/held" && break; sleep 0.1; done
	echo "held: $(cat "$T/held")"
	echo "control: $("$T/rp" inotify 1 0)" ;;
watches)
	echo "control: $("$T/rp" watches 1 0 "$T/wdir")" ;;
esac
id=$(sr-queue submit "$sp" -- echo done-$1)
sr-queue run "$sp" -j 2 --idle 3s 2>"$T/worker-$1.log" &
worker=$!
timeout 60 sr-queue wait "$sp" "$id" >/dev/null; echo "wait: $?"
echo "logs: $(sr-queue logs "$sp" "$id")"
id2=$(sr-queue submit "$sp" -- sleep 60)
for _ in $(seq 600); do sr-queue status "$sp" "$id2" | grep -q running && break; sleep 0.1; done
timeout 60 sr-queue cancel "$sp" "$id2" >/dev/null 2>&1; echo "cancel: $?"
echo "status: $(sr-queue status "$sp" "$id2" | awk '{print $2}')"
wait "$worker"; echo "worker: $?"
if [ "$1" = instances ]; then
	timeout 120 python3 "$SR_ROOT/tests/mcp-steps.py" sr-mcp --state-dir "$T/state" -- \
		'run bash echo from-mcp' 2>"$T/mcp.log" | sed 's/^/mcp: /'
	kill "$holder"
fi
INSIDE
export T
run in_ns 4 100000 bash "$T/inside.sh" instances
diag "$out" "$err"
like "$out" "held: inotify [0-9]+ EMFILE" "a helper holds every inotify instance the namespace leaves the user"
like "$out" "control: inotify 0 EMFILE" "control: no program of the user there can make another"
like "$out" "wait: 0" "sr-queue wait sees the job end without inotify"
like "$out" "logs: done-instances" "the job ran: the worker did not die at start"
like "$out" "cancel: 0" "sr-queue cancel ends a running job without inotify"
like "$out" "status: cancelled" "and the job is cancelled"
like "$out" "worker: 0" "the worker ends as usual when idle"
like "$(cat "$T/worker-instances.log")" "^sr-queue: warning: unable to watch .* with inotify .*Too many open files.*every 50 to 200 ms" \
	"the worker says once that it polls"
is "$(grep -c warning "$T/worker-instances.log")" 1 "once"
like "$out" "mcp: ok from-mcp" "sr-mcp's run_code runs and answers without inotify"
like "$(cat "$T/mcp.log")" "unable to watch .*/done with inotify" "sr-mcp's log says its waits poll"

run in_ns 100 0 bash "$T/inside.sh" watches
diag "$out" "$err"
like "$out" "control: watches 0 ENOSPC" "control: with every watch taken, none can be added"
like "$out" "wait: 0" "sr-queue wait without a watch"
like "$out" "logs: done-watches" "the worker runs jobs without a watch"
like "$out" "status: cancelled" "and cancels them"
like "$(cat "$T/worker-watches.log")" "No space left on device" "saying why it polls"
done_testing
