#!/bin/bash
# sr-queue gc as a retention: finished jobs removed by age (--older-than)
# and by the room they take on disk (--max-bytes, oldest first, real
# blocks), never a queued or running job, following no link; what status
# says of a removed job; cancel requests of finished jobs; bad values.
. "$(dirname "$0")/lib.sh"

sp=$T/spool
cd "$T" || exit 1
# job BYTES: a finished job that wrote BYTES of stdout and a line of stderr
job() {
	local id
	id=$(sr-queue submit "$sp" -- sh -c "head -c $1 /dev/zero; echo e >&2") || return 1
	sr-queue run "$sp" --drain >/dev/null 2>&1
	echo "$id"
}
# age ID SECONDS: the job finished SECONDS ago (its result's finished_ms)
age() {
	local ms=$(( $(date +%s%3N) - $2 * 1000 ))
	sed -i "2s/\"finished_ms\":[0-9]*/\"finished_ms\":$ms/" "$sp/done/$1/job.jsonl"
}
gone() { ! test -e "$sp/done/$1"; }
gc() { run sr-queue gc "$sp" --json "$@"; }
blocks() { du -s --block-size=1 "$@" | awk '{ n += $1 } END { print n + 0 }'; }

# --- bad values: usage errors ------------------------------------------------------
for bad in "--older-than 7x" "--older-than -1d" "--older-than 1dd" "--max-bytes 12Q" \
	"--max-bytes -1" "--max-bytes 1.5" "--keep x"; do
	run sr-queue gc "$sp" $bad
	is "$rc" 100 "gc $bad: usage error"
done
mkdir -p "$sp" && sr-queue submit "$sp" -- true >/dev/null && sr-queue run "$sp" --drain
run sr-queue gc "$sp" --older-than 7d --max-bytes 512M
is "$rc" 0 "gc --older-than 7d --max-bytes 512M: accepted"

# --- by age ---------------------------------------------------------------------------
a=$(job 1000) b=$(job 1000) c=$(job 1000)
age "$a" $((8 * 86400)); age "$b" $((7 * 86400 + 60)); age "$c" $((6 * 86400))
gc --older-than 7d
is "$(json_get "$out" removed)" 2 "--older-than 7d removes the two jobs older than 7 days"
ok "the job finished 8 days ago is gone" gone "$a"
ok "the job finished 7 days and a minute ago is gone" gone "$b"
ok "the job finished 6 days ago stays (control)" test -d "$sp/done/$c"
ok "their remains are gone from tmp/ too" test -z "$(ls "$sp/tmp")"
run sr-queue status "$sp" "$a"
is "$rc" 1 "status of a removed job: exit 1"
like "$err" "no job $a .*removed by gc" "status says gc removed it"
run sr-queue logs "$sp" "$b"
like "$rc:$err" "^1:.*removed by gc" "logs says so too"
run sr-queue wait "$sp" "$b" --timeout 1s
like "$rc:$err" "^96:.*removed by gc" "wait says so too, and exits 96: no such job"
run sr-queue status "$sp" "ffffffffffffffff0000000000000000"
is "$rc:$err" "1:sr-queue: fatal: no job ffffffffffffffff0000000000000000 in $sp" \
	"an id newer than any removed is plainly not found (control)"
is "$(sr-queue status "$sp" "$c")" "$c completed exit 0" "the kept job reads as before"

# --- by room, oldest first, real blocks ---------------------------------------------------
sr-queue gc "$sp" >/dev/null
d=$(job 200000) e=$(job 200000) f=$(job 200000) g=$(job 200000)
age "$g" 60; age "$f" 120; age "$e" 180; age "$d" 240     # d is the oldest
two=$(blocks "$sp/done/$g" "$sp/done/$f")
gc --max-bytes $((two + 4096))
is "$(json_get "$out" removed)" 2 "--max-bytes removes jobs until the rest fit"
ok "the oldest is removed" gone "$d"
ok "the next oldest is removed" gone "$e"
ok "the newest two stay" test -d "$sp/done/$f" -a -d "$sp/done/$g"
is "$(json_get "$out" kept_bytes)" "$two" "kept_bytes counts what is left on disk"
ok "and what is left fits the bound" test "$(blocks "$sp"/done/*)" -le $((two + 4096))
gc --max-bytes $((two + 4096))
is "$(json_get "$out" removed)" 0 "a second gc under the bound removes nothing"
gc --max-bytes 1 --keep 1
is "$(json_get "$out" removed)/$(ls "$sp/done")" "1/$g" "--keep 1 keeps the newest whatever the room"

