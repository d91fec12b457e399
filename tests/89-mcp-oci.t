#!/bin/bash
# Environments from OCI images: scripts/oci-unpack applies an image's
# layers (an OCI layout or a docker save tar) with whiteouts and opaque
# directories, checks every digest, and refuses or defuses hostile layers.
# Each hostile case has its control: the same layers unpacked naively
# (Python's tarfile with no filter, as a careless unpacker would) do reach
# the host, so the attack is real.
. "$(dirname "$0")/lib.sh"
U="$SR_ROOT/scripts/oci-unpack"
MK="$SR_ROOT/tests/oci/mkimage.py"
cd "$T" || exit 1

# naive DIR IMAGE-OCI: extract each layer in order, trusting everything.
naive() {
	python3 - "$@" <<'PY'
import json, sys, tarfile
d, img = sys.argv[1], sys.argv[2]
idx = json.load(open(img + "/index.json"))
blob = lambda dg: img + "/blobs/sha256/" + dg.split(":")[1]
man = json.load(open(blob(idx["manifests"][0]["digest"])))
for l in man["layers"]:
    try:
        kw = {"filter": "fully_trusted"} if hasattr(tarfile, "fully_trusted_filter") else {}
        tarfile.open(blob(l["digest"])).extractall(d, **kw)
    except Exception as e:
        print("naive:", e, file=sys.stderr)
PY
}

# first_dir ST: the unpacked images in ST/oci, one a line.
cached() { ls -A "$1/oci" 2>/dev/null | tr '\n' ' '; }

