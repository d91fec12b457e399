#!/bin/bash
# Links planted by an earlier job in a bound workspace must not lead the
# next run's host-side setup elsewhere: a job replaces job/out with a link
# to the user's keys, and the next run that binds job/out would bind the
# keys writable. sr-jail follows no link in a --bind or --ro-bind source.
. "$(dirname "$0")/../lib.sh"

need_userns

mkdir -p "$T/ws/job/out" "$T/keys"
printf 'ssh-key\n' > "$T/keys/id"
keys=$T/keys

# The first job plants the links, from inside the jail.
run sr-jail --bind "$T/ws" /ws sr-exec sh -c "
rm -rf /ws/job/out && ln -s '$keys' /ws/job/out &&
mv /ws/job /ws/job.real && mkdir /ws/job2 && ln -s '$keys' /ws/job2/out &&
ln -s /ws/job.real /ws/job && echo planted"
is "$out" "planted" "a job planted links in its workspace"
# Control: on the host the links are live and lead to the keys.
is "$(cat "$T/ws/job.real/out/id")" "ssh-key" "control: the planted link reaches the keys on the host"

run sr-jail --bind "$T/ws/job.real/out" /out sh -c 'echo pwned > /out/id; echo RAN'
is "$rc:$out" "111:" "a --bind source that is a planted link: refused, program not run"
like "$err" "^sr-jail: fatal: unable to bind .*/out: it is or passes through a symbolic link" "... and said in one line"
run sr-jail --ro-bind "$T/ws/job.real/out" /out cat /out/id
is "$rc:$out" "111:" "--ro-bind: the same"
run sr-jail --bind "$T/ws/job/x" /x true
is "$rc" 111 "a link as a directory on the way to the source: refused"
is "$(cat "$keys/id")" "ssh-key" "the keys keep their bytes"

# Control: the resolved path binds as asked.
run sr-jail --ro-bind "$keys" /k cat /k/id
is "$out" "ssh-key" "control: a source with no link binds"

# sr-queue follows no planted link either: not for --stdin (the key would
# be copied into the job), not for --cwd, at submit or when the job starts.
q=$T/q
printf 'secret-key\n' > "$keys/id_rsa"
ln -s "$keys/id_rsa" "$T/ws/input"
run sr-queue submit "$q" --stdin "$T/ws/input" -- cat
is "$rc" 111 "sr-queue submit --stdin through a planted link: refused"
like "$err" "stdin .*(Too many levels of symbolic links|symbolic link)" "... and said"
run sr-queue submit "$q" --cwd "$T/ws/job.real/out" -- ls
is "$rc" 111 "sr-queue submit --cwd through a planted link: refused"
like "$err" "^sr-queue: fatal: --cwd .*: it is or passes through a symbolic link" "... in one line"
mkdir -p "$T/ws/later"
id=$(sr-queue submit "$q" --cwd "$T/ws/later" -- sh -c 'ls; cat id_rsa')
rmdir "$T/ws/later" && ln -s "$keys" "$T/ws/later"
run sr-queue run "$q" --once
run sr-queue wait "$q" "$id"
unlike "$(sr-queue logs "$q" "$id")" "secret-key" "a --cwd replaced by a link after submit is not entered: the key is not read"
like "$(sr-queue status "$q" "$id")" "failed cwd" "... the job fails, reason cwd"
# Control: the same submit without links runs.
id=$(sr-queue submit "$q" --cwd "$keys" -- cat id_rsa)
run sr-queue run "$q" --once
is "$(sr-queue logs "$q" "$id")" "secret-key" "control: a --cwd without links is used"

done_testing
