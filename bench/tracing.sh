#!/bin/sh
# bench/tracing.sh - what the tracepoints cost, three ways, in one run.
#
#   sh bench/tracing.sh             3 repetitions of 1 s per configuration
#   QUICK=1 sh bench/tracing.sh     1 repetition of 300 ms (CI)
#
# The same workload runs, interleaved repetition by repetition (the order
# rotates, so a slow spell of a shared machine hits every column alike):
#   compiled out   $NOTRACE/bin/icache-sim run     (make TRACE=0)
#   no session     $BUILD/bin/icache-sim run       (tracepoints in, nobody
#                                                   listening)
#   recording      $BUILD/bin/icache-sim record    (every event written)
# and it prints medians of ops/s, their ratios, events per operation, bytes
# per event on disk, discarded events and the cost of one recorded event
# derived from the slowdown.  Nothing is asserted about time.
#
# Environment: BUILD (default build), NOTRACE (default build/notrace; built
# with `make TRACE=0` if missing), SCHEME (merged), WORKLOAD (mixed), CPUS
# (2), REPS, DURATION, QUICK, JSON (also write the figures there as one
# JSON object; bench/run.sh sets it).
# Exit status: 0 measured, 1 a run failed, 2 bad usage.
set -u

BUILD=${BUILD:-build}
NOTRACE=${NOTRACE:-build/notrace}
SCHEME=${SCHEME:-merged}
WORKLOAD=${WORKLOAD:-mixed}
CPUS=${CPUS:-2}
case ${QUICK:-0} in
"" | 0 | no | false)
	REPS=${REPS:-3}
	DURATION=${DURATION:-1s}
	;;
*)
	REPS=${REPS:-1}
	DURATION=${DURATION:-300ms}
	;;
esac
JSON=${JSON:-}
SIM=$BUILD/bin/icache-sim
NSIM=$NOTRACE/bin/icache-sim

die() {
	echo "bench/tracing.sh: $*" >&2
	exit 2
}

[ -x "$SIM" ] || die "$SIM not found: build it first (make BUILD=$BUILD)"
case $REPS in
'' | *[!0-9]* | 0) die "REPS='$REPS' is not a positive number" ;;
esac
case $CPUS in
'' | *[!0-9]*) die "CPUS='$CPUS' is not a number (this section runs one CPU count)" ;;
esac
if [ ! -x "$NSIM" ]; then
	echo "building the TRACE=0 simulator into $NOTRACE ..."
	make --no-print-directory TRACE=0 BUILD="$NOTRACE" "$NSIM" >/dev/null 2>&1 ||
		echo "bench/tracing.sh: could not build $NSIM (make TRACE=0 BUILD=$NOTRACE); that column is skipped" >&2
fi

TMP=$(mktemp -d /tmp/icache-tracing-XXXXXX) || die "cannot make a temporary directory"
trap 'rm -rf "$TMP"' EXIT INT TERM
ARGS="--scheme $SCHEME --workload $WORKLOAD --cpus $CPUS --duration $DURATION --json"
status=0

num() { # FILE KEY: the first number after "KEY": in FILE
	grep -o "\"$2\":[-0-9.e+]*" "$1" | head -1 | cut -d: -f2
}

median() { # numbers on stdin, one a line
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

run_notrace() { # REP
	[ -x "$NSIM" ] || return 0
	if "$NSIM" run $ARGS >"$TMP/out.json" 2>"$TMP/err"; then
		num "$TMP/out.json" ops_per_s >>"$TMP/notrace"
	else
		echo "bench/tracing.sh: $NSIM run failed: $(head -1 "$TMP/err")" >&2
		status=1
	fi
}

run_nosession() {
	if "$SIM" run $ARGS >"$TMP/out.json" 2>"$TMP/err"; then
		num "$TMP/out.json" ops_per_s >>"$TMP/nosession"
	else
		echo "bench/tracing.sh: $SIM run failed: $(head -1 "$TMP/err")" >&2
		status=1
	fi
}

run_record() { # REP
	dir=$TMP/trace$1
	if "$SIM" record $ARGS -o "$dir" >"$TMP/out.json" 2>"$TMP/err"; then
		f=$TMP/out.json
		ops=$(num "$f" ops)
		ev=$(num "$f" events)
		bytes=$(find "$dir" -type f -name 'icache_*' -exec cat {} + | wc -c)
		num "$f" ops_per_s >>"$TMP/record"
		echo "$ev $ops" | awk '{ printf "%.2f\n", ($2 ? $1 / $2 : 0) }' >>"$TMP/evop"
		echo "$bytes $ev" | awk '{ printf "%.2f\n", ($2 ? $1 / $2 : 0) }' >>"$TMP/bpe"
		num "$f" discarded_events >>"$TMP/discarded"
	else
		echo "bench/tracing.sh: $SIM record failed: $(head -1 "$TMP/err")" >&2
		status=1
	fi
	rm -rf "$dir"
}

: >"$TMP/notrace"
: >"$TMP/nosession"
: >"$TMP/record"
: >"$TMP/evop"
: >"$TMP/bpe"
: >"$TMP/discarded"
i=0
while [ $i -lt "$REPS" ]; do
	case $((i % 3)) in
	0) run_notrace $i; run_nosession; run_record $i ;;
	1) run_nosession; run_record $i; run_notrace $i ;;
	2) run_record $i; run_notrace $i; run_nosession ;;
	esac
	i=$((i + 1))
done

