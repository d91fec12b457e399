#!/bin/bash
# Lost data is never silent: output a worker could not store (a full disk,
# a 64 KiB tmpfs in a user+mount namespace), sr-limit's report it could
# not keep, and stored output cut or removed since, are said by every view:
# status, list, wait, logs (with its own exit code, 95) and their --json.
# Control: the same jobs in a spool on a disk with room say nothing of the
# kind. Variants: stdout and stderr, a partial loss, the report in part,
# the report not at all, a report over what is kept, a file cut short, a
# file removed (as gc removes a job a view is reading), --max-output's cut.
. "$(dirname "$0")/lib.sh"

mnt=$T/mnt
mkdir -p "$mnt"
unshare -Urm sh -c "mount -t tmpfs -o size=64k x '$mnt'" 2>/dev/null ||
	skip_all "cannot mount a tmpfs in a user namespace here"

# The jobs, in this order; one at a time, so the first fills the disk.
#   out:    100000 bytes on stdout (partial: what fitted is kept)
#   err:    100000 bytes on stderr (nothing fits any more)
#   part:   a 6000-byte report with an array: only its plain fields fit
#   none:   a report whose one string is 6000 bytes: none of it fits
#   big:    a 20000-byte report: over the 16384 bytes kept, on any disk
cat > "$T/jobs" <<'EOF'
out	head -c 100000 /dev/zero | tr '\0' o
err	head -c 100000 /dev/zero | tr '\0' e >&2
part	printf '{"reason":"exit","exit_code":0,"pad":["%s"]}' "$(head -c 6000 /dev/zero | tr '\0' x)" >&3
none	printf '{"reason":"exit","exit_code":0,"pad":"%s"}' "$(head -c 6000 /dev/zero | tr '\0' x)" >&3
big	printf '{"reason":"exit","exit_code":0,"pad":"%s"}' "$(head -c 20000 /dev/zero | tr '\0' x)" >&3
EOF

cat > "$T/inner.sh" <<'EOF'
set -u
mnt=$1 T=$2
mount -t tmpfs -o size=64k x "$mnt" || exit 1
# one job, then the disk is full: the others are stored before it runs
for sp in "$mnt/spool" "$T/roomy"; do
	tag=$(basename "$sp")
	while IFS='	' read -r name cmd; do
		id=$(sr-queue submit "$sp" -- sh -c "$cmd") || exit 1
		echo "$name $id" >> "$T/$tag.ids"
	done < "$T/jobs"
	sr-queue run "$sp" --drain -j 1 2>"$T/$tag.run.err"
	while read -r name id; do
		sr-queue status "$sp" "$id" > "$T/$tag.$name.status"
		sr-queue status "$sp" "$id" --json > "$T/$tag.$name.json"
		for s in stdout stderr; do
			sr-queue logs "$sp" "$id" --stream $s > "$T/$tag.$name.$s" 2>"$T/$tag.$name.$s.err"
			echo $? > "$T/$tag.$name.$s.rc"
			sr-queue logs "$sp" "$id" --stream $s --json > "$T/$tag.$name.$s.json" 2>/dev/null
			echo $? > "$T/$tag.$name.$s.json.rc"
		done
		sr-queue wait "$sp" "$id" 2>"$T/$tag.$name.wait.err"
		echo $? > "$T/$tag.$name.wait.rc"
	done < "$T/$tag.ids"
	sr-queue list "$sp" > "$T/$tag.list"
	sr-queue list "$sp" --json > "$T/$tag.list.json"
done
# --via: the job fills the disk, and the node's side cannot write how it ended
mkdir "$T/mnt2" && mount -t tmpfs -o size=64k y "$T/mnt2" || exit 1
via=$(cd "$T/mnt2" && sr-queue submit "$T/mnt2/via" -- sh -c 'cat /dev/zero > fill') || exit 1
sr-queue run "$T/mnt2/via" --drain --via env 2>/dev/null
sr-queue status "$T/mnt2/via" "$via" > "$T/via.status"
EOF
unshare -Urm bash "$T/inner.sh" "$mnt" "$T" || { diag "the namespace's script failed"; }