# sr-mcp --environment NAME=oci:PATH: the image unpacked at start in the
# sandbox chain, kept in the state directory, run through an MCP client.
oci_mcp() {
	local R0 ST=$T/st-oci key
	R0=$(readlink -f "$SR_TEST_ROOTFS")
	mcp_spec() { # OUT-JSON EXTRA-FILE-DATA
		cat >"$1" <<J
{"gzip": true, "config": {"Env": ["LANG=C.UTF-8", "IMG_VAR=hello", "LD_PRELOAD=/x.so", "PYTHONPATH=/evil",
   "HOME=/root", "PATH=/opt/tool/bin:/usr/local/bin:/usr/bin:/bin"], "WorkingDir": "/app", "User": "1000"},
 "layers": [[{"name": ".", "from": "$R0"}],
            [{"name": "usr/bin/.wh.base32"}, {"name": "usr/share/doc/.wh..wh..opq"},
             {"name": "usr/share/doc/only", "data": "x"}, {"name": "opt", "type": "dir"},
             {"name": "opt/tool", "type": "dir"}, {"name": "opt/tool/bin", "type": "dir"},
             {"name": "opt/tool/bin/hi", "data": "#!/bin/sh\necho hi from opt\n", "mode": "755"},
             {"name": "app", "type": "dir"}, {"name": "app/main.py", "data": "print(42)\n"},
             {"name": "app/version", "data": "$2"},
             {"name": "usr/local/bin/python3", "data": "#!/bin/sh\nexport SLIM=1\nexec /usr/bin/python3 \"\$@\"\n", "mode": "755"}]]}
J
	}
	mcp_spec mcp.json 1
	python3 "$MK" oci img-mcp mcp.json
	python3 "$MK" docker img-mcp.tar mcp.json
	local digest
	digest=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifests"][0]["digest"])' img-mcp/index.json)
	key=sha256-${digest#sha256:}
	run sr-mcp --state-dir "$ST" --environment img=oci:"$T/img-mcp" </dev/null
	is "$rc:$err" "0:" "oci: sr-mcp takes --environment img=oci:LAYOUT"
	is "$(cached "$ST")" "$key " "oci: unpacked once, into STATE/oci/ under the manifest's digest"
	is "$(cat "$ST/oci/$key/root/app/version")" 1 "oci: the second layer's file is there"
	is "$(stat -c %u "$ST/oci/$key/root/usr/bin/python3")" "$(id -u)" "oci: owned by the user (the jail maps the user's id)"
	: >"$ST/oci/$key/root/marker"
	run sr-mcp --state-dir "$ST" --environment img=oci:"$T/img-mcp" </dev/null
	is "$rc:$err" "0:" "oci: a second start"
	ok "oci: reuses what was unpacked (a mark left in it stays)" test -e "$ST/oci/$key/root/marker"
	is "$(cached "$ST")" "$key " "oci: and unpacks nothing more"

	# what a crash left half-made: removed after an hour (an unpack that
	# may still be running elsewhere is younger), never taken for an image
	mkdir -p "$ST/oci/.tmp-crashed/root/usr" "$ST/oci/.tmp-running/root/usr"
	touch -d '2 hours ago' "$ST/oci/.tmp-crashed"
	run sr-mcp --state-dir "$ST" --environment img=oci:"$T/img-mcp" </dev/null
	is "$rc:$err" "0:" "oci: a start beside a crash's leftovers"
	ok "oci: the crash's half-made tree (over an hour old) removed" test ! -e "$ST/oci/.tmp-crashed"
	ok "oci: a younger one (an unpack under way) left alone" test -d "$ST/oci/.tmp-running"
	rm -rf "$ST/oci/.tmp-running"

	# the image changed under the same path: unpacked anew
	mkdir old && mv img-mcp old/ && mcp_spec mcp2.json 2 && python3 "$MK" oci img-mcp mcp2.json
	run sr-mcp --state-dir "$ST" --environment img=oci:"$T/img-mcp" </dev/null
	local key2
	key2=sha256-$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifests"][0]["digest"][7:])' img-mcp/index.json)
	is "$rc:$err" "0:" "oci: a changed image at the same path"
	ok "oci: is unpacked anew (another digest, another directory)" test "$key2" != "$key" -a -d "$ST/oci/$key2/root" -a ! -e "$ST/oci/$key2/root/marker"
	is "$(cat "$ST/oci/$key2/root/app/version")" 2 "oci: with the changed layer"
	rm -rf img-mcp && mv old/img-mcp img-mcp

	# a docker save tar: keyed by the file; touched, unpacked anew
	run sr-mcp --state-dir "$ST" --environment tar=oci:"$T/img-mcp.tar" </dev/null
	is "$rc:$err" "0:" "oci: a docker save tar"
	local n1 n2
	n1=$(ls "$ST/oci" | grep -c '^tar-')
	touch -d '2020-01-01' img-mcp.tar
	run sr-mcp --state-dir "$ST" --environment tar=oci:"$T/img-mcp.tar" </dev/null
	n2=$(ls "$ST/oci" | grep -c '^tar-')
	is "$rc:$n1:$n2" "0:1:2" "oci: a tar written again is unpacked anew"
	python3 -c 'import os, sys; st = os.stat(sys.argv[1]); f = open(sys.argv[1], "r+b"); f.seek(0); b = f.read(1); f.seek(0); f.write(b); f.close(); os.utime(sys.argv[1], ns=(st.st_atime_ns, st.st_mtime_ns))' img-mcp.tar
	run sr-mcp --state-dir "$ST" --environment tar=oci:"$T/img-mcp.tar" </dev/null
	is "$rc:$(ls "$ST/oci" | grep -c '^tar-')" "0:3" "oci: and one written in place with its size and mtime set back (its ctime moved)"

	# through a real MCP client: Python in both, the Env, sandbox_info
	local l
	if ! command -v node >/dev/null || [ ! -d "$SR_ROOT/tests/mcp/node_modules/@modelcontextprotocol/sdk" ]; then
		skip "oci: through an MCP client" "node or the MCP clients are not installed (cd tests/mcp && npm ci)"
	else while IFS= read -r l; do
		case $l in
		"ok "*"# SKIP "*) skip "mcp: ${l#* - }" "" ;;
		"ok "*) _result 1 "mcp: ${l#* - }" ;;
		"not ok "*) _result 0 "mcp: ${l#* - }" ;;
		"1.."*) ;;
		*) printf '%s\n' "$l" ;;
		esac
	done < <(node "$SR_ROOT/tests/mcp/oci.mjs" "$ST" "$T/img-mcp" "$T/img-mcp.tar" "$digest" 2>&1); fi

	# hostile images at start: refused in one line naming the image and
	# the cause, nothing left; or defused
	local before
	before=$(cached "$ST")
	run sr-mcp --state-dir "$ST" --environment bad=oci:"$T/img-dotdot" </dev/null
	like "$rc:$err" "^100:sr-mcp: fatal: --environment bad=oci:$T/img-dotdot: unable to unpack $T/img-dotdot \(exit 1\): oci-unpack: refused path '../../../outside/dd'" \
		"oci: a layer with ../ names: refused at start, saying why"
	is "$(printf '%s\n' "$err" | wc -l)" 1 "oci: in one line"
	ok "oci: nothing written outside, nothing half-made kept" test ! -e outside/dd -a "$(cached "$ST")" = "$before"
	for c in sym hard; do
		run sr-mcp --state-dir "$ST" --environment bad=oci:"$T/img-$c" </dev/null
		like "$rc:$err" "^100:sr-mcp: fatal: .*oci-unpack: refused path" "oci: hostile image $c: refused at start"
	done
	ok "oci: nothing through the symlink" test ! -e outside/pwned
	run sr-mcp --state-dir "$ST" --environment dev=oci:"$T/img-dev" </dev/null
	like "$rc:$err" "^100:sr-mcp: usage: --environment dev=oci:$T/img-dev: '.*/root' is not a root file system" \
		"oci: an image with a device node and a FIFO unpacks (then has no usr/, said)"
	ok "oci: defused (neither in the root)" sh -c "ls -d '$ST'/oci/sha256-*/root/f && ! ls -d '$ST'/oci/sha256-*/root/null '$ST'/oci/sha256-*/root/fifo"
	run sr-mcp --state-dir "$ST" --environment bad=oci:"$T/img-bad" </dev/null
	like "$rc:$err" "^100:sr-mcp: fatal: .*oci-unpack: digest mismatch" "oci: a corrupt layer: refused at start"
	run sr-mcp --state-dir "$ST" --environment bad=oci:"$T/nosuch" </dev/null
	like "$rc:$err" "^100:sr-mcp: usage: --environment bad=oci:$T/nosuch: unable to read the image" "oci: no such image: said"

	# two images in one layout: one is named, as skopeo's oci:PATH:REF
	python3 - img-mcp <<'PY'
