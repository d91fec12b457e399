#!/bin/bash
# sr-queue on a full disk (a 64 KiB tmpfs in a user+mount namespace):
# submit fails cleanly with 111 and leaves nothing behind; a worker still
# records the results of queued jobs (their room was reserved at submit)
# and says how much output it could not store.
. "$(dirname "$0")/lib.sh"

mnt=$T/mnt
mkdir -p "$mnt"
unshare -Urm sh -c "mount -t tmpfs -o size=64k x '$mnt'" 2>/dev/null ||
	skip_all "cannot mount a tmpfs in a user namespace here"

cat > "$T/inner.sh" <<'EOF'
set -u
mnt=$1 out=$2
mount -t tmpfs -o size=64k x "$mnt" || exit 1
sp=$mnt/spool
n=0 rc=0
while [ "$n" -lt 200 ]; do
	sr-queue submit "$sp" -- sh -c 'head -c 100000 /dev/zero; echo done >&2' \
		>>"$out/ids" 2>"$out/submit.err" || { rc=$?; break; }
	n=$((n + 1))
done
echo "$rc" > "$out/submit.rc"
ls "$sp/queue" | wc -l > "$out/queued"
ls "$sp/tmp" | wc -l > "$out/tmp"
sr-queue run "$sp" --drain -j 2 2>"$out/run.err"
echo $? > "$out/run.rc"
for id in $(cat "$out/ids"); do
	sr-queue status "$sp" "$id" --json
done > "$out/status"
EOF
unshare -Urm bash "$T/inner.sh" "$mnt" "$T"

n=$(wc -l < "$T/ids")
ok "some jobs fit before the disk was full ($n)" test "$n" -gt 0 -a "$n" -lt 200
is "$(cat "$T/submit.rc")" 111 "submit on a full disk exits 111"
like "$(cat "$T/submit.err")" "unable to store job .*No space left on device" \
	"with a clear message"
is "$(cat "$T/queued")" "$n" "only the jobs whose id was printed are queued"
is "$(cat "$T/tmp")" 0 "the failed submit left nothing in tmp/"
is "$(cat "$T/run.rc")" 0 "the worker ran the queue"
is "$(grep -c '"state":"completed"' "$T/status")" "$n" "every job's result was recorded"
first=$(head -n 1 "$T/status")
is "$(json_get "$first" stdout_total)" 100000 "the output was counted"
ok "not all of it could be stored" test "$(json_get "$first" stdout_bytes)" -lt 100000
is "$(json_get "$first" stdout_error)" "No space left on device" "the result says why"

done_testing
