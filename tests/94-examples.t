#!/bin/bash
# The examples of README.md, of docs/*.md and of the man pages' EXAMPLES
# sections run as printed. They are read from the documents now (tests/examples.py), so the
# documents and this test cannot drift apart: each block is marked with the
# setup it needs (files, a spool) or says why it is not run here, and a
# block with no marker fails. Each runs verbatim under bash -e -o pipefail,
# as this user, in a fresh directory that is also its HOME, with stdin
# /dev/null; it fails if it exits non-zero, if anything says "fatal:", if
# it does not print the TEXT its marker names (=> TEXT), or if a job it
# left in ~/.spool did not succeed.
. "$(dirname "$0")/lib.sh"
set -m # each example its own process group: what it left running is killed

cd "$SR_ROOT" || exit 1
docs=(README.md docs/*.md)
run python3 tests/examples.py "$T/ex" "${docs[@]}" man/*.1
is "$rc:$out$err" "0:" "the example markers of README.md, docs/*.md and man/*.1 are well formed"
# Every document that holds a code block is read above: a .md file with
# examples that the list missed would go unchecked.
for f in *.md docs/*.md; do
	case " ${docs[*]} " in *" $f "*) continue ;; esac
	grep -q '^    [^ ]' "$f" && grep -q '^<!-- example' "$f" &&
		_result 0 "$f holds marked examples but tests/94-examples.t does not read it"
done

# A setup name: a file the example reads (its content prints a known line),
# a variable, or a host file or feature it needs (missing: the example is
# skipped, saying so). Prints the reason to skip, if any.
setup() { # NAME, in the example's directory
	case $1 in
	main.py | job.py | job/main.py | data/run.py | work/job.py)
		mkdir -p "$(dirname "$1")"
		printf 'import os\nprint("hello from %s, API_TOKEN", "set" if os.environ.get("API_TOKEN") else "unset")\n' \
			"$1" >"$1" ;;
	job/main.js)
		mkdir -p "$(dirname "$1")"
		printf 'console.log("hello from %s")\n' "$1" >"$1" ;;
	src/Makefile)
		mkdir -p src
		printf 'test:\n\t@echo hello from make test\n' >"$1" ;;
	input) printf '1 2 3 4\n' >input ;;
	solver)
		command -v cc >/dev/null || { echo "no C compiler for ./solver"; return; }
		printf '#include <stdio.h>\nint main(void){long s=0,x;while(scanf("%%ld",&x)==1)s+=x;printf("sum %%ld\\n",s);return 0;}\n' >solver.c
		cc -O1 -o solver solver.c || echo "./solver does not build" ;;
	API_TOKEN) echo "export API_TOKEN=example-token" >>.setup-env ;;
	spool) # ~/.spool with one finished job, whose id is $id
		id=$(sr-queue submit .spool -- echo hello from the spool job) &&
			sr-queue run .spool --drain &&
			echo "export id=$id" >>.setup-env || echo "the spool setup failed" ;;
	landlock)
		sr-exec --landlock=require true 2>/dev/null || echo "the kernel has no Landlock" ;;
	quota) # sr-jail --quota: an overlay over a tmpfs, refused before Linux 6.6
		mkdir -p .quota-probe && sr-jail --bind .quota-probe /probe --quota 1M true 2>/dev/null ||
			echo "sr-jail --quota is refused on this kernel (before Linux 6.6)" ;;
	/*) [ -e "$1" ] || echo "no $1 on this host" ;;
	*) echo "BAD: no setup named '$1' in tests/94-examples.t" ;;
	esac
}

# Jobs an example left in ~/.spool: all end, and each succeeded.
spool_settled() { ! ls "$1/queue" "$1/run" 2>/dev/null | grep -q '^[0-9a-f]'; }
spool_check() { # DIR
	[ -d "$1/.spool" ] || return 0
	wait_for "the jobs in ~/.spool end" 20 spool_settled "$1/.spool" ||
		{ echo "jobs still queued or running in ~/.spool"; return 1; }
	sr-queue list "$1/.spool" | grep -v ' completed exit 0$' |
		sed 's/^/job did not succeed: /' | grep . && return 1
	return 0
}

# run_example NNN WHERE SETUPS... : sets $ex_rc and $ex_out
run_example() {
	local d=$1 w=$T/w$1 s why=
	shift
	mkdir -p "$w/.run" && chmod 700 "$w/.run" && : >"$w/.setup-env"
	for s in "$@"; do
		why=$(cd "$w" && setup "$s")
		[ -n "$why" ] && { ex_skip=$why; return; }
	done
	(cd "$w" && . ./.setup-env && exec env -u XDG_STATE_HOME -u XDG_CONFIG_HOME -u XDG_DATA_HOME \
		-u XDG_CACHE_HOME HOME="$w" XDG_RUNTIME_DIR="$w/.run" timeout -k 2 30 bash -e -o pipefail "$T/ex/$d/script") </dev/null >"$w/.out" 2>&1 &
	local pid=$!
	wait "$pid"
	ex_rc=$?
	[ "$ex_rc" = 0 ] && ! spool_check "$w" >>"$w/.out" 2>&1 && ex_rc=1
	kill -TERM -- "-$pid" 2>/dev/null
	wait_for "what the example left running ends" 10 ! kill -0 -- "-$pid"
	ex_out=$(cat "$w/.out")
}

nrun=0
for dir in "$T"/ex/*/; do
	d=$(basename "$dir")
	where=$(cat "$dir/where")
	if [ ! -f "$dir/marker" ]; then
		_result 0 "$where: an example with no marker (<!-- example: SETUP --> or .\\\" example: not run: REASON)"
		diag "$(head -3 "$dir/script")"
		continue
	fi
	marker=$(cat "$dir/marker")
	case $marker in
	"not run:"*)
		reason=${marker#not run:}
		reason=${reason# }
		if [ -n "$reason" ]; then skip "$where" "not run: $reason"
		else _result 0 "$where: 'not run:' with no reason"; fi
		continue ;;
	esac
	want=
	case $marker in *"=>"*) want=${marker#*=>}; want=${want# }; marker=${marker%%=>*} ;; esac
	ex_skip= ex_rc= ex_out=
	# shellcheck disable=SC2086
	run_example "$d" $marker
	case $ex_skip in
	BAD:*) _result 0 "$where: ${ex_skip#BAD: }"; continue ;;
	?*) skip "$where runs as printed" "$ex_skip"; continue ;;
	esac
	nrun=$((nrun + 1))
	pass=1
	[ "$ex_rc" = 0 ] || pass=0
	case $ex_out in *"fatal:"*) pass=0 ;; esac
	[ -n "$want" ] && case $ex_out in *"$want"*) ;; *) pass=0 ;; esac
	_result "$pass" "$where runs as printed${want:+ and prints '$want'}"
	[ "$pass" = 1 ] || diag "exit $ex_rc" "$(cat "$dir/script")" "--- output:" "$(printf '%s\n' "$ex_out" | head -c 3000)"
done
ok "the documents hold runnable examples ($nrun run)" test "$nrun" -ge 15
done_testing