import json, sys
p = sys.argv[1] + "/index.json"; i = json.load(open(p))
m = dict(i["manifests"][0]); m["annotations"] = {"org.opencontainers.image.ref.name": "other"}
i["manifests"].append(m); json.dump(i, open(p, "w"))
PY
	run sr-mcp --state-dir "$ST" --environment img=oci:"$T/img-mcp" </dev/null
	like "$rc:$err" "^100:sr-mcp: usage: .*index.json names 2 images: name one, as oci:.*:NAME" "oci: a layout of two images: which one is asked"
	run sr-mcp --state-dir "$ST" --environment img=oci:"$T/img-mcp:other" </dev/null
	is "$rc:$err" "0:" "oci: oci:PATH:REF picks one"

	# the unpacker runs in the sandbox: one that tries to write to the
	# host and read the user's files reaches neither (its control: the
	# same program run on the host does)
	mkdir -p rt && cp -r "$SR_ROOT/sr-mcp/runners" rt/ && chmod -R go-w rt
	cat >rt/oci-unpack <<PY
#!/usr/bin/python3
import os, sys
seen = []
try:
    open("$T/outside/jailed", "w").write("x"); seen.append("wrote")
except OSError as e:
    seen.append("write:" + e.strerror)
seen.append("home:%s" % os.path.exists("$T/mcp.json"))
sys.stderr.write("oci-unpack: " + " ".join(seen) + "\n")
sys.exit(1)
PY
	chmod 755 rt/oci-unpack
	run sr-mcp --state-dir "$T/st-rogue" --runners "$T/rt/runners" --environment bad=oci:"$T/img-mcp.tar" </dev/null
	like "$rc:$err" "^100:.*oci-unpack: write:(Read-only file system|No such file or directory|Permission denied) home:False$" \
		"oci: a rogue unpacker in the sandbox can write nothing of the host's nor see the user's files"
	ok "oci: nothing written, nothing kept" test ! -e outside/jailed -a -z "$(cached "$T/st-rogue")"
	run python3 rt/oci-unpack
	like "$err" "oci-unpack: wrote home:True" "oci: control: the same unpacker on the host writes and sees them"
	rm -f outside/jailed
}

