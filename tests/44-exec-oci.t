#!/bin/bash
# --profile FILE: OCI/Docker seccomp JSON. Podman's default profile (Debian
# package golang-github-containers-common) and Docker's default profile
# load and behave as under those engines; includes/excludes (caps, arches,
# minKernel), argument conditions, errnoRet; bad profiles exit 100 with
# the file, the place and the reason.
. "$(dirname "$0")/lib.sh"

cc_probe_file probe exec_probe.c
P=$T/probe
PY=/usr/bin/python3
run_sh() { run sh -c '"$@"' sh "$@"; }
# Capabilities decide some rules of the real profiles; the suite runs
# unprivileged, and these expectations are for a process without them.
caps=$(awk '/^CapEff:/ {print $2}' /proc/self/status)
nocaps() { [ "$caps" = 0000000000000000 ]; }
# under PROFILE WANT DESC PROBE-ARGS...: what the probe prints under PROFILE
under() {
	local prof=$1 want=$2 desc=$3
	shift 3
	run sr-exec -p "$prof" "$P" "$@"
	is "$out" "$want" "$desc"
}

# --- Podman's default profile ---------------------------------------------
podman=/usr/share/containers/seccomp.json
if [ -r "$podman" ]; then
	run sr-exec -p "$podman" "$PY" -c 'import subprocess, threading, os
t = threading.Thread(target=print, args=("thread",)); t.start(); t.join()
print(subprocess.check_output(["echo", "child"]).decode().strip())
os.mkdir("d"); os.rmdir("d")' 
	is "$out" "thread
child" "podman profile: python3 with a thread and a subprocess runs"
	under "$podman" "io_uring_setup: ENOSYS" "podman profile: io_uring_setup is not listed: ENOSYS (defaultErrnoRet 38)" io_uring_setup
	under "$podman" "userfaultfd: EPERM" "podman profile: userfaultfd refused with errnoRet 1" deny userfaultfd
	under "$podman" "personality: ENOSYS" "podman profile: personality(READ_IMPLIES_EXEC) not among its allowed values" personality 0x400000
	under "$podman" "personality: ok" "podman profile: personality query allowed (arg condition)" personality 0xffffffff
	under "$podman" "socket: ok" "podman profile: sockets allowed, as under podman" socket 2
	if nocaps; then
		under "$podman" "bpf: EPERM" "podman profile: bpf refused without CAP_SYS_ADMIN (excludes.caps)" deny bpf
		under "$podman" "socket: EINVAL" "podman profile: netlink audit socket refused with EINVAL without CAP_AUDIT_WRITE" socket 16,9
	else
		skip "podman profile: cap-dependent rules" "this process has capabilities ($caps)"
	fi
	run_sh sr-exec -p "$podman" "$P" x32
	is "$rc" 159 "podman profile: x32 syscalls killed (only the native ABI)"
	run sr-exec -v -p "$podman" true
	like "$err" "other architectures the profile lists are not allowed" "--verbose says the profile's other arches are not used"
else
	skip "podman's default seccomp profile" "$podman missing (Debian package golang-github-containers-common)"
fi

# --- Docker's default profile -----------------------------------------------
docker=/usr/share/gocode/src/github.com/docker/docker/profiles/seccomp/default.json
[ -r "$docker" ] || docker=$SR_ROOT/tests/data/exec-docker-default.json
run sr-exec -p "$docker" "$PY" -c 'print(sum(range(10)))'
is "$out" 45 "docker profile: python3 runs"
under "$docker" "ptrace_traceme: ok" "docker profile: ptrace allowed (includes.minKernel 4.8 holds)" ptrace_traceme
under "$docker" "keyctl: EPERM" "docker profile: keyctl not listed: EPERM (the default errno)" keyctl
if nocaps; then
	under "$docker" "clone: EPERM" "docker profile: clone(CLONE_NEWUSER) refused (SCMP_CMP_MASKED_EQ rule)" clone 0x10000000
	under "$docker" "clone: ok" "docker profile: clone without namespace flags allowed" clone 0
	under "$docker" "unshare: EPERM" "docker profile: unshare refused without CAP_SYS_ADMIN" unshare 0x10000000
