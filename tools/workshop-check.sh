#!/bin/sh
# workshop-check.sh - follow docs/workshop.md where this machine allows, and
# check that it still matches the tools and the lessons.
#
#   sh tools/workshop-check.sh        (from the top of the source tree)
#
# What it checks, each as one line "ok"/"FAIL":
#   - the set-up: every Debian package of tools/install-deps.sh is installed
#     (read-only: it never installs), the pkg-config names the guide gives
#     for other distributions resolve, the programs are built and answer
#     --help, and every lesson passes `icache-lesson --check --static`;
#   - every command the guide names (fenced blocks and `build/bin/...`
#     spans): the program and its subcommand answer --help, and every
#     --option used appears in that help; make targets exist; files and
#     scenarios named exist;
#   - tools/Dockerfile installs through tools/install-deps.sh and runs
#     `make demo` (the image is built only where a Docker daemon answers);
#   - the answer key quotes every question of every lesson with its answer,
#     and no question that no lesson asks; every drive solution is given;
#   - the lines a lesson shows verbatim ("|" lines) fit the narrative column
#     at the projector size the guide gives (120x40), measured on a real
#     render when a lesson can be played here;
#   - with FRESH=1, the guide's set-up block (make deps, make, the --check
#     line) run as written in a fresh clone of the committed tree: where no
#     Docker daemon answers, that stands in for building the image.
# Ends with "workshop-check: N ok, M failed"; exit status 1 if any failed.
BUILD=${BUILD:-build}
GUIDE=${GUIDE:-docs/workshop.md}
BIN=$BUILD/bin
ok=0
failed=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/workshop-check.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT INT TERM

pass() { ok=$((ok + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
check() { # check "what" command...
	what=$1
	shift
	if "$@" >"$TMP/out" 2>&1; then pass "$what"; else fail "$what: $(head -c 300 "$TMP/out" | tr '\n' ' ')"; fi
}

[ -f "$GUIDE" ] || { echo "workshop-check: run from the top of the source tree" >&2; exit 2; }

# ---- set-up ------------------------------------------------------------------
PKGS=$(sed -n '/^PKGS="/,/"$/p' tools/install-deps.sh | tr -d '"\\' | sed 's/^PKGS=//')
if command -v dpkg-query >/dev/null 2>&1; then
	missing=""
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	if [ -z "$missing" ]; then pass "setup: every package of tools/install-deps.sh is installed"
	else fail "setup: packages missing:$missing (make deps)"; fi
else
	echo "skip  setup: not a Debian system, packages not checked"
fi
for pc in lttng-ust lttng-ctl babeltrace2 ncursesw check; do
	grep -q "\`$pc\`" "$GUIDE" || fail "guide: the pkg-config name $pc is not in the 'Other Linux' section"
done
check "setup: pkg-config finds lttng-ust lttng-ctl babeltrace2 ncursesw check" \
	pkg-config --exists lttng-ust lttng-ctl babeltrace2 ncursesw check
for prog in icache-sim icache-view icache-lesson; do
	check "setup: $BIN/$prog --help" "$BIN/$prog" --help
done
check "setup: icache-lesson --check --static lessons/*.lesson" \
	"$BIN/icache-lesson" --check --static lessons/[0-9][0-9]-*.lesson

# ---- the commands the guide names -----------------------------------------------
# Fenced blocks, one command per line (comments cut), and `build/bin/...`
# spans in the text (joined across line breaks).
awk '/^```/ { inb = !inb; next } inb { sub(/[ \t]+#.*/, ""); print }' "$GUIDE" >"$TMP/cmds"
tr '\n' ' ' <"$GUIDE" | grep -o '`build/bin/[^`]*`' | tr -d '`' >>"$TMP/cmds"
while IFS= read -r line; do
	set -- $line
	[ $# -gt 0 ] || continue
	case $1 in
	build/bin/*)
		prog=$(basename "$1")
		shift
		sub=""
		if [ "$prog" = icache-sim ] && [ $# -gt 0 ]; then
			case $1 in -*) ;; *) sub=$1; shift ;; esac
		fi
		if "$BIN/$prog" $sub --help >"$TMP/help" 2>&1; then
			bad=""
			for a in "$@"; do
				case $a in --*) grep -q -- "${a%%=*}" "$TMP/help" || bad="$bad $a" ;; esac
			done
			if [ -z "$bad" ]; then pass "command: $line"
			else fail "command: $line: not in '$prog $sub --help':$bad"; fi
		else
			fail "command: $line: '$prog $sub --help' failed"
		fi
		;;
	make)
		t=${2:-all}
		case $t in *=*) t=all ;; esac
		if grep -q "^$t:" Makefile || grep -q "^\.PHONY:.* $t\b" Makefile; then pass "command: $line (target $t)"
		else fail "command: $line: no target $t in Makefile"; fi
		;;
	sh)
		if [ -f "$2" ]; then pass "command: $line"; else fail "command: $line: no file $2"; fi
		;;
	docker)
		if [ "$2" = build ]; then
			if [ -f "$4" ]; then pass "command: $line"; else fail "command: $line: no file $4"; fi
		fi
		;;
	esac
done <"$TMP/cmds"
for f in $(grep -o 'lessons/scenarios/[a-z0-9-]*\.scn' "$GUIDE" | sort -u); do
	[ -f "$f" ] || fail "guide names $f, which does not exist"
done

# ---- the container recipe -------------------------------------------------------
D=tools/Dockerfile
if [ -f "$D" ] && grep -q '^FROM debian' "$D" && grep -q 'tools/install-deps.sh' "$D" &&
	grep -q '^CMD \["make", "demo"\]' "$D"; then
	pass "container: $D installs through tools/install-deps.sh and runs make demo"
else
	fail "container: $D must start FROM debian, run tools/install-deps.sh and CMD make demo"
fi
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
	check "container: docker build" docker build -q -f "$D" -t icache-lab-check .
else
	echo "skip  container: no Docker daemon here, the image is not built"
fi

# ---- the answer key ---------------------------------------------------------------
# "ask<TAB>answer" and "drive<TAB>solution" for every lesson, continuation
# lines joined.
for l in lessons/[0-9][0-9]-*.lesson; do
	awk -v L="$l" '
	function flush() { if (key != "") print L "\t" key "\t" val; key = "" }
	/^#/ { next }
	/^[ \t]/ { if (key != "") { v = $0; sub(/^[ \t]+/, "", v); val = val " " v } ; next }
	{ flush() }
	/^(ask|answer|solution|drive):/ { key = $0; sub(/:.*/, "", key); val = $0; sub(/^[a-z]+:[ \t]*/, "", val) }
	END { flush() }' "$l"
done >"$TMP/qa"
# The guide wraps its paragraphs: compare against it with lines joined.
tr '\n' ' ' <"$GUIDE" | tr -s ' ' >"$TMP/guide1"
nq=0
while IFS='	' read -r file key val; do
	case $key in
	ask)
		nq=$((nq + 1))
		grep -qF "**$val**" "$TMP/guide1" || fail "answer key: no entry for $file: \"$val\""
		;;
	answer)
		grep -qF "*$val*" "$TMP/guide1" || fail "answer key: $file's answer \"$val\" is not given"
		;;
	solution)
		case $val in
		*.scn) ;;
		*) grep -qF "\`$val\`" "$TMP/guide1" || fail "answer key: $file's drive solution \"$val\" is not given" ;;
		esac
		;;
	esac