st() { cat "$T/$1.$2.status"; }
js() { json_get "$T/$1.$2.json" "$3"; }

# --- control: a disk with room --------------------------------------------------
for n in out err part none; do
	unlike "$(st roomy $n)" "lost|cut" "control ($n): status says nothing lost: $(st roomy $n)"
	is "$(js roomy $n lost)" "<missing>" "control ($n): status --json has no lost"
	is "$(cat "$T/roomy.$n.stdout.rc"):$(cat "$T/roomy.$n.stderr.rc")" 0:0 "control ($n): logs exit 0"
	is "$(cat "$T/roomy.$n.stdout.err" "$T/roomy.$n.stderr.err" "$T/roomy.$n.wait.err")" "" \
		"control ($n): logs and wait say nothing on stderr"
done
is "$(wc -c < "$T/roomy.out.stdout")" 100000 "control: all of stdout was kept"
is "$(js roomy part limit.pad.0 | wc -c)" 6001 "control: the report was kept whole"
big=$(awk '$1 == "big" { print $2 }' "$T/roomy.ids")
unlike "$(grep -v "^$big " "$T/roomy.list")" "lost|cut" "control: list marks nothing but the report over 16 KiB"

# --- stdout, partly lost ------------------------------------------------------------
kept=$(wc -c < "$T/spool.out.stdout")
ok "some of stdout was stored ($kept bytes), not all" test "$kept" -gt 0 -a "$kept" -lt 100000
lost=$((100000 - kept))
like "$(st spool out)" "completed exit 0, output lost: $lost bytes of stdout not stored \(No space left on device\)$" \
	"status: how the job ended, then what was lost and why"
is "$(js spool out lost.0.what):$(js spool out lost.0.kind):$(js spool out lost.0.bytes)" "stdout:error:$lost" \
	"status --json: lost names the stream, the kind, the bytes"
is "$(js spool out lost.0.why)" "No space left on device" "status --json: and why"
is "$(cat "$T/spool.out.stdout.rc")" 95 "logs: exits 95 when the stream lost bytes"
is "$(cat "$T/spool.out.stdout.err")" \
	"sr-queue: warning: job $(awk '$1 == "out" { print $2 }' "$T/spool.ids"): output lost: $lost bytes of stdout not stored (No space left on device)" \
	"logs: after what it has, one line on stderr says what was lost and why"
is "$(json_get "$T/spool.out.stdout.json" lost.bytes):$(cat "$T/spool.out.stdout.json.rc")" "$lost:95" \
	"logs --json: lost, and the same exit code"
is "$(cat "$T/spool.out.stderr.rc"):$(cat "$T/spool.out.stderr.err")" "0:" \
	"logs of its other stream, which lost nothing: 0, nothing said"
is "$(cat "$T/spool.out.wait.rc")" 0 "wait: still the job's own code"
like "$(cat "$T/spool.out.wait.err")" "warning: job [0-9a-f]+: output lost: $lost bytes of stdout not stored" \
	"wait: says the loss on stderr"

# --- stderr, all lost -------------------------------------------------------------
like "$(st spool err)" "completed exit 0, output lost: 100000 bytes of stderr not stored \(No space left on device\)$" \
	"stderr lost: status says so"
is "$(cat "$T/spool.err.stderr.rc"):$(wc -c < "$T/spool.err.stderr")" 95:0 "logs --stream stderr: nothing, exit 95"
is "$(cat "$T/spool.err.stdout.rc")" 0 "logs --stream stdout (nothing written, nothing lost): 0"