DISC=0
# The bare loop (bench/tracecost.c), compiled here against the simulator's
# library so that it needs no Makefile rule: the same event, recorded the
# same way, with nothing else around it.
BARE_ON=
BARE_OFF=
LIB=$BUILD/lib/libicache.a
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
if [ -f "$LIB" ] && cc -std=gnu11 -O2 -pthread -D_GNU_SOURCE -DLTTNG_UST_COMPAT_API_VERSION=1 \
	-I"$ROOT" -o "$TMP/tracecost" "$HERE/tracecost.c" "$LIB" "$BUILD/lib/liblab.a" \
	$(pkg-config --libs lttng-ust lttng-ctl babeltrace2 liburcu-memb 2>/dev/null || echo -llttng-ust -llttng-ust-common -ldl -llttng-ctl -lbabeltrace2 -lurcu-memb -lurcu-common) \
	-lm 2>"$TMP/err"; then
	case ${QUICK:-0} in "" | 0 | no | false) N=2000000 ;; *) N=300000 ;; esac
	mkdir -p "$TMP/bare"
	if "$TMP/tracecost" -o "$TMP/bare" -n $N -t "$CPUS" >"$TMP/bare.json" 2>"$TMP/err"; then
		BARE_ON=$(num "$TMP/bare.json" ns_per_event_recording)
		BARE_OFF=$(num "$TMP/bare.json" ns_per_event_no_session)
		DISC=$((DISC + $(num "$TMP/bare.json" discarded_events)))
	else
		echo "bench/tracing.sh: the bare tracepoint loop failed: $(head -1 "$TMP/err")" >&2
		status=1
	fi
	rm -rf "$TMP/bare"
else
	echo "bench/tracing.sh: cannot build bench/tracecost.c against $LIB: $(head -1 "$TMP/err")" >&2
fi

NT=$(median <"$TMP/notrace")
NS=$(median <"$TMP/nosession")
RC=$(median <"$TMP/record")
EVOP=$(median <"$TMP/evop")
BPE=$(median <"$TMP/bpe")
DISC=$((DISC + $(awk '{ s += $1 } END { print s + 0 }' "$TMP/discarded")))

ratio() { # A B: A / B, or "n/a"
	if [ -n "$1" ] && [ -n "$2" ]; then
		echo "$1 $2" | awk '{ printf "%.3f", ($2 > 0 ? $1 / $2 : 0) }'
	else
		echo "n/a"
	fi
}

R_NS=$(ratio "$NS" "$NT")
R_RC=$(ratio "$RC" "$NS")
# One recorded event's cost on one simulated CPU: extra wall time per
# operation per CPU, spread over the events of that operation.
NSEV=n/a
if [ -n "$RC" ] && [ -n "$NS" ] && [ -n "$EVOP" ]; then
	NSEV=$(echo "$CPUS $RC $NS $EVOP" | awk '{ if ($2 > 0 && $3 > 0 && $4 > 0) printf "%.0f", ($1 / $2 - $1 / $3) * 1e9 / $4; else print "n/a" }')
fi

echo "Tracing cost: $SCHEME, $WORKLOAD, $CPUS CPUs, $REPS x $DURATION per configuration (medians)"
printf '  %-32s %14s ops/s\n' "tracepoints compiled out" "${NT:-n/a}"
printf '  %-32s %14s ops/s   %s x compiled out\n' "compiled in, no session" "${NS:-n/a}" "$R_NS"
printf '  %-32s %14s ops/s   %s x no session\n' "recording (icache-sim record)" "${RC:-n/a}" "$R_RC"
printf '  events per operation %s, bytes per event %s, discarded events %s\n' \
	"${EVOP:-n/a}" "${BPE:-n/a}" "$DISC"
printf '  one recorded event costs about %s ns of a simulated CPU'"'"'s time\n' "$NSEV"
printf '  bare LTTng-UST loop (%s threads, same event): %s ns per event recording, %s ns with no session\n' \
	"$CPUS" "${BARE_ON:-n/a}" "${BARE_OFF:-n/a}"
printf '  simulator event / bare event: %s (locks held longer, so more waiting)\n' "$(ratio "$NSEV" "$BARE_ON")"
echo "  (lock statistics of a recorded run describe that slower program; use run for performance)"
[ "$DISC" = 0 ] || echo "  WARNING: events were discarded while recording" >&2

if [ -n "$JSON" ]; then
	q() { [ -n "$1" ] && [ "$1" != n/a ] && echo "$1" || echo null; }
	printf '{"available":true,"scheme":"%s","workload":"%s","cpus":%s,"reps":%s,"duration":"%s",' \
		"$SCHEME" "$WORKLOAD" "$CPUS" "$REPS" "$DURATION" >"$JSON"
	printf '"ops_per_s":{"compiled_out":%s,"no_session":%s,"recording":%s},' \
		"$(q "$NT")" "$(q "$NS")" "$(q "$RC")" >>"$JSON"
	printf '"ratios":{"no_session_vs_compiled_out":%s,"recording_vs_no_session":%s},' \
		"$(q "$R_NS")" "$(q "$R_RC")" >>"$JSON"
	printf '"events_per_op":%s,"bytes_per_event":%s,"discarded_events":%s,"ns_per_recorded_event":%s,' \
		"$(q "$EVOP")" "$(q "$BPE")" "$DISC" "$(q "$NSEV")" >>"$JSON"
	printf '"bare_loop":{"ns_per_event_recording":%s,"ns_per_event_no_session":%s}}\n' \
		"$(q "$BARE_ON")" "$(q "$BARE_OFF")" >>"$JSON"
fi
exit $status
