#!/usr/bin/env bash
# The shape of generated code (issue 25's targets), printed as markdown:
#
#  1. cqlgen_gen.go of example/music, helpdesk, messaging and quickstart:
#     patterns, lines, bytes, and both per pattern;
#  2. runtime/cqlgen's exported funcs and types, by `go doc -all`;
#  3. one more pattern: the lines of music's cqlgen_gen.go that change when
#     Track, stored in two tables, gains a simple tracks_by_album pattern;
#     and when Play, stored in one table, gains plays_by_track, which makes
#     it an entity in two tables (listening_history marked its source of
#     truth, as cqlgen then asks).
#
# Run from anywhere: `make bench-shape` or `bash bench/shape.sh`. Nothing
# is written inside the repository: (3) runs in a temporary module,
# removed on exit. See bench/README.md ("Issue 25", "Issue 36") for what
# each count counts and why.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
GO=${GO:-go}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cqlgen-shape.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# patterns DIR: the access patterns of a package, as its review page lists
# them: the rows of the tables under "## Access patterns" (one a table)
# and "## Indexes" (one a storage-attached index) of schema.md. Cross-
# checked against the `cqlgen.Pattern` tags of its Go files.
patterns() {
	local dir=$1 n tags
	n=$(awk '
		/^## / { in_sec = ($0 == "## Access patterns" || $0 == "## Indexes"); next }
		in_sec && /^\| / && !/^\| ---/ && !/^\| Access pattern \|/ { n++ }
		END { print n + 0 }' "$dir/schema.md")
	tags=$(cat $(ls "$dir"/*.go | grep -v -e '/cqlgen_gen\.go$' -e '_test\.go$') |
		grep -c 'cqlgen\.Pattern `' || true)
	if [ "$n" != "$tags" ]; then
		echo "shape.sh: $dir: schema.md lists $n patterns, the Go files declare $tags" >&2
	fi
	echo "$n"
}

# generated DIR: the Go files of DIR that cqlgen generated (the standard
# "Code generated ... DO NOT EDIT." line), one a line: today cqlgen_gen.go
# alone; if a later cqlgen splits its output, every part counts.
generated() {
	grep -l '^// Code generated .* DO NOT EDIT\.$' "$1"/*.go | sort
}

# per N D: N/D to one decimal.
per() { awk -v n="$1" -v d="$2" 'BEGIN { printf "%.1f", n / d }'; }
# group N: N with thousands separators.
group() { printf "%s" "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta'; }

echo "### Generated Go"
echo
echo "| example | files | patterns | lines | bytes | lines a pattern | KB a pattern |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
for ex in music helpdesk messaging quickstart; do
	dir=$root/example/$ex
	p=$(patterns "$dir")
	mapfile -t files < <(generated "$dir")
	lines=$(cat "${files[@]}" | wc -l)
	bytes=$(cat "${files[@]}" | wc -c)
	names=$(for f in "${files[@]}"; do basename "$f"; done | paste -sd, - | sed 's/,/, /g')
	echo "| $ex | $names | $p | $(group "$lines") | $(group "$bytes") | $(per "$lines" "$p") | $(per "$bytes" $((p * 1000))) |"
done
echo
echo "Files: the package's Go files marked \"Code generated ... DO NOT EDIT.\". KB = 1,000 bytes (as the issue's 13.3 KB = 106,644 B / 8). Target: ≤ 100 lines and ≤ 4 KB a pattern."
echo

# The user API's size. go doc -all prints every exported top-level func,
# every exported method of an exported type and every exported type on a
# line of its own starting at column 0 with "func " or "type "; constants
# and variables (in const/var blocks) are not counted.
doc=$tmp/doc-all.txt
(cd "$root" && $GO doc -all ./runtime/cqlgen) >"$doc"
funcs=$(grep -cE '^func [A-Z]' "$doc" || true)
methods=$(grep -cE '^func \(' "$doc" || true)
types=$(grep -cE '^type ' "$doc" || true)
consts=$(grep -cE '^(const|var) ' "$doc" || true)
short=$(cd "$root" && $GO doc ./runtime/cqlgen | awk '/^(func|type|const|var) /{f=1} f' | wc -l)
echo "### runtime/cqlgen, by go doc -all"
echo
echo "| funcs | methods | types | funcs and types (the target's count) | const/var declarations (not counted) | short listing, lines from its first declaration |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
echo "| $funcs | $methods | $types | **$((funcs + methods + types))** | $consts | $short |"
echo
echo "Counted: lines of \`go doc -all ./runtime/cqlgen\` matching \`^(func|type) \`. Target: ≤ 60."
echo

# One more pattern. The example is copied into a temporary module that
# finds cqlgen in this tree (a replace), generated there once as it is
# (which must give the committed cqlgen_gen.go), then again with one
# pattern more on Track, and, from the committed model again, with one
# more on Play; each time the generated files are compared with the
# first ones.
mod=$tmp/mod
mkdir -p "$mod/music"
cp "$root/go.mod" "$root/go.sum" "$mod/"
(cd "$mod" && $GO mod edit -module example.com/shape \
	-droptool=github.com/cqlgen/cqlgen/cmd/cqlgen \
	-require=github.com/cqlgen/cqlgen@v0.0.0 \
	-replace=github.com/cqlgen/cqlgen="$root")
for f in "$root"/example/music/*; do
	case $f in *_test.go) continue ;; esac
	[ -f "$f" ] && cp "$f" "$mod/music/"
done
(cd "$root" && $GO build -o "$tmp/cqlgen" ./cmd/cqlgen)
(cd "$mod/music" && "$tmp/cqlgen" generate . >/dev/null)
for f in $(generated "$mod/music"); do
	if ! cmp -s "$f" "$root/example/music/${f##*/}"; then
		echo "shape.sh: example/music/${f##*/} is stale (run make generate); the measure below starts from a fresh one" >&2
	fi
done
mkdir -p "$tmp/before"
cp $(generated "$mod/music") "$mod/music/schema.md" "$mod/music/schema.cql" "$tmp/before/"

# numstat FILE_BEFORE FILE_AFTER: "added removed"; a file on one side
# only counts whole.
numstat() {
	local a=$1 b=$2
	[ -e "$a" ] || a=/dev/null
	[ -e "$b" ] || b=/dev/null
	git diff --no-index --numstat "$a" "$b" | awk '{ print $1, $2 }' || true
}

# one_more TITLE AWK: music.go rewritten by AWK (which must set done)
# generated again, and its files compared with the committed ones.
one_more() {
	local title=$1 prog=$2
	awk "$prog"' END { if (!done) exit 1 }' "$root/example/music/music.go" >"$mod/music/music.go" || {
		echo "shape.sh: $title: the pattern to follow was not found in example/music/music.go" >&2
		exit 1
	}
	(cd "$mod/music" && "$tmp/cqlgen" generate . >/dev/null)
	echo "### One more pattern: $title"
	echo
	echo "| file | lines added | lines removed | changed (added + removed) |"
	echo "| --- | ---: | ---: | ---: |"
	local gofiles f a r ga=0 gr=0
	gofiles=$({ generated "$tmp/before"; generated "$mod/music"; } | xargs -n1 basename | sort -u)
	for f in $gofiles schema.cql schema.md; do
		read -r a r < <(numstat "$tmp/before/$f" "$mod/music/$f"; echo "0 0")
		echo "| $f | $a | $r | $((a + r)) |"
		case $f in *.go) ga=$((ga + a)) gr=$((gr + r)) ;; esac
	done
	echo "| **generated Go** | $ga | $gr | **$((ga + gr))** |"
	echo
}

# An entity in several tables: the new pattern goes on the line after
# Track's last pattern.
pattern='table:"tracks_by_album" pk:"album" ck:"track_id" size:"rows=50" doc:"the tracks of an album"'
one_more "\`$pattern\` on music's Track (two tables, three after)" '
	{ print }
	/^\t_ cqlgen\.Pattern `table:"top_tracks_by_artist"/ { printf "\t_ cqlgen.Pattern `%s`\n", "'"${pattern//\"/\\\"}"'"; done = 1 }'

# An entity in one table that the new pattern puts in two: Play, whose
# listening_history becomes its source of truth (cqlgen asks an entity in
# several tables to mark one) and which the write protocol then writes.
pattern='table:"plays_by_track" pk:"track_id" ck:"played_at desc, user_id" ttl:"90d" size:"rows=10k" doc:"a track'"'"'s plays, newest first"'
one_more "\`$pattern\` on music's Play (one table, two after)" '
	/^\t_ cqlgen\.Pattern `table:"listening_history"/ {
		sub(/table:"listening_history"/, "table:\"listening_history,canonical\"")
		print
		printf "\t_ cqlgen.Pattern `%s`\n", "'"${pattern//\"/\\\"}"'"
		done = 1
		next
	}
	{ print }'

echo "Counted by \`git diff --no-index --numstat\` (the same as \`diff | grep -c '^[<>]'\`). Target: generated Go (today cqlgen_gen.go alone) ≤ 100 in each case."
