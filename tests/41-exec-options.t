#!/bin/bash
# sr-exec's command line: usage errors and exit codes, --print, --save-bpf
# and --bpf (with bad BPF files), --allow, --deny, --log, --verbose.
. "$(dirname "$0")/lib.sh"

cc_probe_file probe exec_probe.c
P=$T/probe
# through sh, so that the shell reporting a killed child writes to $err
run_sh() { run sh -c '"$@"' sh "$@"; }

run sr-exec --help
is "$rc" 0 "--help exits 0"
like "$out" "^usage: sr-exec" "--help prints usage on stdout"

run sr-exec
is "$rc" 100 "no program: exit 100"
like "$err" "^sr-exec: usage: " "no program: a usage line"
run sr-exec --landlock=sometimes true
is "$rc" 100 "--landlock=sometimes: exit 100"
like "$err" "--landlock: invalid mode: 'sometimes' \\(want auto, off or require\\)" "--landlock: the bad value is named"
run sr-exec --bogus true
is "$rc" 100 "unknown option: exit 100"
run sr-exec --deny no_such_call true
is "$rc" 100 "--deny of an unknown syscall: exit 100"
like "$err" "--deny: invalid syscall: 'no_such_call'" "--deny: the unknown name is named"
run sr-exec --allow 'getppid:EPERM' true
is "$rc" 100 "--allow NAME:ERRNO: exit 100"
run sr-exec --deny getppid:EWHAT true
is "$rc" 100 "--deny with a bad errno: exit 100"
like "$err" "invalid errno: 'EWHAT'" "--deny: the bad errno is named"
run sr-exec --deny getppid:4096 true
is "$rc" 100 "--deny with errno 4096: exit 100"
run sr-exec -p strict --net true
is "$rc" 100 "--net with strict: exit 100"
run sr-exec -p strict --save-bpf "$T/x.bpf"
is "$rc" 100 "--save-bpf of strict: exit 100"
run sr-exec --landlock=off --ro / true
is "$rc" 100 "--ro with --landlock=off: exit 100"
run sr-exec --bpf "$T/none.bpf" --log true
is "$rc" 100 "--bpf with --log: exit 100"
run sr-exec -- /nonexistent/prog
is "$rc" 127 "program not found: exit 127"
printf 'not a program\n' >"$T/noexec"
chmod 644 "$T/noexec"
run sr-exec "$T/noexec"
is "$rc" 126 "program not executable: exit 126"
run sr-exec -p strict /nonexistent/prog
is "$rc" 127 "strict, program not found: exit 127"
run sr-exec sh -c 'exit 7'
is "$rc" 7 "the program's exit code comes through (it is exec'd)"
run sh -c 'echo $$; exec sr-exec sh -c "echo \$\$"'
is "$(printf '%s\n' "$out" | sort -u | wc -l | tr -d ' ')" 1 "sr-exec execs in place (same pid)"
run sr-exec "$P" personality 0xffffffff
is "$out" "personality: ok" "options end at the program: its own arguments are not parsed"

# --print: the compiled filter, without running anything.
run sr-exec --print
is "$rc" 0 "--print exits 0"
like "$out" "pseudo filter code start" "--print shows libseccomp's pfc"
like "$out" "profile default" "--print names the profile"
like "$out" "invalid architecture action" "--print shows the bad-arch action"
like "$out" "KILL_PROCESS|action KILL;" "other ABIs are killed"
run sr-exec --print --allow socket
unlike "$out" '\$a0.lo32 [^&]*== 2$' "--print --allow socket: no family check left"

# --save-bpf / --bpf: a filter compiled once, loaded without libseccomp.
run sr-exec --save-bpf "$T/def.bpf"
is "$rc" 0 "--save-bpf exits 0"
size=$(stat -c %s "$T/def.bpf")
is "$((size % 8))" 0 "--save-bpf writes whole BPF instructions"
run sr-exec --bpf "$T/def.bpf" "$P" socket 2
is "$out" "socket: EPERM" "--bpf: the saved default refuses AF_INET"
run sr-exec --bpf "$T/def.bpf" "$P" socket 1
is "$out" "socket: ok" "--bpf: the saved default allows AF_UNIX"
run_sh sr-exec --bpf "$T/def.bpf" "$P" x32
is "$rc" 159 "--bpf: the saved default kills x32 syscalls (SIGSYS)"
run sr-exec --net --save-bpf "$T/net.bpf"
run sr-exec --bpf "$T/net.bpf" "$P" socket 2
is "$out" "socket: ok" "--net --save-bpf: the saved filter allows AF_INET"
run sr-exec -v --bpf "$T/def.bpf" true
like "$err" "raw BPF from .*def.bpf: [0-9]+ instructions" "--verbose names the BPF file"

