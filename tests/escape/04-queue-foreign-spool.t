#!/bin/bash
# sr-queue runs only jobs that are the user's alone: a spool, a spool
# subdirectory or a job directory that others may write is refused, and no
# job directory or job file is opened through a symbolic link. What one
# user can show; tests/root/queue-foreign-spool.t plays the attack between
# two users.
. "$(dirname "$0")/../lib.sh"

cd "$T" || exit 1
src=$T/src
marker=$T/marker
# plant NAME: a job that would create $marker, built in a spool of its own
# and moved to $T/NAME (a job directory as a planter would drop it).
plant() {
	local id
	id=$(sr-queue submit "$src" -- sh -c "echo ran >> '$marker'") || exit 1
	mv "$src/queue/$id" "$T/$1"
	printf '%s\n' "$id"
}
newspool() { sr-queue run "$1" --drain; }
# Any other user who can write in the spool can plant a job: mode bits
# stand in for that user here (root would ignore them, but not the checks).

# --- control: a planted job in a proper spool does run ---------------------------
sp=$T/good
newspool "$sp"
id=$(plant job0)
mv "$T/job0" "$sp/queue/$id"
run sr-queue run "$sp" --drain
is "$rc" 0 "control: a job moved into a proper spool runs"
is "$(cat "$marker" 2>/dev/null)" ran "control: it created the marker"
is "$(sr-queue status "$sp" "$id")" "$id completed exit 0" "control: it completed"
rm -f "$marker"

# --- a spool made by sr-queue is private -----------------------------------------------
run bash -c "umask 000; sr-queue submit '$T/fresh/spool' -- true"
is "$(stat -c %a "$T/fresh" "$T/fresh/spool" "$T/fresh/spool"/* | sort -u)" 700 \
	"sr-queue creates the spool, its parents and subdirectories 0700"