# The good image: two layers, the second removing a file, making a
# directory opaque and adding files.
cat >good.json <<'J'
{"config": {"Env": ["PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "LD_PRELOAD=/x.so"],
            "WorkingDir": "/app", "User": "1000"},
 "layers": [
  [{"name": "etc", "type": "dir", "mode": "755"}, {"name": "etc/keep", "data": "keep"},
   {"name": "etc/gone", "data": "gone"}, {"name": "d", "type": "dir", "mode": "755"},
   {"name": "d/old", "data": "old"}, {"name": "bin", "type": "dir", "mode": "755"},
   {"name": "bin/tool", "data": "#!/bin/sh\n", "mode": "755"}, {"name": "lnk", "type": "sym", "link": "/etc/keep"},
   {"name": "etc/hard", "type": "link", "link": "etc/keep"}],
  [{"name": "etc/.wh.gone"}, {"name": "d/.wh..wh..opq"}, {"name": "d/new", "data": "new"},
   {"name": "app", "type": "dir", "mode": "755"}, {"name": "app/main.py", "data": "print(42)\n"}]]}
J
for fmt in oci docker gz; do
	case $fmt in
	gz) python3 -c 'import json,sys; s=json.load(open("good.json")); s["gzip"]=True; json.dump(s,open("gz.json","w"))'
	    python3 "$MK" oci img-gz gz.json ;;
	*) python3 "$MK" $fmt img-$fmt good.json ;;
	esac
	run "$U" img-$fmt root-$fmt
	is "$rc:$err" "0:" "$fmt: unpacks"
	is "$(cat root-$fmt/etc/keep)" keep "$fmt: the first layer's file"
	ok "$fmt: the whiteout removed etc/gone" test ! -e root-$fmt/etc/gone
	is "$(ls root-$fmt/d | tr '\n' ' ')" "new " "$fmt: the opaque directory holds only the second layer's file"
	is "$(cat root-$fmt/app/main.py)" "print(42)" "$fmt: the second layer's added file"
	is "$(readlink root-$fmt/lnk)" /etc/keep "$fmt: a symlink kept as it is (a link inside the root)"
	is "$(stat -c %i root-$fmt/etc/hard)" "$(stat -c %i root-$fmt/etc/keep)" "$fmt: a hard link inside the root"
	is "$(stat -c %u root-$fmt/etc/keep)" "$(id -u)" "$fmt: owned by the user"
	ok "$fmt: modes kept" test -x root-$fmt/bin/tool
	is "$(json_get root-$fmt.sr-image.json workdir):$(json_get root-$fmt.sr-image.json user)" "/app:1000" \
		"$fmt: DIR.sr-image.json has WorkingDir and User"
	is "$(json_get root-$fmt.sr-image.json ref)" "$([ $fmt = docker ] && echo test:1 || echo test)" "$fmt: the image's own reference"
	like "$(json_get root-$fmt.sr-image.json digest)" '^sha256:[0-9a-f]{64}$' "$fmt: and the digest"
	env=$(cat root-$fmt.sr-image.json)
	like "$env" 'LANG=C.UTF-8' "$fmt: the image's Env kept"
	unlike "$env" 'LD_PRELOAD' "$fmt: but not LD_PRELOAD"
