#!/bin/bash
# sr-jail --quota: a writable bind capped by the kernel (an overlay whose
# upper layer is a size-capped tmpfs), applied to the host directory when
# the jail is gone, following no link.
. "$(dirname "$0")/lib.sh"

need_userns

w="$T/ws"
mkdir "$w"
# Before Linux 6.6 tmpfs has no user xattrs, where overlayfs keeps its
# opaque directories: the overlay would mount, and then fail to remove a
# directory of the host's (EIO). --quota refuses to run there, naming it.
run sr-jail python3 -c 'import os; open("/tmp/x", "w"); os.setxattr("/tmp/x", "user.t", b"1")'
if [ "$rc" != 0 ]; then
	diag "tmpfs has no user xattrs here (Linux $(uname -r)): $err"
	run sr-jail --bind "$w" /w --quota 1M sh -c 'echo RAN; echo data > /w/f'
	is "$rc" 111 "without user xattrs on tmpfs (Linux < 6.6), --quota fails closed: 111"
	is "$out" "" "the program did not run"
	is "$(printf '%s\n' "$err" | wc -l | tr -d ' ')" 1 "one line of diagnostics"
	like "$err" "^sr-jail: fatal: unable to set up --quota of /w: tmpfs has no user xattrs" \
		"naming the kernel feature"
	ok "the host directory is untouched" test -z "$(ls -A "$w")"
	run sr-jail --bind "$w" /w sh -c 'echo data > /w/f'
	is "$rc:$(cat "$w/f" 2>/dev/null)" 0:data "control: without --quota the bind works"
	# sr-mcp: its default quota is off here, and sandbox_info says so; a
	# quota asked for makes a run fail, naming the kernel feature.
	mkdir -m 0700 "$T/st"
	info='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sandbox_info","arguments":{}}}'
	run mcp_call "$info" env "${mcp_san[@]+"${mcp_san[@]}"}" sr-mcp --state-dir "$T/st"
	is "$(json_get "$out" result.structuredContent.caps.workspace_bytes)" null \
		"sr-mcp: no workspace quota here, and sandbox_info says so (workspace_bytes null)"
	like "$(json_get "$out" result.structuredContent.caps.workspace_quota_note)" \
		"^off: sr-jail: fatal: unable to set up --quota of /w: tmpfs has no user xattrs" \
		"and why, in sr-jail's words (workspace_quota_note)"
	code='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_code","arguments":{"language":"bash","code":"echo RAN"}}}'
	run mcp_call "$code" env "${mcp_san[@]+"${mcp_san[@]}"}" sr-mcp --state-dir "$T/st"
	is "$(json_get "$out" result.structuredContent.stdout)" RAN "sr-mcp: a run goes without it"
	run mcp_call "$code" env "${mcp_san[@]+"${mcp_san[@]}"}" sr-mcp --state-dir "$T/st" \
		--workspace-quota 10M
	like "$out" "tmpfs has no user xattrs" \
		"sr-mcp --workspace-quota: a run fails, naming the kernel feature"
	unlike "$(json_get "$out" result.structuredContent.stdout)" RAN "and runs nothing"
	skip "the rest of --quota" "tmpfs has no user xattrs here (Linux < 6.6): --quota refuses to run"
	done_testing
	exit
fi
run sr-jail --bind "$w" /w --quota 1M sh -c 'echo RAN; echo data > /w/f'
if [ "$rc" != 0 ] && printf '%s' "$err" | grep -q 'unable to mount an overlay'; then
	skip_all "no unprivileged overlayfs with a tmpfs upper layer here: $err"
fi
is "$rc:$out" 0:RAN "a --bind with --quota runs"
is "$(cat "$w/f")" data "and what it wrote is applied"
rm -f "$w/f"

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
# a user xattr, which tmpfs has since Linux 6.6 (older: refused, above).
run sr-jail --bind "$w" /w --quota 8M sh -c '
	cd /w && rm -r dir && mkdir dir && echo fresh > dir/fresh &&
	rm wasfile && mkdir wasfile && echo in > wasfile/in'
