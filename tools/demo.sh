#!/bin/sh
# demo.sh - the default scenario of `make demo`.
#
# Records the merged scheme on every CPU running the mixed workload into
# traces/demo, then opens the viewer on it (or, when stdout is not a
# terminal, prints the viewer's summary and how to open it).
BUILD=${BUILD:-build}
SIM="$BUILD/bin/icache-sim"
VIEW="$BUILD/bin/icache-view"
TRACE=traces/demo

if ! "$SIM" record --help >/dev/null 2>&1; then
	echo "== icache-sim run --scheme merged --cpus all --workload mixed --duration 3s"
	exec "$SIM" run --scheme merged --cpus all --workload mixed --duration 3s
fi

rm -rf "$TRACE"
mkdir -p traces
# --blocking: the demo's trace is for looking at, so it must be complete
# even on a busy machine (a writer that finds its buffer full waits for the
# consumer instead of dropping events; see tracepoints/EVENTS.md).
echo "== icache-sim record --scheme merged --cpus all --workload mixed --duration 3s --blocking -o $TRACE"
"$SIM" record --scheme merged --cpus all --workload mixed --duration 3s --blocking -o "$TRACE" || exit $?

if [ ! -x "$VIEW" ]; then
	echo "the trace is in $TRACE; read it with: babeltrace2 $TRACE | less"
	exit 0
fi
if [ -t 1 ] && [ -t 0 ]; then
	exec "$VIEW" "$TRACE"
fi
"$VIEW" --summary "$TRACE"
echo "open it in the viewer with: $VIEW $TRACE"