done
run "$U" img-oci root-oci
like "$rc:$err" '^1:oci-unpack: root-oci: File exists$' "an existing DIR is refused"
run "$U" --ref test img-oci root-ref
is "$rc:$(json_get root-ref.sr-image.json ref)" "0:test" "--ref picks the manifest and is written as ref"
run "$U" --ref nosuch img-oci root-noref
like "$rc:$err" '^1:oci-unpack: index.json: 0 manifests match' "--ref that names nothing: refused"

# hostile CASE JSON: build, unpack naively into naive-CASE/a/b (the
# control); unpack CASE: with oci-unpack.
hostile() {
	local c=$1; shift
	rm -rf "img-$c" "naive-$c" "root-$c"
	printf '%s' "$1" >"$c.json"
	python3 "$MK" oci "img-$c" "$c.json"
	mkdir -p "naive-$c/a/b"; naive "naive-$c/a/b" "img-$c" 2>/dev/null
}
unpack() { run "$U" "img-$1" "root-$1"; }
mkdir -p outside
: >outside/victim

hostile dotdot '{"layers": [[{"name": "../../../outside/dd", "data": "x"}]]}'
ok "../: the control writes outside" test -e outside/dd
rm -f outside/dd; unpack dotdot
like "$rc:$err" "^1:oci-unpack: refused path '../../../outside/dd'" "../: refused, one line"
ok "../: nothing outside, nothing left" test ! -e outside/dd -a ! -e root-dotdot
hostile dotdot2 '{"layers": [[{"name": "a", "type": "dir"}, {"name": "a/../../../../outside/dd2", "data": "x"}]]}'
ok "a/../..: the control writes outside" test -e outside/dd2
rm -f outside/dd2; unpack dotdot2
like "$rc:$err" "^1:oci-unpack: refused path" "a/../..: refused"
ok "a/../..: nothing outside" test ! -e outside/dd2
hostile abs '{"layers": [[{"name": "'"$T"'/outside/abs", "data": "x"}]]}'
ok "an absolute name: the control writes outside" test -e outside/abs
rm -f outside/abs; unpack abs
like "$rc:$err" "^1:oci-unpack: refused path .*absolute" "an absolute name: refused"
ok "an absolute name: nothing outside" test ! -e outside/abs

for tgt in "$T/outside" "../../../outside"; do
	hostile sym '{"layers": [[{"name": "esc", "type": "sym", "link": "'"$tgt"'"}],
	                         [{"name": "esc/pwned", "data": "x"}]]}'
	ok "symlink $tgt then a file through it: the control writes outside" test -e outside/pwned
	rm -f outside/pwned; unpack sym
	like "$rc:$err" "^1:oci-unpack: refused path 'esc/pwned': 'esc' is not a directory" "symlink $tgt: the write through it refused"
	ok "symlink $tgt: nothing outside" test ! -e outside/pwned
done
hostile symdir '{"layers": [[{"name": "esc", "type": "sym", "link": "'"$T"'/outside"}],
                            [{"name": "esc", "type": "dir"}, {"name": "esc/.wh.victim"}]]}'
: >outside/victim; unpack symdir
ok "a whiteout through a symlink: the host file stays" test -e outside/victim

hostile hard '{"layers": [[{"name": "pw", "type": "link", "link": "/etc/passwd"}]]}'
unpack hard
like "$rc:$err" "^1:oci-unpack: refused path '/etc/passwd'" "a hard link to /etc/passwd: refused"
hostile hard2 '{"layers": [[{"name": "pw", "type": "link", "link": "../../../../../../../etc/passwd"}]]}'
unpack hard2
like "$rc:$err" "^1:oci-unpack: refused path" "a hard link to ../../etc/passwd: refused"
hostile hard3 '{"layers": [[{"name": "e", "type": "sym", "link": "/etc"}, {"name": "pw", "type": "link", "link": "e/passwd"}]]}'
unpack hard3
like "$rc:$err" "^1:oci-unpack: refused path 'e/passwd'" "a hard link through a symlink to /etc: refused"

