#!/bin/sh
# embed.sh FILE MAX - FILE's bytes as a C initializer (0x3c, ...), ending
# in a NUL, for an #include inside an array. Refuses a file over MAX
# bytes or one holding a NUL (it is used as a string).
set -eu
f=$1 max=$2
n=$(wc -c < "$f")
if [ "$n" -gt "$max" ]; then
	echo "embed.sh: fatal: $f is $n bytes, over the $max it may have" >&2
	exit 111
fi
if od -An -v -tx1 "$f" | grep -qw 00; then
	echo "embed.sh: fatal: $f holds a NUL byte" >&2
	exit 111
fi
od -An -v -tx1 "$f" | sed -e 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g'
echo 0x00