done <"$TMP/qa"
# and nothing in the key that no lesson asks any more
grep -o '\*\*[^*]*?\*\*' "$TMP/guide1" | sed 's/^\*\*//; s/\*\*$//' | while IFS= read -r q; do
	awk -F'\t' -v q="$q" '$2 == "ask" && $3 == q { f = 1 } END { exit !f }' "$TMP/qa" ||
		echo "$q" >>"$TMP/stale"
done
if [ -s "$TMP/stale" ]; then
	fail "answer key: questions no lesson asks: $(tr '\n' '|' <"$TMP/stale")"
else
	pass "answer key: $nq questions checked against the lessons"
fi

# ---- the projector size -------------------------------------------------------------
# The narrative column's width at 120x40, from a real render if one can be
# made here, else the width measured when this was written (44).
width=44
if XDG_STATE_HOME="$TMP/state" "$BIN/icache-lesson" 1 --keys "" --screen 120x40 >"$TMP/screen" 2>&1; then
	w=$(sed -n 2p "$TMP/screen" | awk '{ print index($0, "++") - 4 }')
	if [ "$w" -gt 20 ] 2>/dev/null; then width=$w; pass "projector: the narrative column is $width wide at 120x40 (rendered)"; fi
else
	echo "skip  projector: no lesson could be played here; using the measured width $width"
fi
# Every lesson the catalog lists (the file name's number orders it);
# PROJECTOR_LESSONS=DIR checks another directory's (tests/test_workshop.c).
set -- "${PROJECTOR_LESSONS:-lessons}"/[0-9][0-9]-*.lesson
awk -v W="$width" '/^  \|/ { n = length($0) - 2; if (n > W) printf "%s:%d: %d columns: %s\n", FILENAME, FNR, n, $0 }' \
	"$@" >"$TMP/wide"
if [ -s "$TMP/wide" ]; then
	fail "projector: lines wider than the narrative column ($width): $(tr '\n' ' ' <"$TMP/wide")"
else
	pass "projector: every verbatim line of the $# lessons fits $width columns"
fi

# ---- FRESH=1: the set-up, followed from scratch ----------------------------------------
# Where no container can be built, this is the closest thing: a fresh clone
# of the committed tree, and the guide's set-up block run in it line by
# line, exactly as written (its first line, the clone, is this clone).
# Minutes, not seconds: not part of make check.
if [ "${FRESH:-0}" = 1 ]; then
	if git clone -q . "$TMP/fresh" 2>"$TMP/out"; then
		awk '/^```/ { inb = !inb; next } inb && /^make deps|^make  |^make$|^make[ \t]+#|^build\/bin\/icache-lesson --check/ { sub(/[ \t]+#.*/, ""); print }' \
			"$GUIDE" | head -3 >"$TMP/setup"
		[ -s "$TMP/setup" ] || fail "fresh: the guide's set-up block was not found"
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			if (cd "$TMP/fresh" && sh -c "$line") >"$TMP/out" 2>&1; then
				pass "fresh: $line (in a new clone)"
			else
				fail "fresh: $line (in a new clone): $(tail -c 300 "$TMP/out" | tr '\n' ' ')"
			fi
		done <"$TMP/setup"
	else
		fail "fresh: git clone: $(head -c 200 "$TMP/out")"
	fi
fi

echo "workshop-check: $ok ok, $failed failed"
[ "$failed" -eq 0 ]
