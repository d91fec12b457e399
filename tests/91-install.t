#!/bin/bash
# make install / uninstall into a DESTDIR: programs, man pages and data
# land where PREFIX says, nothing is setuid or setcap, and uninstall
# removes all of it.
. "$(dirname "$0")/lib.sh"

d=$T/dest
run make -s -C "$SR_ROOT" install PREFIX=/opt/sr DESTDIR="$d"
is "$rc" 0 "make install succeeds"
[ "$rc" = 0 ] || diag "$err"
for dir in "$SR_ROOT"/sr-*/; do
	tool=$(basename "$dir")
	[ -x "$dir/$tool" ] || continue
	ok "$tool installed" test -x "$d/opt/sr/bin/$tool"
	ok "$tool man page installed" test -f "$d/opt/sr/share/man/man1/$tool.1"
done
for f in runners/python runners/install/pip runners/install/npm; do
	ok "sr-mcp's $f installed, executable" test -x "$d/opt/sr/share/sr/sr-mcp/$f"
done
# The Python runner's start-up module (it saves open matplotlib figures)
# beside the runner, where the runner binds it from; data, not a runner.
rd=$d/opt/sr/share/sr/sr-mcp/runners
ok "the runners are installed" test -x "$rd/python" -a -x "$rd/bash" -a -x "$rd/javascript"
ok "the Python runner's start-up module is installed beside it" test -f "$rd/python-lib/sitecustomize.py"
ok "the start-up module is not executable (sr-mcp takes no language from it)" test ! -x "$rd/python-lib/sitecustomize.py"
like "$(cat "$rd/python")" 'python-lib' "the installed Python runner binds python-lib from beside itself"
ok "the javascript runner's session interpreter is installed beside it, not executable" \
	test -f "$rd/node-lib/session.js" -a ! -x "$rd/node-lib/session.js"
for f in ts.js ts-check.js ts-run.js ts-snapshot.js ts-hooks.mjs node-globals.d.ts any-module.d.ts; do
	ok "the typescript runner's node-lib/$f is installed beside it, not executable" \
		test -f "$rd/node-lib/$f" -a ! -x "$rd/node-lib/$f"
done
is "$(find "$d" -perm /6000 | wc -l | tr -d ' ')" 0 "nothing installed is setuid or setgid"
getcap=$(PATH=$PATH:/usr/sbin:/sbin command -v getcap)
if [ -n "$getcap" ]; then
	is "$("$getcap" -r "$d" 2>/dev/null)" "" "nothing installed has file capabilities"
else
	skip "nothing installed has file capabilities" "getcap (libcap2-bin) is not installed"
fi
# sr-limit and sr-jail are static (see the Makefile), and sr-exec when it
# is built against musl: they need nothing at run time, not even a
# dynamic loader. .build-flags says which libc the build linked them with.
libc=$(sed -n 's/.* static:\([a-z]*\)$/\1/p' "$SR_ROOT/.build-flags" 2>/dev/null)
for tool in sr-limit sr-jail sr-exec; do
	if [ -n "${SAN:-}" ]; then
		skip "$tool is statically linked" "sanitizer builds link dynamically (SAN=$SAN)"
	elif [ "$tool" = sr-exec ] && [ "$libc" != musl ]; then
		skip "$tool is statically linked" "built with LIBC=${libc:-?}: sr-exec links libseccomp.so"
	else
		hdr=$(readelf -lW "$d/opt/sr/bin/$tool" 2>&1)
		unlike "$hdr" "INTERP|Requesting program interpreter" "$tool is statically linked (no program interpreter)"
		like "$hdr" "DYN \\(Position-Independent" "$tool is position-independent (static-pie)"
	fi