else
	skip "docker profile: cap-dependent rules" "this process has capabilities ($caps)"
fi
run sr-exec -p "$docker" --allow keyctl "$P" keyctl
is "$out" "keyctl: ok" "--allow adjusts a profile file"
run sr-exec -p "$docker" --deny getppid:EACCES "$P" getppid
is "$out" "getppid: EACCES" "--deny adjusts a profile file"
run sr-exec -p "$docker" --log "$P" keyctl
is "$out" "keyctl: ok" "--log with a profile file: refusals only logged"
run sr-exec -p "$docker" --print
like "$out" "pseudo filter code start" "--print with a profile file"

# --- conditions and arguments in small profiles ------------------------------
prof() { printf '%s\n' "$2" >"$T/$1.json"; }
rule() { # NAME ACTION-JSON-FRAGMENT: profile allowing all but one rule on getppid
	prof "$1" "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"getppid\"],$2}]}"
}
# probe_is NAME WANT DESC PROBE-ARGS...: the probe under profile $T/NAME.json
probe_is() { local name=$1; shift; under "$T/$name.json" "$@"; }
# getppid_is NAME FRAGMENT WANT DESC: one rule on getppid, then the probe
getppid_is() {
	rule "$1" "$2"
	probe_is "$1" "$3" "$4" getppid
}
getppid_is errno '"action":"SCMP_ACT_ERRNO","errnoRet":42' "getppid: E42" "errnoRet is the errno"
getppid_is noret '"action":"SCMP_ACT_ERRNO"' "getppid: EPERM" "SCMP_ACT_ERRNO without errnoRet: EPERM"
prof defret '{"defaultAction":"SCMP_ACT_ERRNO","defaultErrnoRet":13,"syscalls":[{"names":["execve","brk","mmap","mprotect","munmap","arch_prctl","set_tid_address","set_robust_list","rseq","prlimit64","newfstatat","openat","read","close","pread64","access","write","exit_group","fstat"],"action":"SCMP_ACT_ALLOW"}]}'
if san_asan; then
	skip "defaultErrnoRet is the default errno" "ASan's runtime in sr-exec makes syscalls between the filter load and exec that this minimal profile refuses"
else
	run sr-exec -p "$T/defret.json" "$P" getppid
	is "$out" "getppid: EACCES" "defaultErrnoRet is the default errno"
fi
rule kill '"action":"SCMP_ACT_KILL_PROCESS"'
run_sh sr-exec -p "$T/kill.json" "$P" getppid
is "$rc" 159 "SCMP_ACT_KILL_PROCESS kills with SIGSYS"
getppid_is newk '"action":"SCMP_ACT_ERRNO","includes":{"minKernel":"999.0"}' "getppid: ok" "includes.minKernel above the running kernel: rule left out"
getppid_is oldk '"action":"SCMP_ACT_ERRNO","includes":{"minKernel":"3.10"}' "getppid: EPERM" "includes.minKernel below the running kernel: rule applies"
getppid_is exk '"action":"SCMP_ACT_ERRNO","excludes":{"minKernel":"3.10"}' "getppid: ok" "excludes.minKernel below the running kernel: rule left out"
if nocaps; then
	getppid_is incap '"action":"SCMP_ACT_ERRNO","includes":{"caps":["CAP_SYS_ADMIN"]}' "getppid: ok" "includes.caps not held: rule left out"
	getppid_is excap '"action":"SCMP_ACT_ERRNO","excludes":{"caps":["CAP_SYS_ADMIN"]}' "getppid: EPERM" "excludes.caps not held: rule applies"
else
	skip "includes/excludes caps" "this process has capabilities ($caps)"
fi
case $(uname -m) in
x86_64)
	getppid_is inarch '"action":"SCMP_ACT_ERRNO","includes":{"arches":["amd64","x32"]}' "getppid: EPERM" "includes.arches with the native arch (amd64): rule applies"
	getppid_is exarch '"action":"SCMP_ACT_ERRNO","excludes":{"arches":["amd64"]}' "getppid: ok" "excludes.arches with the native arch: rule left out" ;;
