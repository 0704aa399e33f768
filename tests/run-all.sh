#!/bin/sh
# run-all.sh - run every Check suite and add up the results.
#
# Each tests/test_*.c is built into $BUILD/tests/test_*; Check prints
# "NN%: Checks: X, Failures: Y, Errors: Z" per suite.  A suite that dies
# without that line counts as one failure.  The last line is the total:
#   N passed, N failed
BUILD=${BUILD:-build}
export BUILD
passed=0
failed=0
log=$(mktemp)
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	echo "== $name"
	"$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	line=$(grep -E '^[0-9]+%: Checks: [0-9]+' "$log" | tail -1)
	if [ -z "$line" ]; then
		echo "$name: exited $rc without a Check summary"
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
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