# --- the report -------------------------------------------------------------------
like "$(st spool part)" "completed exit 0, report lost: sr-limit's report stored in part, its objects and arrays left out \(No space left on device\)$" \
	"a report that did not fit: its plain fields are kept, and status says the rest is not"
is "$(js spool part limit.reason):$(js spool part limit.pad)" "exit:<missing>" \
	"status --json: limit holds what was kept"
is "$(js spool part lost.0.what)" limit "status --json: lost names the report"
like "$(st spool none)" "report lost: sr-limit's report not stored \(No space left on device\)$" \
	"a report none of which fitted: said"
is "$(js spool none limit)" "<missing>" "... and no limit"
like "$(st spool big)" "report lost: sr-limit's report not stored \(20[0-9]{3} bytes, over the 16384 kept\)" \
	"a report over the 16 KiB kept: said (on a full disk)"
like "$(st roomy big)" "report lost: sr-limit's report not stored \(20[0-9]{3} bytes, over the 16384 kept\)" \
	"... and on a disk with room"
is "$(cat "$T/spool.part.stdout.rc")" 0 "logs of a job that lost only its report: 0"

# --- --via: the node's record of how the job ended could not be written --------------
like "$(cat "$T/via.status")" "lost \(node .* ended without saying how the job ended: .*could not write its record \(the launcher ended: exit 111\)\)$" \
	"--via on a full disk: lost, and the reason names the record land could not write"

# --- list ---------------------------------------------------------------------------
is "$(grep -c 'output lost' "$T/spool.list")" 2 "list marks the two jobs that lost output"
is "$(grep -c 'report lost' "$T/spool.list")" 3 "... and the three that lost their report"
is "$(grep -c '"lost":\[' "$T/spool.list.json")" 5 "list --json: lost on each"
is "$(grep -c '"lost":\[' "$T/roomy.list.json")" 1 "control: list --json, only the report over 16 KiB"

# --- stored, then cut short or removed (gc removes a job a view may read) -----------
sp=$T/roomy
id=$(awk '$1 == "out" { print $2 }' "$T/roomy.ids")
truncate -s 1000 "$sp/done/$id/stdout"
run sr-queue status "$sp" "$id"
like "$out" "output lost: 99000 of the 100000 stored bytes of stdout are gone \(its file was cut short since\)" \
	"a stdout file cut short: status says how much is gone"
run sr-queue logs "$sp" "$id"
is "$rc:$(wc -c < "$T/.out")" "95:1000" "logs: the 1000 bytes left, exit 95"
like "$err" "output lost: 99000 of the 100000 stored bytes" "... and says what is gone"
rm "$sp/done/$id/stdout"
run sr-queue logs "$sp" "$id"
is "$rc:$out" "95:" "a stdout file removed: logs exits 95"
like "$err" "output lost: the 100000 stored bytes of stdout are gone \(its file was removed since: by gc, most likely\)" \
	"... and says it was removed"
run sr-queue list "$sp"
like "$out" "$id completed exit 0, output lost: the 100000 stored bytes" "list says it too"
id2=$(awk '$1 == "err" { print $2 }' "$T/roomy.ids")
run sr-queue logs "$sp" "$id2" --stream stderr
is "$rc:$err" "0:" "control: the file of another job, left alone, reads whole"

# --- --max-output: cut as asked, said, not an error ------------------------------------
cap=$(sr-queue submit "$sp" --max-output 100 -- sh -c 'seq 1 1000')
sr-queue run "$sp" --drain 2>/dev/null
run sr-queue status "$sp" "$cap"
like "$out" "completed exit 0, output cut: [0-9]+ bytes of stdout not stored \(past its --max-output of 100 bytes\)" \
	"--max-output: status says what was cut"
run sr-queue logs "$sp" "$cap"
is "$rc:${#out}" "0:100" "logs: the 100 bytes asked for, exit 0 (the cut was asked for)"
like "$err" "warning: job $cap: output cut: " "... and says what was cut"

done_testing
