#!/bin/bash
# Escapes through the kernel's wider interfaces, tried through the whole
# chain (sr-limit sr-jail sr-exec): other syscall ABIs, io_uring, BPF,
# perf, userfaultfd, keyrings, the new mount API, namespace flags of
# clone3/clone/unshare, personality. Each refusal comes with a control
# that reaches the kernel where the filter is absent.
. "$(dirname "$0")/../lib.sh"

need_userns

mkdir -p "$T/p"
cc_probe_file p/sp sp.c
SP=$T/p/sp
CHAIN=(sr-limit --pids 64 --timeout 20s --stats "$T/s.json" sr-jail --ro-bind "$T/p" /p sr-exec)
chain() { run "${CHAIN[@]}" /p/sp "$@"; }
bare() { run "$SP" "$@"; }
stats() { json_get "$T/s.json" "$1"; }

# Other ABIs: the filter is written for x86_64 and kills the rest.
if [ "$(uname -m)" = x86_64 ]; then
	bare int80
	like "$out" "^int80 returned -?[0-9]+$" "control: int 0x80 returns on the host ($out)"
	chain int80
	is "$rc:$out" "159:" "i386 syscall through int 0x80: killed before it returns (128+SIGSYS)"
	is "$(stats status)" 159 "sr-limit's report gives status 159"
	bare x32
	like "$out" "^x32 returned -?[0-9]+$" "control: an x32 syscall number returns on the host ($out)"
	chain x32
	is "$rc:$out" "159:" "x32 syscall (bit 30 set): killed before it returns"
	is "$(stats status)" 159 "sr-limit's report gives status 159"
else
	for d in "int 0x80 control" "int 0x80 killed" "int 0x80 stats" "x32 control" "x32 killed" "x32 stats"; do
		skip "$d" "not x86_64 ($(uname -m))"
	done
fi

# control_ok DESC WANT ARGS...: the probe gets WANT bare, or a skip saying why not.
control_ok() {
	local desc=$1 want=$2
	shift 2
	bare "$@"
	if [ "$out" = "$want" ]; then ok "control: $desc on the host" true
	else skip "control: $desc on the host" "not for this user here: $(printf '%s' "$out" | tr '\n' ' ')"; fi
}

control_ok "io_uring_setup works" "io_uring_setup=ok" io_uring
chain io_uring
is "$out" "io_uring_setup=EPERM" "io_uring_setup: EPERM"

bare bpf
like "$out" "bpf_bogus=EINVAL" "control: bpf() reaches the kernel on the host (an unknown command: EINVAL; map: ${out%%$'\n'*})"
chain bpf
is "$out" "bpf_map_create=EPERM
bpf_bogus=EPERM" "bpf: EPERM for every command, known or not (refused before the kernel looks)"

control_ok "perf_event_open on itself works" "perf_event_open=ok" perf
chain perf
is "$out" "perf_event_open=EPERM" "perf_event_open: EPERM"

control_ok "userfaultfd(UFFD_USER_MODE_ONLY) works" "userfaultfd=ok" uffd
chain uffd
is "$out" "userfaultfd=EPERM" "userfaultfd: EPERM"
run "${CHAIN[@]}" sh -c 'test -e /dev/userfaultfd && echo present || echo absent'
is "$out" absent "no /dev/userfaultfd inside"

control_ok "keyctl, add_key and request_key work" "keyctl=ok
add_key=ok
request_key=ok" keys
chain keys
is "$out" "keyctl=EPERM
add_key=EPERM
request_key=EPERM" "keyctl, add_key, request_key: EPERM"

