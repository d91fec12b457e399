#!/bin/bash
# sr-exec: the default profile's filters are compiled at build time and
# embedded; they must be exactly what a fresh compile gives.
. "$(dirname "$0")/lib.sh"

for variant in "" --net; do
	name=default${variant:+-net}
	run sr-exec $variant --save-bpf "$T/$name.bpf"
	is "$rc" 0 "fresh compile of default $variant"
	ok "build artifact $name.bpf equals a fresh compile" cmp "$T/$name.bpf" "$SR_ROOT/sr-exec/$name.bpf"
	run sr-exec $variant --verbose /bin/true
	is "$rc" 0 "sr-exec $variant runs /bin/true with the embedded filter"
	want=$(( $(wc -c < "$T/$name.bpf") / 8 ))
	like "$err" "profile default${variant:+ with --net}: $want BPF instructions compiled at build time" \
		"embedded filter $variant has the fresh compile's $want instructions"
done
run sr-exec --verbose --allow kcmp /bin/true
like "$err" "built in [0-9.]+ ms" "an adjusted default is compiled at run time"
done_testing
