#!/bin/sh
# run-all.sh - run every Check suite and add up the results.
#
# ONLY="a b" limits the run to test_a and test_b.
#
# Each tests/test_*.c is built into $BUILD/tests/test_*; Check prints
# "NN%: Checks: X, Failures: Y, Errors: Z" per suite.  A suite that dies
# without that line counts as one failure.  The last line is the total:
#   N passed, N failed
BUILD=${BUILD:-build}
export BUILD
# liblttng-ust starts its listener threads in a constructor, so Check's
# fork happens in a multi-threaded process; TSan must be told that is fine.
if [ "$SAN" = thread ]; then
	TSAN_OPTIONS="die_after_fork=0 halt_on_error=1 second_deadlock_stack=1 $TSAN_OPTIONS"
	export TSAN_OPTIONS
fi
# Sanitizer builds run several times slower (ASan 2-5x, TSan 5-15x,
# more on a loaded machine).  Check multiplies every case's timeout by
# CK_TIMEOUT_MULTIPLIER, and the suites scale their own waits for a program
# by it too (test_slowdown() in tests/testutil.h).  A value given wins.
case "$SAN" in
address | undefined) : "${CK_TIMEOUT_MULTIPLIER:=5}" ;;
thread) : "${CK_TIMEOUT_MULTIPLIER:=10}" ;;
esac
[ -n "$CK_TIMEOUT_MULTIPLIER" ] && export CK_TIMEOUT_MULTIPLIER
# Every ASan or LeakSanitizer report, from any process a suite starts (one
# whose exit status or output a test ignores too), is written to
# $sanlogs/SUITE.PID instead of stderr; a report there fails the suite.
# Any user may write there: some tests run a program as another user.
sanlogs=
if [ "$SAN" = address ]; then
	# libbabeltrace2 2.0 leaks a few bytes of its own when a CTF decoder
	# gives up on corrupt metadata; LeakSanitizer is told to blame only
	# our code.  The library has no frame pointers: without the slow
	# unwinder the leak's stack stops at an "<unknown module>" that no
	# suppression can name.
	LSAN_OPTIONS="fast_unwind_on_malloc=0 suppressions=$(pwd)/tests/lsan.supp print_suppressions=0 $LSAN_OPTIONS"
	export LSAN_OPTIONS
	sanlogs=$(mktemp -d "${TMPDIR:-/tmp}/icache-test-asan.XXXXXX")
	chmod 1777 "$sanlogs"
fi
# The viewer keeps an index cache in $XDG_CACHE_HOME: the suites get a
# fresh one of their own, not the user's, removed at the end.
XDG_CACHE_HOME=$(mktemp -d "${TMPDIR:-/tmp}/icache-test-cache.XXXXXX")
export XDG_CACHE_HOME
passed=0
failed=0
# A suite's sanitizer reports: each is printed and counts as one failure.
# Files with no report in them hold LeakSanitizer's notes on the threads a
# forked test inherited by name only ("was not suspended"): dropped.
sanitizer_reports() {
	for f in "$sanlogs/$1".*; do
		[ -f "$f" ] || continue
		if grep -q -E '^==[0-9]+==ERROR: ' "$f"; then
			cat "$f"
			echo "$1: sanitizer report from process ${f##*.}" | tee -a "$failures"
			failed=$((failed + 1))
		fi
		rm -f "$f"
	done
}
log=$(mktemp)
# Every failing case's line is kept and printed again just above the total,
# so the end of a long run (often all a CI log shows) names what failed.
failures=$(mktemp)
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	# ONLY="core stress" runs just those suites (test_core, test_stress).
	if [ -n "$ONLY" ]; then
		case " $ONLY " in
		*" ${name#test_} "*) ;;
		*) continue ;;
		esac
	fi
	echo "== $name"
	ASAN_OPTIONS="${sanlogs:+log_path=$sanlogs/$name }$ASAN_OPTIONS" "$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	[ -n "$sanlogs" ] && sanitizer_reports "$name"
	grep -E ':[FE]:' "$log" | sed "s|^|$name: |" >>"$failures"
	line=$(grep -E '^[0-9]+%: Checks: [0-9]+' "$log" | tail -1)
	if [ -z "$line" ]; then
		echo "$name: exited $rc without a Check summary" | tee -a "$failures"
		failed=$((failed + 1))
		continue
	fi
	checks=$(echo "$line" | sed -E 's/.*Checks: ([0-9]+).*/\1/')
	fails=$(echo "$line" | sed -E 's/.*Failures: ([0-9]+).*/\1/')
	errs=$(echo "$line" | sed -E 's/.*Errors: ([0-9]+).*/\1/')
	passed=$((passed + checks - fails - errs))
	failed=$((failed + fails + errs))
done
rm -f "$log"
rm -rf "$XDG_CACHE_HOME"
[ -n "$sanlogs" ] && rm -rf "$sanlogs"
if [ -s "$failures" ]; then
	echo "== what failed"
	cat "$failures"
fi
rm -f "$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
