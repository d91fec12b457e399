#!/bin/bash
# sr-jail --quota-changes: the init lists what applying --quota did to the
# host directory (created, changed, removed, renamed, links, directories
# made, a directory removed and made again), from the upper layer alone,
# in a file the program cannot reach: not through a descriptor (it has
# none), not through /proc/1/fd, not by naming it in a --bind (refused; the
# control: a file there is the program's to write). A name holding a
# newline or a forged record is one record (NUL-ended).
. "$(dirname "$0")/lib.sh"

need_userns
w="$T/w"
mkdir "$w"
run sr-jail --bind "$w" /w --quota 1M true
[ "$rc" = 0 ] || skip_all "sr-jail --quota does not work here: $err"

ch="$T/changes"
# records one a line, sorted, without the header
records() { tail -c +25 "$1" | tr '\0' '\n' | sort; }

run sr-jail --quota-changes "$ch" true
is "$rc" 100 "--quota-changes without a --quota: usage error"
like "$err" "^sr-jail: usage: --quota-changes: there is no --quota" "naming the option"

run sr-jail --bind "$w" /w --quota 1M --quota-changes "$ch" true
is "$rc:$(head -n 1 "$ch")" "0:sr-jail quota changes 1" "the file starts with its first line"
is "$(records "$ch")" ". 0 /w" "a run that changed nothing: only the end of the apply"

echo keep > "$w/keep"; echo gone > "$w/gone"; echo old > "$w/ren"; echo same > "$w/same"
mkdir -p "$w/tree/sub" "$w/again"
echo a > "$w/tree/a"; echo b > "$w/tree/sub/b"; echo c > "$w/tree/sub/c"
echo 1 > "$w/again/one"; echo 2 > "$w/again/two"
prog='cd /w && echo more >> keep && rm gone && mv ren renamed && cat same >/dev/null &&
rm -r tree && mkdir -p new/deep && printf 12345 > new/deep/f && echo n > top && ln -s keep lnk &&
rm -r again && mkdir again && echo 1 > again/one && mkfifo ff'
run sr-jail --bind "$w" /w --quota 1M --quota-changes "$ch" sh -c "$prog"
want='. 0 /w
c 2 /w/again/one
c 2 /w/top
c 4 /w/renamed
c 5 /w/new/deep/f
d 0 /w/new
d 0 /w/new/deep
l 0 /w/lnk
m 10 /w/keep
r 1 /w/gone
r 1 /w/ren
r 3 /w/tree
x 2 /w/again'
is "$rc:$(records "$ch")" "0:$want" \
	"created, changed, removed, renamed, a removed tree, new directories, a link, a directory made again; nothing read or a fifo"
is "$(cat "$w/keep" "$w/renamed" "$w/new/deep/f"; ls "$w/again")" "keep
more
old
12345one" "and the host directory holds what the records say"

# a name with a newline and a forged record in it: one record
run sr-jail --bind "$w" /w --quota 1M --quota-changes "$ch" sh -c \
	'printf x > "/w/a
c 99 forged"'
is "$(tail -c +25 "$ch" | tr '\0' '|')" "c 1 /w/a
c 99 forged|. 0 /w|" "a name with a newline and a record in it: one record, ended by its NUL"

# the program cannot write the file: no descriptor, /proc/1/fd refused
forge='for f in /proc/self/fd/*; do case $f in */[012]) ;; *) echo "c 1 /w/forged-fd" >> "$f" ;; esac; done 2>/dev/null
for f in /proc/1/fd/*; do echo "c 1 /w/forged-init" >> "$f" && echo wrote-init; done
ls /proc/self/fd | tr "\n" " "'
run sr-jail --bind "$w" /w --quota 1M --quota-changes "$ch" sh -c "$forge"
is "$(records "$ch")" ". 0 /w" "the program's writes to every descriptor and to the init's: the list is untouched"
unlike "$out" "wrote-init" "the init's descriptors are refused (not dumpable)"
is "$(echo $out)" "0 1 2 3" "the program holds only 0-2 (3: ls's own)"
run sr-jail --bind "$w" /w --quota 1M --quota-changes "$ch" sh -c 'cat /proc/self/cmdline | tr "\0" " "'
unlike "$out" "changes" "nor is the file named to it"

# named inside the --bind: refused; the control: a file there is the program's
run sr-jail --bind "$w" /w --quota 1M --quota-changes "$w/ch" true
is "$rc" 100 "--quota-changes inside the --bind: usage error"
like "$err" "is inside a --bind" "saying why"
mkdir "$w/sub"
run sr-jail --bind "$w" /w --quota 1M --quota-changes "$w/sub/../ch2" true
is "$rc" 100 "--quota-changes inside the --bind through ..: refused too"
echo "real" > "$w/planted"
run sr-jail --bind "$w" /w sh -c 'echo "c 1 /w/forged" > /w/planted'
is "$(cat "$w/planted")" "c 1 /w/forged" "control: a file in the --bind is the program's to write"
rm -f "$w/planted"

ln -s "$T/elsewhere" "$T/link"
run sr-jail --bind "$w" /w --quota 1M --quota-changes "$T/link" true
is "$rc" 111 "--quota-changes at a symbolic link: refused (not followed)"
[ -e "$T/elsewhere" ]; is "$?" 1 "and nothing made where it points"
mkfifo "$T/fifo"
run sr-jail --bind "$w" /w --quota 1M --quota-changes "$T/fifo" true
is "$rc" 111 "--quota-changes at a fifo: refused, without blocking"

# past the cap: not applied, not listed
run sr-jail --bind "$w" /w --quota 1M --quota-inodes 40 --quota-changes "$ch" sh -c \
	'cd /w && for i in $(seq 60); do echo $i > f$i 2>/dev/null; done; true'
n_rec=$(records "$ch" | grep -c '^c ')
n_host=$(ls "$w" | grep -c '^f')
is "$n_rec" "$n_host" "past an inode cap: as many files listed as applied ($n_host)"
like "$(records "$ch")" "^\. 0 /w" "and the apply is whole"
done_testing