is "$rc" 0 "a run that makes directories where others were removed"
is "$(ls -A "$w/dir")" fresh "a directory removed and made again holds only the new file"
is "$(cat "$w/wasfile/in")" in "a directory where a file was"

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
# (the SIGKILL would come after 300 s: a run that ends well before did not
# wait for it, on however slow a machine)
start=$(date +%s)
run sr-limit --timeout 1s --kill-after 300s sr-jail --bind "$w" /w --quota 8M sh -c \
	'echo early > /w/early; sleep 600 & sleep 600'
is "$rc" 124 "the run timed out"
is "$(cat "$w/early" 2>/dev/null)" early "a run that timed out keeps its files"
ok "without waiting for the SIGKILL" test $(( $(date +%s) - start )) -lt 150

# --quota-cache: the size is measured once, then each run adds what it
# changed; the cache must agree with a fresh measure after every kind of
# change, and be trusted only for its own directory and boot.
rm -rf "$w" && mkdir -p "$w/gone/sub" "$w/again" "$w/wasdir/x" "$w/keep"
head -c 3000 /dev/zero > "$w/gone/sub/f"; head -c 700 /dev/zero > "$w/again/old"
head -c 500 /dev/zero > "$w/wasdir/x/y"; head -c 100 /dev/zero > "$w/keep/over"
head -c 40 /dev/zero > "$w/tolink"
qc="$T/qcache"
cached() { awk '{print $5}' "$qc" 2>/dev/null; }
run sr-jail -v --bind "$w" /w --quota 1M --quota-cache "$qc" true
like "$err" "/w: $(size_of "$w") bytes used, measured" "the first run measures the directory"
is "$(cached)" "$(size_of "$w")" "and keeps its size in the cache"
run sr-jail -v --bind "$w" /w --quota 1M --quota-cache "$qc" sh -c '
	cd /w && head -c 1234 /dev/zero > new && head -c 10 /dev/zero > keep/over &&
	rm -r gone && rm -r again && mkdir again && echo fresh > again/f &&
	rm -r wasdir && head -c 77 /dev/zero > wasdir && rm tolink && ln -s keep tolink &&
	mkdir -p n/m && head -c 5000 /dev/zero > n/m/z'
is "$rc" 0 "a run that adds, overwrites, removes and replaces"
like "$err" "bytes used, from the cache" "the next run takes the size from the cache"
is "$(ls -A "$w/again")" f "a directory removed and made again is applied"
is "$(cached)" "$(size_of "$w")" "the cache agrees with a fresh measure after the run"
run sr-jail --bind "$w" /w --quota 1M --quota-cache "$qc" sh -c 'rm -r /w/n /w/new'
is "$(cached)" "$(size_of "$w")" "and after a run that only removes"
# Two runs at once: the size they leave adds up.
sr-jail --bind "$w" /w --quota 1M --quota-cache "$qc" sh -c 'head -c 3000 /dev/zero > /w/p1; sleep 0.3' &
sr-jail --bind "$w" /w --quota 1M --quota-cache "$qc" sh -c 'head -c 4000 /dev/zero > /w/p2; sleep 0.3' &
wait
is "$(cached)" "$(size_of "$w")" "two runs ending together: the cache adds up"
# The cached size is the one the quota uses: a cache that says the
# directory is nearly full leaves no room (the cache is the caller's to keep
# outside the program's reach).
read -r tag v dev ino bytes inodes when boot < "$qc"
echo "$tag $v $dev $ino $((1048576 - 1000)) $inodes $when $boot" > "$qc"
run sr-jail --bind "$w" /w --quota 1M --quota-cache "$qc" sh -c 'head -c 20000 /dev/zero > /w/big'
like "$err" "No space left on device" "the room left is the cap minus the cached size"
rm -f "$w/big"
echo "$tag $v $dev $ino 1047576 $inodes $when 00000000-0000-0000-0000-000000000000" > "$qc"
run sr-jail -v --bind "$w" /w --quota 1M --quota-cache "$qc" true
like "$err" "bytes used, measured" "a cache from another boot is measured again"
echo "$tag $v $dev $((ino + 1)) 1047576 $inodes $when $boot" > "$qc"
run sr-jail -v --bind "$w" /w --quota 1M --quota-cache "$qc" true
like "$err" "bytes used, measured" "a cache of another directory is measured again"
echo "$tag $v $dev $ino 1047576 $inodes $(($(date +%s) - 7200)) $boot" > "$qc"
run sr-jail -v --bind "$w" /w --quota 1M --quota-cache "$qc" true
like "$err" "bytes used, measured" "a cache older than an hour is measured again"
echo garbage > "$qc"
run sr-jail -v --bind "$w" /w --quota 1M --quota-cache "$qc" true
like "$err" "bytes used, measured" "a cache that is not one is measured again"
is "$(cached)" "$(size_of "$w")" "and rewritten"
run sr-jail --bind "$w" /w --quota 1M --quota-cache "$w/cache" true
is "$rc" 100 "a cache inside the --bind (the program could forge it) is a usage error"
run sr-jail --bind "$w" /w --quota-cache "$qc" true
is "$rc" 100 "--quota-cache without --quota is a usage error"
ln -sf "$qc" "$T/qlink"
run sr-jail --bind "$w" /w --quota 1M --quota-cache "$T/qlink" true
is "$rc" 111 "a cache that is a symbolic link is refused"