hostile dev '{"layers": [[{"name": "null", "type": "chr"}, {"name": "fifo", "type": "fifo"}, {"name": "f", "data": "x"}]]}'
unpack dev
like "$(python3 -c 'import tarfile,sys; print([m.type for m in tarfile.open(sys.argv[1])])' img-dev/blobs/sha256/$(ls -S img-dev/blobs/sha256 | head -1))" "b'3'" \
	"device: the control's layer holds a character device"
is "$rc" 0 "device and FIFO: the image unpacks"
like "$err" "dropped 'null': a device" "device: said"
ok "device and FIFO: none in the root" test ! -e root-dev/null -a ! -e root-dev/fifo -a -f root-dev/f

hostile suid '{"layers": [[{"name": "su", "data": "x", "mode": "6755"}, {"name": "sd", "type": "dir", "mode": "3777"}]]}'
unpack suid
is "$(stat -c %a naive-suid/a/b/su)" 6755 "set-ID: the control keeps the bits"
is "$(stat -c %a root-suid/su):$(stat -c %a root-suid/sd)" "755:755" "set-ID, sticky and group/other write bits cleared"

for wh in ".wh.." "a/.wh..." ".wh." "../.wh.victim" "a/../../.wh.outside"; do
	hostile wh '{"layers": [[{"name": "a", "type": "dir"}, {"name": "a/f", "data": "x"}], [{"name": "'"$wh"'"}]]}'
	unpack wh
	like "$rc:$err" "^1:oci-unpack: refused path" "whiteout '$wh': refused"
	ok "whiteout '$wh': the host untouched" test -e outside/victim -a -d "$T/outside"
done

printf '%s' '{"corrupt": 0, "layers": [[{"name": "f", "data": "x"}]]}' >bad.json
python3 "$MK" oci img-bad bad.json
run "$U" img-bad root-bad
like "$rc:$err" "^1:oci-unpack: digest mismatch" "a digest mismatch: refused"
ok "a digest mismatch: nothing left" test ! -e root-bad
python3 "$MK" docker img-badd bad.json
run "$U" img-badd root-badd
like "$rc:$err" "^1:oci-unpack: digest mismatch" "docker save: a digest mismatch refused"
# Python in an image made from the tests' Debian root: the second layer
# deletes a file, makes a directory opaque and adds a program.
rootfs_env
if [ -z "${SR_TEST_ROOTFS:-}" ] || ! have_userns; then
	skip "Python in an image" "${SR_TEST_ROOTFS_WHY:-no user namespaces here: $userns_why}"
else
	R0=$(readlink -f "$SR_TEST_ROOTFS")
	cat >py.json <<J
{"gzip": true, "config": {"Env": ["LANG=C.UTF-8"], "WorkingDir": "/app"},
 "layers": [[{"name": ".", "from": "$R0"}],
            [{"name": "usr/bin/.wh.base32"}, {"name": "usr/share/doc/.wh..wh..opq"},
             {"name": "usr/share/doc/only", "data": "x"},
             {"name": "usr/local/bin/main.py", "data": "import os\nprint(os.path.exists('/usr/bin/base32'), os.listdir('/usr/share/doc'))\n"}]]}
J
	python3 "$MK" oci img-py py.json
	run "$U" img-py root-py
	is "$rc" 0 "the Debian image unpacks"
	run sr-jail --rootfs "$T/root-py" python3 /usr/local/bin/main.py
	is "$rc:$out" "0:False ['only']" "Python runs in the image and sees the second layer's changes"
	run sr-mcp --state-dir "$T/st" --environment img="$T/root-py" </dev/null
	is "$rc:$err" "0:" "sr-mcp takes the unpacked image as an environment (its ownership and mode rules hold)"
	run sr-jail --rootfs "$R0" python3 -c "import os; print(os.path.exists('/usr/bin/base32'), 'only' in os.listdir('/usr/share/doc'))"
	is "$out" "True False" "control: the first layer alone has /usr/bin/base32 and no doc 'only'"

	oci_mcp
fi
done_testing