# a sparse file: a large declared size, few blocks
sr-queue gc "$sp" >/dev/null
h=$(job 1000)
truncate -s 1G "$sp/done/$h/sparse"
ok "(the sparse file declares 1 GiB)" test "$(du -s --apparent-size --block-size=1M "$sp/done/$h" | cut -f1)" -ge 1024
gc --max-bytes 1M
is "$(json_get "$out" removed)" 0 "gc counts blocks on disk, not declared sizes"
# a subdirectory of a job counts
i=$(job 1000)
age "$h" 60
mkdir "$sp/done/$h/sub" && head -c 2000000 /dev/urandom > "$sp/done/$h/sub/data"
gc --max-bytes 1M
ok "a job's subdirectories count: it is removed" gone "$h"
ok "the newer job stays" test -d "$sp/done/$i"

# --- no link is followed ------------------------------------------------------------------
sr-queue gc "$sp" >/dev/null
mkdir -p "$T/outside/dir"
head -c 3000000 /dev/urandom > "$T/outside/big"
echo keep > "$T/outside/dir/file"
j=$(job 1000)
ln -s "$T/outside/big" "$sp/done/$j/stdout.link"
ln -s "$T/outside/dir" "$sp/done/$j/dir.link"
ok "(du -L would count the big file behind the link)" \
	test "$(du -sL --block-size=1 "$sp/done/$j" | cut -f1)" -gt 2000000
gc --max-bytes 1M
is "$(json_get "$out" removed)" 0 "a link to a big file is not counted (not followed)"
gc --older-than 0
is "$(json_get "$out" removed)" 1 "the job with links is removed"
ok "the file a link pointed to survives" test -s "$T/outside/big"
ok "the directory a link pointed to survives, whole" test "$(cat "$T/outside/dir/file")" = keep
# a remove that a crash cut short, with a link in it
mkdir "$sp/tmp/gc.0123456789abcdef0123456789abcdef"
ln -s "$T/outside/dir" "$sp/tmp/gc.0123456789abcdef0123456789abcdef/dir"
gc
is "$(json_get "$out" tmp_removed)" 1 "a half-removed job in tmp/ is finished off"
ok "its link's target survives" test -f "$T/outside/dir/file"

# --- queued and running jobs are never removed -----------------------------------------
k=$(job 1000)
age "$k" $((30 * 86400))
r=$(sr-queue submit "$sp" -- sh -c 'echo started; sleep 30')
sr-queue run "$sp" --once >/dev/null 2>&1 &
worker=$!
wait_for "the job runs" 10 sh -c "sr-queue status '$sp' $r | grep -q running"
q=$(sr-queue submit "$sp" -- true)
gc --older-than 0 --max-bytes 0
is "$(json_get "$out" removed)" 1 "gc --older-than 0 --max-bytes 0 removes the finished job"
is "$(sr-queue status "$sp" "$r")" "$r running" "the running job stays"
is "$(sr-queue status "$sp" "$q")" "$q queued" "the queued job stays"
gc
is "$(sr-queue status "$sp" "$q")" "$q queued" "gc without options keeps the queued job too"
sr-queue cancel "$sp" "$r" >/dev/null
sr-queue cancel "$sp" "$q" >/dev/null
wait "$worker"

# --- cancel requests of finished jobs -------------------------------------------------
sr-queue gc "$sp" >/dev/null
m=$(job 10)
q=$(sr-queue submit "$sp" -- true)
touch "$sp/cancel/$m" "$sp/cancel/$q"
gc --older-than 1h
ok "a finished job's cancel request is dropped" test ! -e "$sp/cancel/$m"
ok "a queued job's cancel request stays (control)" test -e "$sp/cancel/$q"
ok "the finished job itself stays (younger than 1h)" test -d "$sp/done/$m"

done_testing