# --quota-inodes: the directory's inodes are capped too (a run could
# otherwise fill the disk's inode table with empty directories, which
# take no bytes). During the run the kernel stops them (the tmpfs has an
# inode count); what is applied is held to the cap exactly.
inodes() { find "$1" -mindepth 1 | wc -l; }
rm -rf "$w" && mkdir "$w"
run sr-jail --bind "$w" /w --quota 8M --quota-inodes 100 sh -c \
	'cd /w && i=0; while [ $i -lt 3000 ]; do mkdir d$i 2>/dev/null || break; i=$((i + 1)); done
	 echo "made $i"; mkdir d-last'
like "$err" "No space left on device" "empty directories past --quota-inodes get ENOSPC"
made=$(printf '%s\n' "$out" | sed -n 's/^made //p')
ok "the run could make a few hundred at most (${made})" test "${made:-3000}" -lt 400
is "$(inodes "$w")" 100 "the host directory holds exactly the cap"
like "$err" "sr-jail: warning: /w: quota of 100 inodes reached" "the inode quota hit is reported"
rm -rf "$w" && mkdir "$w"
run sr-jail --bind "$w" /w --quota 8M sh -c \
	'cd /w && i=0; while [ $i -lt 3000 ]; do mkdir d$i || exit 1; i=$((i + 1)); done'
is "$rc" 0 "control: without --quota-inodes the same run makes them all"
is "$(inodes "$w")" 3000 "control: and they all land on the host"
# Links of one file: its data once in the run, as many copies on the
# host; each copy is held to the caps.
rm -rf "$w" && mkdir "$w"
run sr-jail --bind "$w" /w --quota 1M sh -c \
	'head -c 300000 /dev/zero > /w/f; i=0; while [ $i -lt 100 ]; do ln /w/f /w/l$i; i=$((i + 1)); done'
is "$rc" 0 "a run gives a file of 300000 bytes 100 more names within a 1M quota"
ok "their copies are held to the size cap ($(size_of "$w") bytes)" test "$(size_of "$w")" -le 1048576
like "$err" "quota of 1 MiB reached: [0-9]+ entries not applied" "and the names left out are reported"
rm -rf "$w" && mkdir "$w"
run sr-jail --bind "$w" /w --quota 8M --quota-inodes 50 sh -c \
	'echo x > /w/f; i=0; while [ $i -lt 200 ]; do ln /w/f /w/l$i 2>/dev/null; i=$((i + 1)); done'
ok "and to the inode cap ($(inodes "$w") entries)" test "$(inodes "$w")" -eq 50

# Two runs at once: each could make 80 under a cap of 100; together they
# are held to it, with the cache and without.
for cache in "--quota-cache $qc" ""; do
	rm -rf "$w" && mkdir "$w" && rm -f "$qc"
	for p in a b; do
		sr-jail --bind "$w" /w --quota 8M --quota-inodes 100 $cache sh -c \
			"i=0; while [ \$i -lt 80 ]; do mkdir /w/$p\$i; i=\$((i + 1)); done; sleep 0.3" \
			2>/dev/null &
	done
	wait
	is "$(inodes "$w")" 100 "two runs at once are held to the inode cap together (${cache:-no cache})"
