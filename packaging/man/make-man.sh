#!/bin/sh
# make-man.sh OUT.1 INCLUDE.h2m PAGE PROGRAM [COMMAND…]
#
# Writes the man page PAGE (e.g. "ctrecon-cli-reconstruct") of
# `PROGRAM [COMMAND…]` with help2man, from its --help and PROGRAM's --version;
# INCLUDE.h2m adds the name line and the sections --help does not have
# (help2man's include-file format).  GLib's GOption help is reshaped for
# help2man on the way: "Usage:" joined with the usage line below it (so that
# it becomes the SYNOPSIS), the " — summary" tail of that line moved into its
# own paragraph, the "Help Options:" block dropped, "Application Options:"
# renamed "Options:".  Help text is UTF-8 (×, λ, …): read in C.UTF-8.
set -eu
out=$1 include=$2 page=$3
shift 3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctrecon-man.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

LC_ALL=C.UTF-8 "$@" --help >"$tmp/help.raw"
sed -e '/^Usage:$/{N;s/\n */ /;s/ [—-] \(.*\)$/\n\n\1/;}' \
    -e '/^Help Options:$/,/^$/d' \
    -e 's/^Application Options:$/Options:/' "$tmp/help.raw" >"$tmp/help"
version=$(LC_ALL=C.UTF-8 "$1" --version | sed -n '1s/^.* //p')
[ -n "$version" ] || { echo "make-man.sh: no version from $1 --version" >&2; exit 1; }

# help2man runs a program: this one answers as PAGE.
cat >"$tmp/$page" <<STUB
#!/bin/sh
if [ "\$1" = --version ]; then echo "$page $version"; else cat "$tmp/help"; fi
STUB
chmod +x "$tmp/$page"

help2man --no-info --no-discard-stderr --locale=C.UTF-8 --section=1 \
  --include="$include" --output="$out" "$tmp/$page"