done
run "$d/opt/sr/bin/sr-limit" --stats-fd 3 true 3>"$T/s.json"
is "$(json_get "$T/s.json" reason)" exit "the installed sr-limit runs"
# --- an install to another prefix finds its runners relative to itself ----------
# The build's DATADIR is the default prefix's: sr-mcp installed under $T/one
# looks at ../share/sr/sr-mcp/runners from its own directory. A runner only
# that install has (bash-one) shows which directory it took.
run make -s -C "$SR_ROOT" install PREFIX="$T/one" DESTDIR=
is "$rc" 0 "make install PREFIX=$T/one (the binary built for the default prefix)"
one=$T/one/share/sr/sr-mcp/runners
cp "$one/bash" "$one/bash-one"
list='{"jsonrpc":"2.0","id":1,"method":"tools/list"}'
langs() { # the languages run_code offers, from a tools/list answer
	python3 -c 'import json, sys
for t in json.loads(sys.stdin.read() or "{}").get("result", {}).get("tools", []):
    if t["name"] == "run_code":
        print(" ".join(t["inputSchema"]["properties"]["language"]["enum"]))'
}
mkdir -m 0700 "$T/empty"
inst=(env PATH="$T/one/bin:/usr/bin:/bin" "${mcp_san[@]+"${mcp_san[@]}"}" "$T/one/bin/sr-mcp")
run mcp_call "$list" "${inst[@]}" --state-dir "$T/st1"
is "$(langs <<<"$out")" "bash bash-one javascript python typescript" \
	"the installed sr-mcp offers the runners installed beside it (PREFIX/share/sr/sr-mcp/runners)"
run "${inst[@]}" --state-dir "$T/st2" --runners "$T/empty" </dev/null
like "$rc:$err" "^111:sr-mcp: fatal: no runner in the runners directory $T/empty" \
	"control: --runners on an empty directory wins (sr-mcp refuses it at start)"
mkdir -m 0700 "$T/only" && cp "$one/bash" "$T/only/sh-only"
code='{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_code","arguments":{"language":"%s","code":"%s"}}}'
if have_userns; then
	run mcp_call "$(printf "$code" python 'print(6*7)')" "${inst[@]}" --state-dir "$T/st3"
	like "$out" '"stdout":"42\\n"' "the installed sr-mcp runs python through the installed runner and tools"
	run mcp_call "$(printf "$code" bash-one 'echo one-$((6*7))')" "${inst[@]}" --state-dir "$T/st3"
	like "$out" '"stdout":"one-42\\n"' "and the runner only that install has"
	run mcp_call "$(printf "$code" python 'print(6*7)')" "${inst[@]}" --state-dir "$T/st4" --runners "$T/only"
	like "$out" 'language must be one of: sh-only' "control: with --runners on a directory of one other runner, python does not run"
else
	skip "the installed sr-mcp runs code" "no user namespaces here: $userns_why"
fi
run make -s -C "$SR_ROOT" uninstall PREFIX="$T/one" DESTDIR=
run make -s -C "$SR_ROOT" uninstall PREFIX=/opt/sr DESTDIR="$d"
is "$rc" 0 "make uninstall succeeds"
is "$(find "$d" -type f | wc -l | tr -d ' ')" 0 "uninstall removes every installed file"

# DATADIR may be a directory of the user's: uninstall removes what install
# put there, never the rest of it.
dd=$T/dd u=$T/dd/user-share
mkdir -p "$u/other" && echo mine >"$u/other/keep" && echo mine >"$u/keep"
run make -s -C "$SR_ROOT" install PREFIX=/opt/sr DATADIR=/user-share DESTDIR="$dd"
is "$rc" 0 "make install with DATADIR a directory of the user's"
ok "the runners are installed there" test -x "$u/sr-mcp/runners/python"
run make -s -C "$SR_ROOT" uninstall PREFIX=/opt/sr DATADIR=/user-share DESTDIR="$dd"
is "$rc" 0 "make uninstall with that DATADIR"
is "$(cd "$u" && find . | sort | tr '\n' ' ')" ". ./keep ./other ./other/keep " \
	"uninstall removed only what install put there (the user's files and DATADIR stay)"
done_testing