done

# At the cap: a file can still be removed, an existing one rewritten, and
# a removal anywhere makes room for a new entry anywhere.
rm -rf "$w" && mkdir "$w"
for d in a b c d e f g h i j; do
	mkdir "$w/$d"
	for n in 1 2 3 4 5 6 7 8 9; do echo x > "$w/$d/f$n"; done
done
rm -f "$qc"
run sr-jail --bind "$w" /w --quota 8M --quota-inodes 100 --quota-cache "$qc" sh -c \
	'echo more >> /w/b/f1 && rm /w/a/f1 && echo new > /w/top'
is "$rc" 0 "at the cap: append, remove, and make one new file"
is "$(cat "$w/b/f1")" "x
more" "the append was applied"
ok "the removal was applied" test ! -e "$w/a/f1"
is "$(cat "$w/top" 2>/dev/null)" new "the new file took the room the removal made"
is "$(inodes "$w")" 100 "still at the cap"
is "$(awk '{print $6}' "$qc")" 100 "the cache counts the inodes"
run sr-jail --bind "$w" /w --quota 8M --quota-inodes 100 --quota-cache "$qc" sh -c \
	'rm -r /w/c && mkdir /w/x && touch /w/x/1 /w/x/2 && ln -s top /w/l && echo y > /w/new2'
is "$rc" 0 "a run that removes a directory and makes some"
is "$(awk '{print $6}' "$qc")" "$(inodes "$w")" "the cache agrees with a fresh count"
run sr-jail -v --bind "$w" /w --quota 8M --quota-inodes 100 true
like "$err" "/w: $(size_of "$w") bytes used, measured; $(inodes "$w") inodes" "and so does a measure"
# Over the cap at the start (the cap lowered): nothing new is applied,
# removals and rewrites are.
run sr-jail --bind "$w" /w --quota 8M --quota-inodes 50 --quota-cache "$qc" sh -c \
	'rm /w/d/f1 && echo z > /w/d/f2 && echo n > /w/n'
is "$(cat "$w/d/f2")" z "over the cap: a rewrite is applied"
ok "over the cap: a removal is applied" test ! -e "$w/d/f1"
ok "over the cap: nothing new" test ! -e "$w/n"
is "$(awk '{print $6}' "$qc")" "$(inodes "$w")" "and the cache still counts right"
# The cache's older format (no inode count) and a damaged one are not
# trusted: measured again.
read -r tag v dev ino bytes inodes when boot < "$qc"
echo "$tag 1 $dev $ino 0 $when $boot" > "$qc"
run sr-jail -v --bind "$w" /w --quota 8M --quota-cache "$qc" true
like "$err" "bytes used, measured" "a cache of the old format is measured again"
is "$(awk '{print $2, $6}' "$qc")" "2 $(inodes "$w")" "and rewritten in the new one"
for bad in "$tag 2 $dev $ino 0 -5 $when $boot" "$tag 2 $dev $ino 0 0 $when $boot trailing" \
	   "$tag 2 $dev $ino 0 99999999999999999999999 $when $boot"; do
	echo "$bad" > "$qc"
	run sr-jail -v --bind "$w" /w --quota 8M --quota-cache "$qc" true
	like "$err" "bytes used, measured" "a damaged cache is measured again: ${bad#* 2 * * }"
done
# A directory the program made unreadable or unsearchable is counted all
# the same (its owner's rights given back), not skipped.
rm -rf "$w" && mkdir -p "$w/a/b" "$w/c/d" && echo 12345 > "$w/a/b/f" && echo 123 > "$w/c/d/g"
chmod 400 "$w/a" && chmod 000 "$w/c"
run sr-jail -v --bind "$w" /w --quota 1M true
like "$err" "/w: 10 bytes used, measured" "directories made unreadable are measured all the same"
chmod -R u+rwx "$w"
run sr-jail --bind "$w" /w --quota-inodes 100 true
is "$rc" 100 "--quota-inodes without --quota is a usage error"
run sr-jail --bind "$w" /w --quota 1M --quota-inodes 0 true
is "$rc" 100 "--quota-inodes 0 is a usage error"
run sr-jail --bind "$w" /w --quota 1M --quota-inodes 12x true
is "$rc" 100 "--quota-inodes with trailing garbage is a usage error"