*) skip "includes/excludes arches" "not x86_64" ;;
esac
getppid_is s390 '"action":"SCMP_ACT_ERRNO","includes":{"arches":["s390x"]}' "getppid: ok" "includes.arches of another arch: rule left out"

prof same '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_ALLOW"},{"names":["getpgid"],"action":"SCMP_ACT_ERRNO"}]}'
probe_is same "getppid: ok" "a rule repeating the default action is dropped, not an error" getppid

# personality(arg0): AND of two conditions on different args, OR when an index repeats
prof and '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["personality"],"action":"SCMP_ACT_ERRNO","errnoRet":7,"args":[{"index":0,"value":4194304,"op":"SCMP_CMP_EQ"},{"index":1,"value":0,"op":"SCMP_CMP_EQ"}]}]}'
probe_is and "personality: E7" "args on different indexes are ANDed" personality 0x400000
prof or '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["personality"],"action":"SCMP_ACT_ERRNO","errnoRet":7,"args":[{"index":0,"value":4194304,"op":"SCMP_CMP_EQ"},{"index":0,"value":262144,"op":"SCMP_CMP_EQ"}]}]}'
probe_is or "personality: E7" "args repeating an index are ORed (second value)" personality 0x40000
probe_is or "personality: E7" "args repeating an index are ORed (first value)" personality 0x400000
probe_is or "personality: ok" "args repeating an index: other values pass" personality 0
prof masked '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["personality"],"action":"SCMP_ACT_ERRNO","errnoRet":7,"args":[{"index":0,"value":4194304,"valueTwo":4194304,"op":"SCMP_CMP_MASKED_EQ"}]}]}'
probe_is masked "personality: E7" "SCMP_CMP_MASKED_EQ: value is the mask, valueTwo the datum" personality 0x400008
probe_is masked "personality: ok" "SCMP_CMP_MASKED_EQ: unmatched value passes" personality 8
# values are read exactly as written, up to 2^64-1 (not as doubles)
prof big '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["personality"],"action":"SCMP_ACT_ERRNO","errnoRet":7,"args":[{"index":0,"value":9007199254740993,"op":"SCMP_CMP_EQ"}]}]}'
probe_is big "personality: E7" "an argument value of 2^53+1 is that value" personality 9007199254740993
probe_is big "personality: ok" "... not 2^53, which a double would make of it" personality 9007199254740992
prof max '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["personality"],"action":"SCMP_ACT_ERRNO","errnoRet":0.7e1,"args":[{"index":0,"value":18446744073709551615,"valueTwo":4194304,"op":"SCMP_CMP_MASKED_EQ"}]}]}'
probe_is max "personality: E7" "a mask of 2^64-1 is every bit; an errnoRet of 0.7e1 is 7" personality 0x400000
probe_is max "personality: ok" "... so a bit above 32 is compared too" personality 0x100400000
prof newer '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["mseal","getppid"],"action":"SCMP_ACT_ERRNO","errnoRet":9}]}'
probe_is newer "mseal: EBADF" "a syscall newer than libseccomp (mseal) is filtered by its number" mseal

# --- bad profiles: exit 100, FILE: PLACE: REASON --------------------------------
bad() { # NAME JSON ERE DESC
	prof "$1" "$2"
	run sr-exec -p "$T/$1.json" true
	is "$rc" 100 "$4: exit 100"
	like "$err" "^sr-exec: fatal: $T/$1.json: $3" "$4: message"
}
bad syntax '{"defaultAction": "SCMP_ACT_ALLOW",
 "syscalls": [ {"names": ["read",] } ]}' "line 2, column [0-9]+: malformed JSON" "malformed JSON"
bad trunc '{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [' "line 2, column 1: malformed JSON \(unexpected end\)" "truncated JSON"
bad trail '{"defaultAction": "SCMP_ACT_ALLOW"} x' "line 1, column [0-9]+: malformed JSON" "trailing garbage"
bad top '[1]' "top level: expected an object" "not an object"
bad nodef '{"syscalls": []}' "defaultAction: missing" "no defaultAction"
bad name '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["read"],"action":"SCMP_ACT_ALLOW"},{"names":["getppid","foo"],"action":"SCMP_ACT_ERRNO"}]}' \
	"syscalls\[1\]\.names\[1\]: unknown syscall 'foo'" "unknown syscall name"
