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

done_testing
