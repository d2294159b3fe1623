#!/usr/bin/env bash
# Issue 36's duplication count: the tool library's `duplicates` over the
# repository's production Go code.
#
#   bash bench/duplicates.sh               production code (the goal: at most 40 pairs)
#   bash bench/duplicates.sh -all          with example/, bench/ and integration/ too
#   bash bench/duplicates.sh -no-imports   production code, import blocks blanked
#   bash bench/duplicates.sh -all -no-imports
#
# What is read: the files git tracks that end in .go, are not tests
# (_test.go), not generated (_gen.go) and not under any testdata/, copied
# into a temporary git repository (init, add, commit), on which
# `duplicates --repo DIR --most 200` runs. Production code is runtime/,
# gen/, internal/, cmd/, cqlgentest/, observe/ and templates/: example/,
# bench/ and integration/ (the example and benchmark models, the
# integration suites' helpers) are left out unless -all.
#
# -no-imports blanks the lines of Go import blocks in the copies (line
# numbers stay): `duplicates` passes import lines over by its README, but
# reads the lines inside a Go `import ( ... )` block as code, so two files
# of one package that import the same six packages count as a pair. The
# goal is counted without it; it says how many pairs are import lists.
#
# Nothing is written inside the repository. See bench/README.md ("Issue
# 36: duplicates") for the figures.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
all=false noimports=false
for a in "$@"; do
	case $a in
	-all) all=true ;;
	-no-imports) noimports=true ;;
	*) echo "usage: $0 [-all] [-no-imports]" >&2; exit 2 ;;
	esac
done
command -v duplicates >/dev/null || { echo "duplicates (the tool library's command) is not on PATH" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cqlgen-dup.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cd "$root"
git ls-files -- '*.go' |
	grep -v -e '_test\.go$' -e '_gen\.go$' -e '\(^\|/\)testdata/' |
	if $all; then cat; else grep -v -e '^example/' -e '^bench/' -e '^integration/'; fi |
	while read -r f; do
		mkdir -p "$tmp/$(dirname "$f")"
		if $noimports; then
			# Blank every line from `import (` to its `)`, and a lone
			# `import "x"`.
			awk '/^import \($/ { blk = 1; print ""; next }
				blk && /^\)$/ { blk = 0; print ""; next }
				blk || /^import "/ { print ""; next }
				{ print }' "$f" >"$tmp/$f"
		else
			cp "$f" "$tmp/$f"
		fi
	done
(cd "$tmp" && git init -q && git add -A && git -c user.name=count -c user.email=count@localhost commit -qm count)
duplicates --repo "$tmp" --most 200 --seconds 120 | sed "s|$tmp/||g"
