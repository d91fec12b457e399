#!/bin/bash
# What the kernel counts per user across all of the user's programs, which
# no rlimit bounds: inotify instances (fs.inotify.max_user_instances) and
# watches (max_user_watches). A payload that took them all would make the
# user's own programs on the host fail (EMFILE, ENOSPC). sr-jail bounds
# what a jail may take to an eighth of the user's, in the jail's user
# namespace, where the program cannot raise it. Each bound has a control
# run of the same probe on the host, where it reaches far more.
. "$(dirname "$0")/../lib.sh"

need_userns

mkdir -p "$T/p"
cc_probe_file p/rp rp.c -pthread
JAIL=(sr-jail --ro-bind "$T/p" /p sr-exec)
inst=$(cat /proc/sys/fs/inotify/max_user_instances)
watch=$(cat /proc/sys/fs/inotify/max_user_watches)
ibound=$((inst / 8)) wbound=$((watch / 8))
[ "$ibound" -le 8192 ] || ibound=8192
[ "$wbound" -le 8192 ] || wbound=8192

# inotify instances: the jail takes what it can and holds them for 3 s,
# while the user makes some on the host.
sr-limit --pids 64 --timeout 20s "${JAIL[@]}" /p/rp inotify 100000 3000 >"$T/in.out" 2>&1 &
jpid=$!
wait_for "the jail to take its inotify instances" 10 grep -q inotify "$T/in.out"
run "$T/p/rp" inotify 8 0
is "$out" "inotify 8 none" "while the jail holds all it may, the user still makes 8 inotify instances on the host"
wait "$jpid"
out=$(cat "$T/in.out")
like "$out" "^inotify [0-9]+ EMFILE$" "the jail's inotify instances end with EMFILE ($out)"
n=$(awk '{print $2}' <<<"$out")
ok "at no more than an eighth of the user's $inst ($n <= $ibound)" test "${n:-99999}" -le "$ibound"
run "$T/p/rp" inotify 100000 0
m=$(awk '{print $2}' <<<"$out")
ok "control: on the host the same probe makes more than $ibound ($m)" test "${m:-0}" -gt "$ibound"

# inotify watches, in the jail's /tmp
run sr-limit --pids 64 --timeout 30s "${JAIL[@]}" /p/rp watches $((wbound + 500)) /tmp/w
like "$out" "^watches [0-9]+ ENOSPC$" "the jail's inotify watches end with ENOSPC ($out)"
n=$(awk '{print $2}' <<<"$out")
ok "at no more than an eighth of the user's $watch, 8192 at most ($n <= $wbound)" test "${n:-99999}" -le "$wbound"
run "$T/p/rp" watches $((wbound + 500)) "$T/w"
is "$out" "watches $((wbound + 500)) none" "control: on the host the same probe watches $((wbound + 500)) files"

# the program cannot raise its own bound
run sr-limit --pids 64 --timeout 20s "${JAIL[@]}" sh -c 'echo 100000 > /proc/sys/user/max_inotify_instances && echo raised'
unlike "$out" "raised" "the program cannot raise the jail's bound ($err)"
done_testing
