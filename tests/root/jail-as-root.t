#!/bin/bash
# Started by root, sr-jail never keeps host root inside: the jail runs as
# uid/gid 65534 with no supplementary groups. tests/run runs this file as
# root after the unprivileged suite, when it was itself started as root.
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip_all "needs root (make check started as root runs it)"
run sr-jail sh -c 'cat /proc/self/uid_map /proc/self/gid_map | tr -s " " | tr "\n" ";"; grep ^Groups: /proc/self/status | tr -d "\t "'
is "$out" " 65534 65534 1; 65534 65534 1;Groups:" "host uid and gid 65534, no supplementary groups"
run sr-jail cat /etc/shadow
ok "/etc/shadow is out of reach" test "$rc" != 0
chmod 0755 "$T"; echo secret > "$T/root-only"; chmod 0600 "$T/root-only"
run sr-jail --ro-bind "$T" /mnt sh -c "ls /mnt >/dev/null && cat /mnt/root-only"
ok "a root-only file bound into the jail cannot be read" test "$rc" != 0
unlike "$out" secret "its content stays hidden"
run sr-jail sh -c 'grep CapEff /proc/self/status'
like "$out" "CapEff:[[:space:]]+0000000000000000" "no capabilities"
run sr-limit --nofile 64 --timeout 20s --stats-fd 3 sr-jail true 3>"$T/s.json"
is "$rc" 0 "the chain runs when started by root"
done_testing