# --- a spool or a subdirectory others may write is refused ------------------------------
for d in "" /tmp /queue /run /done /cancel; do
	sp=$T/open${d//\//-}
	newspool "$sp"
	id=$(plant job1)
	mv "$T/job1" "$sp/queue/$id"
	chmod 0777 "$sp$d"
	run sr-queue run "$sp" --drain
	is "$rc" 111 "spool$d mode 0777: the worker exits 111"
	is "$err" "sr-queue: fatal: refusing spool $sp$d: writable by group or others (mode 0777)" \
		"spool$d mode 0777: one line naming it and why"
	ok "spool$d mode 0777: the planted job did not run" test ! -e "$marker"
	run sr-queue status "$sp" "$id"
	is "$rc" 111 "spool$d mode 0777: status refuses it too"
	run sr-queue submit "$sp" -- true
	is "$rc" 111 "spool$d mode 0777: so does submit"
	chmod 0700 "$sp$d"
done
sp=$T/group
newspool "$sp"
chmod 0770 "$sp/queue"
run sr-queue list "$sp"
is "$rc:$err" "111:sr-queue: fatal: refusing spool $sp/queue: writable by group or others (mode 0770)" \
	"a group-writable subdirectory is refused as well"

# --- a spool that is a symbolic link is refused ------------------------------------------
sp=$T/real
newspool "$sp"
id=$(plant job2)
mv "$T/job2" "$sp/queue/$id"
ln -s "$sp" "$T/link"
for p in "$T/link" "$T/link/"; do
	run sr-queue run "$p" --drain
	is "$rc" 111 "spool $p is a symbolic link: refused (exit 111)"
	is "$err" "sr-queue: fatal: refusing spool $p: a symbolic link" "and it says so"
done
ok "the job behind the link did not run" test ! -e "$marker"
ln -s "$T/nowhere" "$T/dangling"
run sr-queue submit "$T/dangling" -- true
is "$rc" 111 "submit to a dangling symbolic link is refused"
ok "and makes nothing where it points" test ! -e "$T/nowhere"
# A subdirectory that is a symbolic link (to a queue/ the planter controls).
sp=$T/sublink
newspool "$sp"
mkdir -p "$T/elsewhere-q"
id=$(plant "elsewhere-q/x")
mv "$T/elsewhere-q/x" "$T/elsewhere-q/$id"
rmdir "$sp/queue"
ln -s "$T/elsewhere-q" "$sp/queue"
run sr-queue run "$sp" --drain
is "$rc:$err" "111:sr-queue: fatal: refusing spool $sp/queue: a symbolic link" \
	"a subdirectory that is a symbolic link is refused"
ok "the job in the linked directory did not run" test ! -e "$marker"

# --- a job directory that is a symbolic link is not followed ---------------------------
sp=$T/jlink
newspool "$sp"
id=$(plant outside)
cp "$T/outside/job.jsonl" "$T/outside.before"
ln -s "$T/outside" "$sp/queue/$id"
good=$(sr-queue submit "$sp" -- true)
run sr-queue run "$sp" --drain
is "$rc" 0 "a worker does not die of a planted job"
like "$err" "refusing job $sp/queue/$id: a symbolic link; not run, left in queue/" \
	"it refuses the linked job directory, naming it"
ok "the linked job did not run" test ! -e "$marker"
ok "the job file it points to is unchanged" cmp -s "$T/outside/job.jsonl" "$T/outside.before"
ok "and nothing was written next to it" test ! -e "$T/outside/stdout" -a ! -e "$T/outside/attempts"
is "$(sr-queue status "$sp" "$good")" "$good completed exit 0" "the other job ran"
ok "the refused job is left where it was" test -L "$sp/queue/$id"
run sr-queue status "$sp" "$id"
is "$rc:$err" "111:sr-queue: fatal: refusing job $sp/queue/$id: a symbolic link" \
	"status refuses it, naming it"
run sr-queue list "$sp"
like "$err" "warning: refusing job $sp/queue/$id" "list skips it with a warning"
is "$out" "$good completed exit 0" "and lists the rest"

# --- a job file that is a symbolic link is not followed ------------------------------------
sp=$T/flink
newspool "$sp"
id=$(plant outside2)
cp "$T/outside2/job.jsonl" "$T/outside2.before"
mkdir -m 0700 "$sp/queue/$id"
ln -s "$T/outside2/job.jsonl" "$sp/queue/$id/job.jsonl"
run sr-queue run "$sp" --drain
is "$rc" 0 "a job file that is a symbolic link: the worker goes on"
like "$err" "refusing job $sp/queue/$id: job.jsonl is a symbolic link" "and names the job"
ok "the job it points to did not run" test ! -e "$marker"
ok "the file it points to is unchanged (no result written into it)" \
	cmp -s "$T/outside2/job.jsonl" "$T/outside2.before"
# Control: the same job file, as a file of the job, runs.
rm "$sp/queue/$id/job.jsonl"
cp "$T/outside2/job.jsonl" "$sp/queue/$id/job.jsonl"
run sr-queue run "$sp" --drain
is "$(cat "$marker" 2>/dev/null)" ran "control: the same job file, not linked, runs"
rm -f "$marker"

# --- a job directory others may write is refused ------------------------------------
sp=$T/jopen
newspool "$sp"
id=$(plant job3)
mv "$T/job3" "$sp/queue/$id"
chmod 0777 "$sp/queue/$id"
run sr-queue run "$sp" --drain
is "$rc" 0 "a job directory of mode 0777: the worker goes on"
like "$err" "refusing job $sp/queue/$id: writable by group or others \(mode 0777\); not run" \
	"and names it and why"
ok "the job did not run" test ! -e "$marker"
id=$(plant job4)
mv "$T/job4" "$sp/queue/$id"
chmod 0666 "$sp/queue/$id/job.jsonl"
run sr-queue run "$sp" --drain
like "$err" "refusing job $sp/queue/$id: job.jsonl is writable by group or others \(mode 0666\)" \
	"a job file of mode 0666 is refused too"
ok "that job did not run either" test ! -e "$marker"

# --- the files of a job are not opened through symbolic links ---------------------------
sp=$T/files
echo secret > "$T/secret"
echo input > "$T/input"
id=$(sr-queue submit "$sp" --stdin "$T/input" -- cat)
rm "$sp/queue/$id/stdin"
ln -s "$T/secret" "$sp/queue/$id/stdin"
run sr-queue run "$sp" --drain
is "$(sr-queue status "$sp" "$id")" "$id failed stdin: Too many levels of symbolic links" \
	"a stdin that is a symbolic link: the job fails"
unlike "$(sr-queue logs "$sp" "$id")" secret "and does not read what it points to"
echo precious > "$T/victim"
id=$(sr-queue submit "$sp" -- echo clobbered)
ln -s "$T/victim" "$sp/queue/$id/stdout"
run sr-queue run "$sp" --drain
is "$(cat "$T/victim")" precious "a planted stdout link: the file it points to is not written"
ok "the job's output is not stored through it" test -L "$sp/done/$id/stdout"
like "$(sr-queue status "$sp" "$id" --json)" '"stdout_error":"Too many levels of symbolic links"' \
	"and its result says why its output is missing"
run sr-queue logs "$sp" "$id"
is "$rc" 111 "logs does not read a stdout that is a symbolic link"
unlike "$out" precious "nor print what it points to"
done_testing