# Any depth the kernel allows: a tree 3000 levels deep is measured,
# applied, counted and removed (no recursion, few descriptors).
rm -rf "$w" && mkdir "$w" && rm -f "$qc"
run sr-jail --bind "$w" /w --quota 8M --quota-cache "$qc" python3 -c '
import os
os.chdir("/w")
for i in range(3000):
    os.mkdir("d"); os.chdir("d")
open("bottom", "w").write("deep")'
is "$rc" 0 "a run makes a tree 3000 levels deep"
is "$(inodes "$w")" 3001 "it is applied whole"
is "$(find "$w" -name bottom -execdir cat {} +)" deep "down to the file at the bottom"
is "$(awk '{print $5, $6}' "$qc")" "4 3001" "the cache counts it"
run sr-jail -v --bind "$w" /w --quota 8M true
like "$err" "/w: 4 bytes used, measured" "a measure reaches the bottom"
run sr-jail --bind "$w" /w --quota 8M --quota-cache "$qc" rm -rf /w/d
is "$rc" 0 "a run removes it"
is "$(inodes "$w")" 0 "the removal is applied whole"
is "$(awk '{print $5, $6}' "$qc")" "0 0" "and counted"

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

# --control: the changes applied while the program runs, on request. The
# program takes its steps from a fifo and says each is done on another;
# between them the test asks for an apply on the socket (ctl_apply) and
# looks at the host directory while the program still runs.
ctl_apply() {
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n")
print(s.recv(600).decode().strip())' "$1" "${2:-apply}"
}
# The view: the program's /workspace as a descriptor the control socket
# hands out. ctl_view SOCK write NAME TEXT|big: NAME made through it with
# TEXT (or 16 MiB: the errno past the cap), "ok written" or "ok errno N";
# ctl_view SOCK cat NAME: NAME read through it, or "missing".
ctl_view() {
	python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"view\n")
msg, fds, _, _ = socket.recv_fds(s, 16, 1)
op, name = sys.argv[2], sys.argv[3]
if op == "cat":
    try:
        print(open(os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fds[0])).read().strip())
    except FileNotFoundError:
        print("missing")
    sys.exit(0)
fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=fds[0])
try:
    os.write(fd, sys.argv[4].encode()) if sys.argv[4] != "big" else [os.write(fd, b"h" * (1 << 20)) for _ in range(16)]
    print(msg.decode().strip(), "written")
except OSError as e:
    print(msg.decode().strip(), "errno", e.errno)
    os.unlink(name, dir_fd=fds[0])' "$@"
}
rm -rf "$w" && mkdir "$w" "$T/cv" && echo lower > "$w/old" && mkdir "$w/hd" && echo k > "$w/hd/k"
echo precious > "$T/cv/victim"
mkfifo "$T/cin" "$T/cout"
sr-jail --bind "$w" /w --quota 4M --control "$T/ctl" --chdir /w sh -c '
	echo one > new; mkdir -p made/sub; echo x > made/sub/x; echo y > made/y; rm old
	cat viewed direct 2>/dev/null
	echo step1; read a
	cat viewed >saw-viewed 2>&1; cat direct >saw-direct 2>&1
	rm made/sub/x; mv made moved; rm -r hd; mkdir hd; echo n > hd/n
	ln -s "$1/victim" lnk; rm -f new; ln -s "$1" new; mkdir -p deep/er; ln -s "$1" deep/er/dl
	echo step2; read a
	: >res; fallocate -n -l 8M res
	python3 -c "import os, sys