: >"$T/empty.bpf"
run sr-exec --bpf "$T/empty.bpf" true
is "$rc" 100 "--bpf of an empty file: exit 100"
like "$err" "empty.bpf: 0 bytes is not a whole number of 8-byte BPF instructions" "empty BPF: reason given"
head -c 13 "$T/def.bpf" >"$T/odd.bpf"
run sr-exec --bpf "$T/odd.bpf" true
is "$rc" 100 "--bpf of a 13-byte file: exit 100"
like "$err" "13 bytes is not a whole number" "odd-sized BPF: reason given"
head -c $((4097 * 8)) /dev/zero >"$T/big.bpf"
run sr-exec --bpf "$T/big.bpf" true
is "$rc" 100 "--bpf of 4097 instructions: exit 100"
like "$err" "larger than 4096 BPF instructions" "oversized BPF: reason given"
# "return ALLOW" alone: valid BPF, but it never looks at the architecture.
printf '\x06\x00\x00\x00\x00\x00\xff\x7f' >"$T/allow.bpf"
run sr-exec --bpf "$T/allow.bpf" true
is "$rc" 100 "--bpf that does not check the architecture: exit 100"
like "$err" "checks the architecture first" "arch-less BPF: reason given"
# load arch, then jump past the end: the kernel's verifier refuses it.
printf '\x20\x00\x00\x00\x04\x00\x00\x00\x05\x00\x00\x00\x09\x00\x00\x00' >"$T/jump.bpf"
run sr-exec --bpf "$T/jump.bpf" true
is "$rc" 100 "--bpf the kernel refuses: exit 100"
like "$err" "the kernel refused this filter" "kernel-refused BPF: reason given"
run sr-exec --bpf "$T/missing.bpf" true
is "$rc" 111 "--bpf of a missing file: exit 111"

# --allow, --deny, --log adjust the profile.
run sr-exec --allow socket "$P" socket 2
is "$out" "socket: ok" "--allow socket: AF_INET allowed"
run sr-exec --deny getppid "$P" getppid
is "$out" "getppid: EPERM" "--deny getppid: EPERM"
run sr-exec --deny getppid:EACCES "$P" getppid
is "$out" "getppid: EACCES" "--deny getppid:EACCES"
run sr-exec --deny getppid:42 "$P" getppid
is "$out" "getppid: E42" "--deny getppid:42"
run sr-exec --deny ptrace --allow ptrace "$P" ptrace_traceme
is "$out" "ptrace_traceme: ok" "the last --allow/--deny of a syscall wins"
run sr-exec --log "$P" socket 2
is "$out" "socket: ok" "--log: a refused call goes through (logged by the kernel)"
run sr-exec --log "$P" get_mempolicy
is "$out" "get_mempolicy: ok" "--log: an unlisted call goes through"
run_sh sr-exec --log "$P" x32
is "$rc" 159 "--log: other ABIs are still killed"

run sr-exec -v true
like "$err" "seccomp: profile default: [0-9]+ BPF instructions compiled at build time" "--verbose: what the filter is"
like "$err" "no_new_privs: set" "--verbose: no_new_privs"
like "$err" "landlock: " "--verbose: Landlock"
like "$err" "seccomp: loaded in [0-9.]+ ms" "--verbose: load time"
diag "$(printf '%s\n' "$err" | grep -E 'built in|loaded in')"
run sr-exec true
is "$err" "" "quiet without --verbose"
mkdir "$T/fds"
run sh -c 'cd /proc/$$/fd && echo *'
plain=$out
run sr-exec -p "$SR_ROOT/tests/data/exec-docker-default.json" --rx / --rw "$T/fds" --landlock=require \
	sh -c 'cd /proc/$$/fd && echo *'
is "$out" "$plain" "sr-exec hands on no file descriptors (profile file and Landlock used)"
run sr-exec --bpf "$T/def.bpf" sh -c 'cd /proc/$$/fd && echo *'
is "$out" "$plain" "sr-exec --bpf hands on no file descriptors"
run sr-exec sh -c 'grep -E "^(NoNewPrivs|Seccomp):" /proc/self/status | tr -s "\t " " "'
like "$out" "NoNewPrivs: 1" "the program runs with no_new_privs"
like "$out" "Seccomp: 2" "the program runs in seccomp filter mode"

done_testing