bad action '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_MAYBE"}]}' \
	"syscalls\[0\]\.action: unknown action 'SCMP_ACT_MAYBE'" "unknown action"
bad defact '{"defaultAction":"ALLOW"}' "defaultAction: unknown action 'ALLOW'" "unknown default action"
bad notify '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_NOTIFY"}]}' \
	"syscalls\[0\]\.action: SCMP_ACT_NOTIFY needs a listener" "SCMP_ACT_NOTIFY"
bad op '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":1,"op":"SCMP_CMP_ABOUT"}]}]}' \
	"syscalls\[0\]\.args\[0\]\.op: unknown operator 'SCMP_CMP_ABOUT'" "unknown comparison"
bad index '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_ERRNO","args":[{"index":6,"value":1,"op":"SCMP_CMP_EQ"}]}]}' \
	"syscalls\[0\]\.args\[0\]\.index: 6 is not an integer from 0 to 5" "argument index 6"
bad neg '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":-1,"op":"SCMP_CMP_EQ"}]}]}' \
	"syscalls\[0\]\.args\[0\]\.value: -1 is not an integer" "negative argument value"
bad huge '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":18446744073709551616,"op":"SCMP_CMP_EQ"}]}]}' \
	"syscalls\[0\]\.args\[0\]\.value: 18446744073709551616 is not an integer from 0 to 18446744073709551615$" "argument value 2^64"
bad frac '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":1.5,"op":"SCMP_CMP_EQ"}]}]}' \
	"syscalls\[0\]\.args\[0\]\.value: 1\.5 is not an integer" "argument value with a fraction"
bad twice '{"defaultAction":"SCMP_ACT_ALLOW","defaultAction":"SCMP_ACT_KILL"}' \
	"line 1, column 35: malformed JSON \(a member name repeated in an object\)" "a member name twice, which engines read differently"
bad surrogate '{"defaultAction":"SCMP_ACT_ALLOW\ud800"}' \
	"line 1, column 33: malformed JSON \(lone surrogate in a .u escape\)" "a lone surrogate"
bad novalue '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"op":"SCMP_CMP_EQ"}]}]}' \
	"syscalls\[0\]\.args\[0\]\.value: expected a number" "argument without value"
bad errret '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_ERRNO","errnoRet":5000}]}' \
	"syscalls\[0\]\.errnoRet: 5000 is not an integer from 0 to 4095" "errnoRet out of range"
bad arch '{"defaultAction":"SCMP_ACT_ALLOW","architectures":["SCMP_ARCH_X86_64","SCMP_ARCH_Z80"]}' \
	"architectures\[1\]: unknown architecture 'SCMP_ARCH_Z80'" "unknown architecture"
bad kver '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["getppid"],"action":"SCMP_ACT_ERRNO","includes":{"minKernel":"new"}}]}' \
	"syscalls\[0\]\.includes\.minKernel: 'new' is not a kernel version" "bad minKernel"
bad names '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"action":"SCMP_ACT_ERRNO"}]}' \
	"syscalls\[0\]: no syscall names" "entry without names"
bad flag '{"defaultAction":"SCMP_ACT_ALLOW","flags":["SECCOMP_FILTER_FLAG_FAST"]}' \
	"flags\[0\]: unknown flag 'SECCOMP_FILTER_FLAG_FAST'" "unknown flag"
# a bad entry is reported even when its conditions leave it out
bad hidden '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["nosuchcall"],"action":"SCMP_ACT_ERRNO","includes":{"arches":["s390x"]}}]}' \
	"syscalls\[0\]\.names\[0\]: unknown syscall 'nosuchcall'" "a typo in a rule for another arch"
run sr-exec -p "$T/none.json" true
is "$rc" 111 "a missing profile file: exit 111"
like "$err" "unable to read profile" "a missing profile file: message"

done_testing
