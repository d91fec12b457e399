#!/bin/bash
# sr-jail --quota: a writable bind capped by the kernel (an overlay whose
# upper layer is a size-capped tmpfs), applied to the host directory when
# the jail is gone, following no link.
. "$(dirname "$0")/lib.sh"

need_userns

w="$T/ws"
mkdir "$w"
run sr-jail --bind "$w" /w --quota 1M true
if [ "$rc" != 0 ] && printf '%s' "$err" | grep -q 'unable to mount an overlay'; then
	skip_all "no unprivileged overlayfs with a tmpfs upper layer here: $err"
fi
is "$rc" 0 "a --bind with --quota runs"

size_of() { find "$1" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}'; }

# The cap: what is there counts, a write past it fails with ENOSPC.
head -c 262144 /dev/zero > "$w/old"
run sr-jail --bind "$w" /w --quota 1M sh -c \
	'dd if=/dev/zero of=/w/big bs=64k count=32; s=$?; grep " /w " /proc/self/mountinfo; exit $s'
ok "filling past the quota fails" test "$rc" != 0
like "$err" "No space left on device" "the write gets ENOSPC"
like "$err" "sr-jail: warning: /w: quota of 1 MiB reached \(ENOSPC\)" "the quota hit is reported"
like "$out" " - overlay " "/w is an overlay"
total=$(size_of "$w")
ok "the host directory stays under the cap ($total bytes)" test "$total" -le 1048576
ok "what fitted was applied ($total bytes)" test "$total" -gt 900000
rm -f "$w/big"
run sr-jail --bind "$w" /w sh -c \
	'dd if=/dev/zero of=/w/big bs=64k count=32 && grep " /w " /proc/self/mountinfo'
is "$rc" 0 "control: without --quota the same write succeeds"
unlike "$out" " - overlay " "control: without --quota /w is a plain bind"
is "$(size_of "$w")" $((262144 + 2097152)) "control: and lands in full"
run sr-jail --bind "$w" /w --quota 4M sh -c 'echo small > /w/s'
unlike "$err" "quota" "no quota message when it was not reached"
rm -rf "$w" && mkdir "$w"

# A sparse file takes no room in the tmpfs: it must take none on the host
# either (copied as its data, holes kept), or it would fill the disk.
run sr-jail --bind "$w" /w --quota 1M sh -c \
	'truncate -s 20G /w/sparse && printf data | dd of=/w/sparse bs=1 seek=1000000 conv=notrunc 2>/dev/null'
is "$rc" 0 "a 20 GB sparse file is made within a 1M quota"
is "$(stat -c %s "$w/sparse" 2>/dev/null)" 21474836480 "it comes back with its size"
used=$(du -k "$w/sparse" 2>/dev/null | cut -f1)
ok "and its data only: ${used} KiB on the host disk" test "${used:-999999}" -le 1024
is "$(dd if="$w/sparse" bs=1 skip=1000000 count=4 2>/dev/null)" data "its data where it was written"
rm -rf "$w" && mkdir "$w"

# The changes come back: new, changed, removed, renamed, modes, links,
# a directory removed and made again (opaque), a file over a directory.
echo old > "$w/changed"
echo gone > "$w/gone"
echo move > "$w/from"
mkdir -p "$w/dir/deep" "$w/wasdir/x" "$w/tree"
echo stale > "$w/dir/deep/stale"
echo keep > "$w/dir/kept"
echo f > "$w/wasfile"
echo keep > "$w/tree/untouched"
run sr-jail --bind "$w" /w --quota 8M sh -c '
	cd /w && echo new > new && echo more >> changed && rm gone && mv from to &&
	rm -r wasdir && echo now-a-file > wasdir &&
	ln -s ../target link && echo secret > private && chmod 600 private &&
	mkdir -p a/b/c && echo deep > a/b/c/d && mkfifo fifo && chmod 0 new'
is "$rc" 0 "a run of many changes"
is "$(cat "$w/changed")" "old
more" "an appended file"
ok "a removed file is removed" test ! -e "$w/gone"
ok "a renamed file: the old name gone" test ! -e "$w/from"
is "$(cat "$w/to")" move "a renamed file: the new name"
is "$(cat "$w/wasdir")" now-a-file "a file where a directory was"
is "$(readlink "$w/link")" ../target "a symlink is made as a symlink"
is "$(stat -c %a "$w/private")" 600 "a file's mode is kept"
is "$(stat -c %a "$w/new")" 0 "an unreadable file is applied, mode and all"
chmod 644 "$w/new"
is "$(cat "$w/new")" new "with its contents"
is "$(cat "$w/a/b/c/d")" deep "new nested directories"
is "$(cat "$w/tree/untouched")" keep "an untouched file stays"
ok "a fifo is not carried over" test ! -e "$w/fifo"
is "$(ls -A "$w" | grep -c '^\.sr-jail')" 0 "no temporary file is left behind"

