#!/bin/bash
# What reaches past the namespaces, refused by sr-jail alone (its own small
# seccomp filter), without sr-exec: pushing input into the caller's
# terminal (TIOCSTI, with and without high bits in the command), TIOCLINUX,
# AF_VSOCK (not network-namespaced), the keyring calls; and terminal
# settings changed inside are put back when the jail ends.
. "$(dirname "$0")/../lib.sh"

need_userns

cc_probe_file tty tty.c

# ontty CMD...: run CMD with a new pty as its stdin (non-canonical, so one
# pushed byte is readable); print CMD's output, then "pushed: BYTES" (what
# sits in the terminal's input queue afterwards) and "changed: yes|no".
ontty() { python3 "$SR_ROOT/tests/probes/ontty.py" "$@"; }

# Controls: on the host the probe pushes input and changes the terminal.
run ontty "$T/tty" sti
if [[ $out == *"sti ok"* ]]; then
	like "$out" "pushed: XX" "control: on the host TIOCSTI pushes input (both forms)"
	run ontty sr-jail "$T/tty" sti
	like "$out" "sti EPERM" "in the jail TIOCSTI is refused (EPERM)"
	like "$out" "sti-high EPERM" "... also with high bits set in the command"
	like "$out" "pushed: $" "... and nothing reached the terminal's input"
else
	skip "TIOCSTI refused in the jail" "TIOCSTI does not work here even on the host ($out)"
fi
run ontty "$T/tty" linux
unlike "$out" "linux EPERM" "control: on the host TIOCLINUX is not refused by a filter"
run ontty sr-jail "$T/tty" linux
like "$out" "linux EPERM" "in the jail TIOCLINUX is refused (EPERM)"

run ontty "$T/tty" raw
like "$out" "changed: yes" "control: a raw-mode change on the host persists"
run ontty sr-jail "$T/tty" raw
like "$out" "raw ok" "in the jail a program may change the terminal's settings"
like "$out" "changed: no" "... and sr-jail puts them back when it ends"

run "$T/tty" vsock
if [ "$out" = "vsock ok" ]; then
	ok "control: on the host an AF_VSOCK socket opens" true
	run sr-jail "$T/tty" vsock
	is "$out" "vsock EAFNOSUPPORT" "in the jail AF_VSOCK is refused"
	run sr-jail --share-net "$T/tty" vsock
	is "$out" "vsock ok" "with --share-net (network isolation given up) it is allowed"
else
	skip "AF_VSOCK refused in the jail" "no AF_VSOCK on this host ($out)"
fi

run "$T/tty" keys
is "$out" "keys ok" "control: on the host the user keyring is reachable"
run sr-jail "$T/tty" keys
is "$out" "keys EPERM" "in the jail the keyring calls are refused"
if command -v keyctl >/dev/null && keyctl add user sr-escape-test hunter2 @u >/dev/null 2>&1; then
	at_exit "keyctl purge user sr-escape-test >/dev/null 2>&1"
	run sr-jail sh -c 'cat /proc/keys'
	unlike "$out" "sr-escape-test" "/proc/keys in the jail does not show the caller's key"
else
	skip "/proc/keys hides the caller's keys" "keyctl (keyutils) cannot add a key here"
fi

done_testing
