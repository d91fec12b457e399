#!/bin/bash
# Escape 2: a program that sr-jail runs from outside the jail's view must
# not be able to rewrite itself on the host (CVE-2019-5736's pattern):
# keep an O_PATH fd on /proc/self/exe, exec something else, reopen the fd
# for writing. sr-jail binds such a program read-only, so the reopening
# fails with EROFS and the host file keeps its bytes.
. "$(dirname "$0")/../lib.sh"

need_userns

# The probe: an O_PATH fd on TARGET (default /proc/self/exe) as fd 9,
# then /bin/sh appends a line to it through /proc/self/fd/9.
cc_probe rewrite '#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int fd = open(argc > 1 ? argv[1] : "/proc/self/exe", O_PATH);
	if (fd < 0) { printf("open: %s\n", strerror(errno)); return 2; }
	if (dup2(fd, 9) < 0) return 3;
	execl("/bin/sh", "sh", "-c",
	      "exec 8>>/proc/self/fd/9; echo REWRITTEN >&8; echo wrote", (char *)0);
	return 4;
}'
cp "$T/rewrite" "$T/rewrite.orig"

# Control: on the host, with no jail, the same probe rewrites its binary.
cp "$T/rewrite" "$T/control"
run "$T/control"
is "$out" "wrote" "control: without the jail the probe reopens its own binary for writing"
nok "control: the host binary was changed" cmp -s "$T/control" "$T/rewrite.orig"

# The probe is under $T, which the jail does not show: sr-jail must not
# exec it from the host's writable mount.
run sr-jail "$T/rewrite"
is "$out" "" "in the jail the reopening fails"
nok "... and the probe does not succeed" test "$rc" = 0
like "$err" "Read-only file system" "... with EROFS"
ok "the host binary keeps its bytes" cmp -s "$T/rewrite" "$T/rewrite.orig"

# Through the whole chain sr-jail runs sr-exec from the build tree;
# sr-exec's binary is the one a payload would want. A copy outside the
# view, and a payload that tries every exe it can name.
cp "$(command -v sr-exec)" "$T/sr-exec-copy"
cp "$T/sr-exec-copy" "$T/sr-exec.orig"
run sr-limit --pids 64 --timeout 20s sr-jail "$T/sr-exec-copy" /bin/sh -c '
for t in /proc/1/exe /proc/self/exe /run/sr-jail/sr-exec-copy; do
	if (exec 8>>"$t") 2>/dev/null; then echo "opened $t"; fi
done; echo done'
is "$out" "done" "chain: no exe of the jail opens for writing"
ok "chain: sr-exec's binary keeps its bytes" cmp -s "$T/sr-exec-copy" "$T/sr-exec.orig"

# PID 1 of the jail is sr-jail itself, a host binary: its exe cannot be
# reached at all.
run sr-jail "$T/rewrite" /proc/1/exe
like "$out" "^open: Permission denied" "PID 1's exe (the host's sr-jail) cannot be opened"

# A #! script from outside the view is bound read-only too.
printf '#!/bin/sh\necho appended >> "$0" && echo wrote\n' > "$T/self.sh"
chmod +x "$T/self.sh"
cp "$T/self.sh" "$T/self.orig"
run sr-jail "$T/self.sh"
like "$err" "Read-only file system" "a script cannot append to itself"
ok "the host script keeps its bytes" cmp -s "$T/self.sh" "$T/self.orig"
cp "$T/self.sh" "$T/self-control.sh"
run "$T/self-control.sh"
nok "control: run on the host the script appends to itself" cmp -s "$T/self-control.sh" "$T/self.orig"

done_testing