# A directory made where one was removed is opaque: overlayfs marks it with
# a user xattr, which tmpfs has since Linux 6.6.
run sr-jail python3 -c 'import os; open("/tmp/x", "w"); os.setxattr("/tmp/x", "user.t", b"1")'
if [ "$rc" = 0 ]; then
	run sr-jail --bind "$w" /w --quota 8M sh -c '
		cd /w && rm -r dir && mkdir dir && echo fresh > dir/fresh &&
		rm wasfile && mkdir wasfile && echo in > wasfile/in'
	is "$rc" 0 "a run that makes directories where others were removed"
	is "$(ls -A "$w/dir")" fresh "a directory removed and made again holds only the new file"
	is "$(cat "$w/wasfile/in")" in "a directory where a file was"
else
	skip "a directory removed and made again" "tmpfs has no user xattrs here (Linux < 6.6)"
	skip "a directory where a file was" "tmpfs has no user xattrs here (Linux < 6.6)"
fi

# While the run goes on the host directory is untouched; a symlink planted
# there in the meantime is replaced, never written through.
rm -rf "$w" && mkdir "$w" "$T/sync" "$T/victimdir"
mkfifo "$T/sync/ready" "$T/sync/go"
echo precious > "$T/victim"
sr-jail --bind "$w" /w --quota 8M --ro-bind "$T/sync" /sync sh -c '
	echo data > /w/out && mkdir /w/sub && echo v > /w/sub/f &&
	echo > /sync/ready && read x < /sync/go' > "$T/o" 2> "$T/e" &
pid=$!
read -r _ < "$T/sync/ready"
ok "the host directory is untouched while the program runs" test -z "$(ls -A "$w")"
ln -s "$T/victim" "$w/out"
ln -s "$T/victimdir" "$w/sub"
echo go > "$T/sync/go"
wait "$pid"
is "$?" 0 "the run with a planted link ends well"
is "$(cat "$T/victim")" precious "the link's target was not written through"
ok "the planted file link was replaced by the file" test -f "$w/out" -a ! -L "$w/out"
is "$(cat "$w/out")" data "with the run's contents"
ok "the planted directory link was replaced by a directory" test -d "$w/sub" -a ! -L "$w/sub"
is "$(ls -A "$T/victimdir")" "" "nothing was written into the link's target directory"

# A link an earlier run left, to a directory outside: the program replaces
# it by a directory; the copy back follows no link.
rm -rf "$w" && mkdir "$w" "$T/outside"
ln -s "$T/outside" "$w/ld"
run sr-jail --bind "$w" /w --quota 8M sh -c 'rm /w/ld && mkdir /w/ld && echo x > /w/ld/f'
is "$rc" 0 "a run that replaces a link by a directory"
ok "the link became a directory" test -d "$w/ld" -a ! -L "$w/ld"
is "$(ls -A "$T/outside")" "" "nothing was written where the link pointed"

# A run that times out keeps its files: sr-limit's SIGTERM makes PID 1
# kill the rest and apply before the SIGKILL.
rm -rf "$w" && mkdir "$w"
start=$(date +%s)
run sr-limit --timeout 1s --kill-after 5s sr-jail --bind "$w" /w --quota 8M sh -c \
	'echo early > /w/early; sleep 60 & sleep 60'
is "$rc" 124 "the run timed out"
is "$(cat "$w/early" 2>/dev/null)" early "a run that timed out keeps its files"
ok "without waiting for the SIGKILL" test $(( $(date +%s) - start )) -lt 5

# The layers do not show inside, and usage errors.
run sr-jail --bind "$w" /w --quota 1M ls -A /
is "$(printf '%s\n' "$out" | grep -c '^\.sr-jail')" 0 "the overlay's layers are not visible"
run sr-jail --quota 1M true
is "$rc" 100 "--quota without a --bind before it is a usage error"
run sr-jail --ro-bind "$w" /w --quota 1M true
is "$rc" 100 "--quota after --ro-bind is a usage error"
run sr-jail --bind "$w" /w --quota 0 true
is "$rc" 100 "--quota 0 is a usage error"
touch "$w/file"
run sr-jail --bind "$w/file" /w --quota 1M true
is "$rc" 111 "--quota of a file (not a directory) fails"
ln -s "$w" "$T/wslink"
run sr-jail --bind "$T/wslink" /w --quota 1M true
like "$err" "symbolic link" "a --quota source that is a link is refused"

done_testing
