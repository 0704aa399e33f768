#!/bin/sh
# two-sims.sh - two simulators (merged, then global) traced into one plain
# lttng session, for tests/test_damage.c; prints their two pids.
#
# Only these two processes are traced: each waits on a FIFO until the
# session, tracking just their pids, has started (other programs may trace
# icache events on this machine at the same time).
#
# usage: sh tests/two-sims.sh SIM DIR SESSION FIFO VPID ONE_BY_ONE
#   SIM         the icache-sim to run
#   DIR         the trace directory the session writes
#   SESSION     the lttng session's name (destroyed at the end)
#   FIFO        where the two FIFOs go: FIFO.1 and FIFO.2
#   VPID        1: add the vpid context (0: only vtid)
#   ONE_BY_ONE  1: the second starts once the first has ended
sim=$1 dir=$2 sess=$3 fifo=$4 vpid=$5 one_by_one=$6
mkfifo "$fifo.1" "$fifo.2" || exit 1
sh -c "read x < '$fifo.1'; exec '$sim' run --scheme merged --ops 1500 --quiet" >/dev/null &
a=$!
sh -c "read x < '$fifo.2'; exec '$sim' run --scheme global --ops 1500 --quiet" >/dev/null &
b=$!
ctx=
[ "$vpid" = 1 ] && ctx="-t vpid"
lttng create "$sess" --output="$dir" >/dev/null &&
	lttng enable-channel -u -s "$sess" --subbuf-size=4M c0 >/dev/null &&
	lttng enable-event -u -s "$sess" -c c0 'icache:*' >/dev/null &&
	lttng add-context -u -s "$sess" -c c0 $ctx -t vtid >/dev/null &&
	lttng untrack -u -s "$sess" --vpid --all >/dev/null &&
	lttng track -u -s "$sess" --vpid="$a,$b" >/dev/null &&
	lttng start "$sess" >/dev/null
echo go >"$fifo.1"
[ "$one_by_one" = 1 ] && wait $a
echo go >"$fifo.2"
wait $a
wait $b
echo $a $b
lttng stop "$sess" >/dev/null
lttng destroy "$sess" >/dev/null