f = open(\"gone\", \"wb\", buffering=0)
os.remove(\"gone\")
b = memoryview(b\"z\" * (8 << 20))
try:
    while b:
        b = b[f.write(b):]
except OSError as e:
    print(\"unlinked:\", e.errno, flush=True)
sys.stdin.readline()"
	echo end' sh "$T/cv" <"$T/cin" >"$T/cout" 2>"$T/cerr" &
cpid=$!
exec 7>"$T/cin" 8<"$T/cout"
read -r -t 60 step <&8
is "$step" step1 "a program under --control writes its first files"
is "$(stat -c %a "$T/ctl" 2>/dev/null)" 600 "the control socket is the caller's alone (0600)"
ok "before any apply, the host directory is untouched" test -e "$w/old" -a ! -e "$w/new"
is "$(ctl_apply "$T/ctl")" ok "an apply on request answers ok"
is "$(cat "$w/new" 2>/dev/null):$(cat "$w/made/sub/x" 2>/dev/null)" one:x \
	"the host directory has the program's files while it runs"
ok "and its removal" test ! -e "$w/old"
# The lower may not change under a live overlay: a name the program found
# missing stays missing to it (overlayfs keeps the negative lookup). The
# view is the way in: what the host writes through it the program sees,
# and it counts against the same cap.
echo "by the host" > "$w/direct"
is "$(ctl_view "$T/ctl" write viewed "by the view")" "ok written" "a file written through the view"
is "$(ctl_view "$T/ctl" write hbig big)" "ok errno 28" "through the view, writes past the quota get ENOSPC too"
like "$(ctl_apply "$T/ctl" nonsense)" "^failed: unknown request" "an unknown request is refused"
echo >&7
read -r -t 60 step <&8
is "$step" step2 "the program goes on after the apply"
is "$(ctl_apply "$T/ctl")" ok "a second apply"
ok "a file removed inside a directory the program made is removed (no whiteout says so)" \
	test ! -e "$w/made/sub/x" -a ! -e "$w/made"
is "$(cat "$w/moved/y" 2>/dev/null)" y "the directory's new name holds its files"
is "$(ls -A "$w/hd" 2>/dev/null)" n "a host directory removed and made again holds only the new file"
is "$(readlink "$w/lnk")" "$T/cv/victim" "a link the program made between applies is applied as a link"
ok "a file replaced by a link to a directory: a link" test -L "$w/new"
is "$(readlink "$w/deep/er/dl")" "$T/cv" "a link in new directories: a link"
is "$(cat "$T/cv/victim"):$(ls -A "$T/cv")" precious:victim "nothing was written through the links"
is "$(cat "$w/saw-viewed" 2>/dev/null)" "by the view" "the program read what the host wrote through the view, after it looked"
like "$(cat "$w/saw-direct" 2>/dev/null)" "No such file" \
	"control: a file the host wrote into the directory itself stays missing to the program that looked"
is "$(cat "$w/viewed" 2>/dev/null)" "by the view" "and the apply brought it to the host directory"
ino2=$(stat -c %i "$w/moved/y" 2>/dev/null)
echo >&7
read -r -t 60 step <&8
like "$(cat "$T/cerr")" "No space left on device" "fallocate --keep-size past the quota: ENOSPC"
is "$step" "unlinked: 28" "a file written after its unlink, past the quota: ENOSPC"
like "$(ctl_apply "$T/ctl")" "^ok full$" "the apply says the quota's tmpfs is full"
ok "the reservation and the unlinked file reached the host disk not at all" \
	test "$(du -sk "$w" | cut -f1)" -lt 1024
is "$(stat -c %i "$w/moved/y" 2>/dev/null)" "$ino2" "an unchanged file is not copied again"
echo >&7
read -r -t 60 step <&8
is "$step" end "the program ends"
wait "$cpid"
is "$?" 0 "and sr-jail with it"
exec 7>&- 8<&-
ok "the control socket is removed when the jail ends" test ! -e "$T/ctl"
is "$(ls -A "$w" | sort | tr '\n' ' ')" "deep direct hd lnk moved new res saw-direct saw-viewed viewed " "the last changes are applied at the end"
run sr-jail --bind "$w" /w sh -c ': >/w/res; fallocate -n -l 8M /w/res && python3 -c "import os
f = open(\"/w/gone\", \"wb\")
os.remove(\"/w/gone\")
f.write(b\"z\" * (8 << 20)); f.flush(); print(os.fstat(f.fileno()).st_blocks * 512 >= 8 << 20)"'
is "$rc:$out" 0:True "control: without --quota both take the room on the host disk"
rm -f "$w/res"
run sr-jail --bind "$w" /w --control "$T/ctl2" true
is "$rc" 100 "--control without --quota is a usage error"
mkfifo "$T/ctl3"
run sr-jail --bind "$w" /w --quota 1M --control "$T/ctl3" true
is "$rc" 111 "--control where something is already: fails"

# --view-from: a second jail over the directory of a jail under --control
# (a session's, in sr-mcp): the first applies before the second starts, and
# the second's changes reach the first through its view, even a name the
# first had looked for; a second --control applies through the view too.
rm -rf "$w" "$T/vc" && mkdir "$w" "$T/vc" && echo lower > "$w/old" && mkfifo "$T/vgo" "$T/vout"
sr-jail --bind "$w" /w --quota 4M --control "$T/vc/ctl" --ro-bind "$T/vgo" /run/go --chdir /w sh -c '
	cat ran two plain 2>/dev/null; echo by-first > first; echo started
	read a </run/go; echo "saw: $(cat ran 2>&1) $(cat two 2>&1)"
	read a </run/go; python3 -c "
import os
f = open(\"fill\", \"wb\", buffering=0)
try:
    while True: f.write(b\"f\" * (1 << 20))
except OSError as e: print(\"full\", e.errno, flush=True)"
	read a </run/go' >"$T/vout" 2>"$T/verr" &
vpid=$!
exec 6<"$T/vout"
read -r -t 60 step <&6
is "$step" started "a first jail under --control"
ok "control: its file is not in the host directory yet" test ! -e "$w/first"
run sr-jail --bind "$w" /w --quota 4M --view-from "$T/vc/ctl" sh -c 'cat /w/first; echo by-run > /w/ran; rm /w/old'
is "$rc:$out" "0:by-first" "--view-from: the first jail applied before the second started: it reads the first's file"
is "$(cat "$w/ran" 2>/dev/null):$(test -e "$w/old" && echo old)" "by-run:" "its changes are in the host directory when it ends (the first applied them)"
# the second says it wrote through a directory of its own, and waits on a fifo
mkdir "$T/vm" && mkfifo "$T/vgo2"
sr-jail --bind "$w" /w --quota 4M --view-from "$T/vc/ctl" --control "$T/vc/ctl2" \
	--bind "$T/vm" /m --ro-bind "$T/vgo2" /run/go sh -c \
	'echo by-second > /w/two; : > /m/wrote; read a </run/go' 2>/dev/null &
spid=$!
wait_for "the second jail writes its file" 60 test -e "$T/vm/wrote"
is "$(ctl_apply "$T/vc/ctl2")" ok "--view-from with --control: an apply on request answers"
is "$(cat "$w/two" 2>/dev/null)" by-second "and it went through the first jail's view to the host directory"
echo >"$T/vgo2"
wait "$spid"
echo >"$T/vgo"
read -r -t 60 step <&6
is "$step" "saw: by-run by-second" "the first jail's program reads both files, names it had looked for before they were made"
# the control: the same run without --view-from applies into the lower
run sr-jail --bind "$w" /w --quota 4M sh -c 'echo by-plain > /w/plain'
is "$(cat "$w/plain" 2>/dev/null)" by-plain "control: a run without --view-from applies to the host directory"
is "$(ctl_view "$T/vc/ctl" cat plain)" missing "control: which the first jail's view does not show (it had looked for that name)"
echo >"$T/vgo"
read -r -t 60 step <&6
is "$step" "full 28" "the first jail fills its tmpfs"
run sr-jail --bind "$w" /w --quota 4M --view-from "$T/vc/ctl" sh -c 'head -c 1048576 /dev/zero > /w/more'
like "$err" "quota of 4 MiB reached" "--view-from into a full view: the quota reached is said"
ok "and the file that did not fit is not in the host directory" test ! -s "$w/more"
echo >"$T/vgo"
wait "$vpid"
exec 6<&-
ok "--view-from once the first jail has ended: no socket left" test ! -e "$T/vc/ctl"
run sr-jail --bind "$w" /w --quota 4M --view-from "$T/vc/ctl" sh -c 'echo alone > /w/alone'
is "$rc:$(cat "$w/alone" 2>/dev/null)" 0:alone "--view-from with nothing serving it: as without"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$T/vc/ctl"
run sr-jail --bind "$w" /w --quota 4M --control "$T/vc/ctl" true
is "$rc" 0 "--control where a socket nothing serves was left: replaced"
run sr-jail --bind "$w" /w --view-from "$T/vc/ctl" true
is "$rc" 100 "--view-from without --quota is a usage error"
# a jail ending at the path (applying its last changes): the next waits for
# it. The first holds the path until released; the next is released only
# once its bind was refused (its system calls, by strace): it has tried.
mkfifo "$T/vgo3"
sr-jail --bind "$w" /w --quota 4M --control "$T/vc/ctl" --ro-bind "$T/vgo3" /run/go \
	sh -c 'read a </run/go' &
epid=$!
wait_for "the first jail serves its --control" 60 test -S "$T/vc/ctl"
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
	strace -qq -o "$T/vtrace" -e trace=bind sr-jail --bind "$w" /w --quota 4M \
		--control "$T/vc/ctl" sh -c 'echo next' >"$T/vnext" 2>&1 &
	npid=$!
	wait_for "the next jail's bind is refused" 60 grep -q EADDRINUSE "$T/vtrace"
	echo >"$T/vgo3"
	wait "$npid"
	is "$?:$(cat "$T/vnext")" 0:next "--control where another jail serves it: it waits for that jail to end"
else
	skip "--control where another jail serves it: it waits for that jail to end" \
		"no strace here to see the next jail try (or ptrace refused)"
	echo >"$T/vgo3"
fi
wait "$epid"

# sr-mcp where --quota cannot run (an sr-jail that refuses it, as one does
# on a kernel without user xattrs on tmpfs): its default quota is off, and
# sandbox_info says so and why; where it runs, there is no such note.
# sr-mcp runs the tools beside it: an installed layout with that sr-jail.
mkdir -p "$T/noq/runners" && mkdir -m 0700 "$T/st1" "$T/st2"
cp "$(command -v sr-mcp)" "$T/noq/sr-mcp"
for t in sr-queue sr-limit sr-exec; do ln -s "$(command -v $t)" "$T/noq/$t"; done
cp "$SR_ROOT/sr-mcp/runners/bash" "$T/noq/runners/"
cat >"$T/noq/sr-jail" <<EOF
#!/bin/sh
case " \$* " in *" --quota "*)
	echo "sr-jail: fatal: unable to set up --quota of /w: a kernel without it" >&2; exit 111 ;;
esac
exec "$(command -v sr-jail)" "\$@"
EOF
chmod +x "$T/noq/sr-jail"
info='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sandbox_info","arguments":{}}}'
run mcp_call "$info" "$T/noq/sr-mcp" --state-dir "$T/st1"
is "$(json_get "$out" result.structuredContent.caps.workspace_bytes)" null \
	"sr-mcp where --quota is refused: no workspace quota (workspace_bytes null)"
is "$(json_get "$out" result.structuredContent.caps.workspace_quota_note)" \
	"off: sr-jail: fatal: unable to set up --quota of /w: a kernel without it" \
	"and sandbox_info says why, in sr-jail's words (workspace_quota_note)"
run mcp_call "$info" sr-mcp --state-dir "$T/st2"
is "$(json_get "$out" result.structuredContent.caps.workspace_bytes):$(json_get "$out" result.structuredContent.caps.workspace_quota_note)" 1073741824:'<missing>' \
	"control: where --quota runs, the quota is on and there is no note"

# There, a session has no quota to hold it (no --quota for its jail):
# a session that wrote a file lives on, its files in the workspace.
cp -r "$SR_ROOT/sr-mcp/runners/python" "$SR_ROOT/sr-mcp/runners/python-lib" "$T/noq/runners/"
mkdir -m 0700 "$T/st3"
run python3 -c '
import json, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def call(i, code):
    a = {"language": "python", "workspace_id": "wq", "session": True, "code": code}
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                              "params": {"name": "run_code", "arguments": a}}) + "\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())["result"]["structuredContent"]
call(1, "x = 5\nopen(\"f\", \"w\").write(\"y\" * 4096)")
time.sleep(2.5)
r = call(2, "x")
print(r.get("stdout", "").strip(), r.get("hint", ""))
p.stdin.close(); p.wait()
' "$T/noq/sr-mcp" --state-dir "$T/st3"
is "$out" "5 " "where the default quota was turned off, a session's files do not end it (the state kept)"

done_testing