# The new mount API, which could rearrange the view of the filesystem.
mkdir -p "$T/mnt"
run unshare -rm "$SP" newmount "$T/mnt"
if [ "$out" = "fsopen=ok
fsconfig=ok
fsmount=ok
move_mount=ok" ]; then
	ok "control: in a user+mount namespace the probe mounts a tmpfs with fsopen..move_mount" true
else
	skip "control: fsopen..move_mount in a user+mount namespace" "not here: $(printf '%s' "$out $err" | tr '\n' ' ')"
fi
chain newmount /tmp
is "$out" "fsopen=EPERM" "fsopen: EPERM"
run sr-limit --pids 64 --timeout 20s sr-jail --uid 0 --ro-bind "$T/p" /p sr-exec /p/sp newmount /tmp
is "$out" "fsopen=EPERM" "fsopen as uid 0 inside: EPERM"
run unshare -rm "$SP" open_tree /tmp
if [ "$out" = "open_tree=ok" ]; then
	ok "control: open_tree(OPEN_TREE_CLONE) works in a user+mount namespace" true
else
	skip "control: open_tree in a user+mount namespace" "not here: $out $err"
fi
chain open_tree /usr
is "$out" "open_tree=EPERM" "open_tree(OPEN_TREE_CLONE) of /usr: EPERM"

# Namespace flags: clone3 cannot be checked (its flags are in memory), so
# it is ENOSYS and libc falls back to clone, whose flags are.
control_ok "clone3(CLONE_NEWUSER|CLONE_NEWNS) works" "clone3=ok" clone3 0x10020000
chain clone3 0x10020000
is "$out" "clone3=ENOSYS" "clone3 with namespace flags: ENOSYS"
chain clone3 0
is "$out" "clone3=ENOSYS" "clone3 without flags: ENOSYS too (a filter cannot see the flags)"
control_ok "clone(CLONE_NEWUSER|CLONE_NEWNET) works" "clone=ok" clone 0x50000000
chain clone 0x50000000
is "$out" "clone=EPERM" "clone(CLONE_NEWUSER|CLONE_NEWNET): EPERM"
chain clone 0
is "$out" "clone=ok" "control: a plain clone (fork) works inside"
control_ok "unshare(CLONE_NEWUSER|CLONE_NEWNS) works" "unshare=ok" unshare 0x10020000
chain unshare 0x10020000
is "$out" "unshare=EPERM" "unshare(CLONE_NEWUSER|CLONE_NEWNS): EPERM"
chain unshare 0x08000000
is "$out" "unshare=EPERM" "unshare(CLONE_NEWCGROUP): EPERM"
run "${CHAIN[@]}" unshare -r true
ok "the unshare(1) tool fails inside ($(printf '%s' "$err" | head -1))" test "$rc" != 0

# personality: no READ_IMPLIES_EXEC, no ADDR_NO_RANDOMIZE.
control_ok "personality(READ_IMPLIES_EXEC) works" "personality=ok
now=0x400000" personality 0x400000
chain personality 0x400000
is "$out" "personality=EPERM
now=0" "personality(READ_IMPLIES_EXEC): EPERM, and not in force"
control_ok "personality(ADDR_NO_RANDOMIZE) works" "personality=ok
now=0x40000" personality 0x40000
chain personality 0x40000
is "$out" "personality=EPERM
now=0" "personality(ADDR_NO_RANDOMIZE): EPERM, and not in force"
if command -v setarch >/dev/null; then
	run setarch "$(uname -m)" -R true
	is "$rc" 0 "control: setarch -R (no randomization) runs on the host"
	run "${CHAIN[@]}" setarch "$(uname -m)" -R true
	ok "setarch -R fails inside ($(printf '%s' "$err" | head -1))" test "$rc" != 0
else
	skip "control: setarch -R on the host" "no setarch here"
	skip "setarch -R fails inside" "no setarch here"
fi

# The filter cannot be shed: it is inherited through fork and exec.
run sh -c 'sh -c "grep ^Seccomp: /proc/self/status"'
like "$out" "Seccomp:[[:space:]]+0" "control: no filter on the test's own processes"
run "${CHAIN[@]}" sh -c 'sh -c "grep -E \"^(Seccomp|NoNewPrivs):\" /proc/self/status" | tr -s "\t" " "'
is "$out" "NoNewPrivs: 1
Seccomp: 2" "a grandchild inside still runs under the filter, with no_new_privs"

done_testing
