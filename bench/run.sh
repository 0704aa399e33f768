#!/bin/sh
# bench/run.sh - `make bench`: the measured story, side by side, in one run.
#
#   make bench                      full run (about 5 minutes on 2 CPUs with
#                                   four schemes: scaling 4, tracing and
#                                   viewer 1)
#   make bench QUICK=1              seconds, for CI: same sections, tiny runs
#   make bench CPUS="1 2 4 8 16"    choose the CPU counts (default 1 2 4 ..
#                                   up to every online CPU)
#
# Environment (all optional): BUILD (tree holding bin/icache-sim, default
# build), QUICK, CPUS, SCHEMES (default: every registered scheme),
# WORKLOADS (default "create-unlink mixed"), CONTROL (0: no A/A control
# runs), REPS, DURATION (per run, like 2s or 100ms), OUT (results
# directory, default bench/results).
#
# Sections:
#   1. scaling   icache-sim run for each scheme x workload x CPU count,
#                REPS times, interleaved: in every repetition all schemes of
#                one (workload, CPUs) pair run back to back, starting with a
#                different scheme each time, so slow spells of a shared
#                machine hit every scheme alike.  Medians; paired ratios.
#   2. tracing   bench/tracing.sh (the recorder's), when it exists.
#   3. viewer    bench/viewer.sh: icache-view --bench against babeltrace2's
#                counter sink on one recorded trace, when both have landed.
#   4. virtual   bench/virtual.sh: calibrate this host, the virtual mode's
#                prediction against real --locks ticket runs at 1..cores
#                CPUs, then every scheme at 1..64 virtual CPUs, the headline
#                ratios at 8 and the speed of the simulation.
#
# Writes OUT/bench.json (every raw run plus the summaries), OUT/costs.txt
# (this host's cost model), OUT/virtual.svg and
# OUT/scaling.svg (gnuplot; skipped with a note if gnuplot is missing).
# Every figure is a ratio to a reference measured in this same invocation;
# absolute numbers are printed beside the host's CPU count and model only.
# Exit status: 0 done, 1 a section failed, 2 bad usage or nothing to run.
set -u

BUILD=${BUILD:-build}
OUT=${OUT:-bench/results}
SIM=$BUILD/bin/icache-sim
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/plot.sh
. "$HERE/plot.sh"

case ${QUICK:-0} in
"" | 0 | no | false) QUICK=0 ;;
*) QUICK=1 ;;
esac
if [ "$QUICK" = 1 ]; then
	REPS=${REPS:-2}
	DURATION=${DURATION:-100ms}
else
	REPS=${REPS:-7}
	DURATION=${DURATION:-1500ms}
fi
WORKLOADS=${WORKLOADS:-"create-unlink mixed"}

die() {
	echo "bench: $*" >&2
	exit 2
}

[ -x "$SIM" ] || die "$SIM not found: build it first (make BUILD=$BUILD)"
case $REPS in
'' | *[!0-9]*) die "REPS='$REPS' is not a number" ;;
esac
[ "$REPS" -ge 1 ] || die "REPS must be at least 1"

cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
if [ -z "${CPUS:-}" ]; then
	CPUS=""
	n=1
	while [ "$n" -lt "$cores" ]; do
		CPUS="$CPUS $n"
		n=$((n * 2))
	done
	CPUS="${CPUS# } $cores"
	CPUS=${CPUS# }
fi
for c in $CPUS; do
	case $c in
	'' | *[!0-9]* | 0) die "CPUS='$CPUS': each must be a positive number" ;;
	esac
done

SCHEMES=${SCHEMES:-$("$SIM" schemes | awk '/^[^ \t]/ { print $1 }')}
SCHEMES=$(echo $SCHEMES)
[ -n "$SCHEMES" ] || die "'$SIM schemes' lists no scheme"
for s in $SCHEMES; do
	"$SIM" schemes | awk -v s="$s" '$1 == s { f = 1 } END { exit !f }' ||
		die "'$s' is not a registered scheme (icache-sim schemes)"
done
for w in $WORKLOADS; do
	"$SIM" workloads | awk -v w="$w" '$1 == w { f = 1 } END { exit !f }' ||
		die "'$w' is not a workload (icache-sim workloads)"
done
# The reference of the ratios: merged (the scheme that was merged) against
# global (the 2.6.36 inode_lock), when they are there.
ref=$(echo $SCHEMES | tr ' ' '\n' | grep -x merged || echo $SCHEMES | awk '{ print $NF }')
base=$(echo $SCHEMES | tr ' ' '\n' | grep -x global || true)

# The A/A control: the reference scheme runs a second time in every
# repetition, under the label REF-again, so the report can show what ratio
# two runs of the *same* scheme give: the noise floor of every other ratio.
case ${CONTROL:-1} in
0 | no | false) control="" ;;
*) control="$ref-again" ;;
esac
RUNLIST="$SCHEMES${control:+ $control}"

mkdir -p "$OUT" || die "cannot create $OUT"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/icache-bench.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N 2>/dev/null | sed 's/N$/0/'; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

t0=$(now)
status=0
nsch=$(echo $RUNLIST | wc -w)
nruns=$((REPS * $(echo $CPUS | wc -w) * $(echo $WORKLOADS | wc -w) * nsch))
host_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
# The commit measured: COMMIT if given (a tree exported with git archive
# has no .git), else HEAD, "+dirty" if tracked files differ from it.
if [ -z "${COMMIT:-}" ]; then
	COMMIT=$(git -C "$HERE/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
	[ "$COMMIT" = unknown ] || git -C "$HERE/.." diff --quiet HEAD -- 2>/dev/null ||
		COMMIT="$COMMIT+dirty"
fi
commit=$COMMIT

echo "icache-lab bench ($( [ "$QUICK" = 1 ] && echo QUICK || echo full )), commit $commit, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "host: $cores CPUs, ${host_model:-unknown CPU}"
echo "schemes: $SCHEMES${control:+ (and $ref again, as the A/A noise control)}"
echo "workloads: $WORKLOADS; CPUs: $CPUS"
echo "$nruns runs of $DURATION ($REPS repetitions, interleaved)"
for c in $CPUS; do
	if [ "$c" -eq "$cores" ]; then
		echo "note: both workloads also run a flusher thread, so at $c CPUs there is one"
		echo "      more busy thread than this host has cores."
		break
	fi
done
for c in $CPUS; do
	if [ "$c" -gt "$cores" ]; then
		echo "note: CPU counts above this host's $cores share its cores (threads time-sliced,"
		echo "      a preempted lock holder stalls the others): those rows measure the"
		echo "      host's scheduler as much as the locking.  Use a box with that many cores."
		break
	fi
done
echo

# ---- 1. scaling -----------------------------------------------------------

# rotate K WORDS...: the words starting from the (K mod n)-th
rotate() {
	k=$1
	shift
	n=$#
	i=0
	for w in "$@"; do
		[ $i -ge $((k % n)) ] && printf '%s ' "$w"
		i=$((i + 1))
	done
	i=0
	for w in "$@"; do
		[ $i -lt $((k % n)) ] && printf '%s ' "$w"
		i=$((i + 1))
	done
}

tty=0
[ -t 2 ] && tty=1
seq=0
rep=1
: >"$TMP/index"
while [ "$rep" -le "$REPS" ]; do
	for cpus in $CPUS; do
		for w in $WORKLOADS; do
			for s in $(rotate $((rep - 1)) $RUNLIST); do
				seq=$((seq + 1))
				# --locks mutex: the section's figures stay comparable
				# with its earlier runs; spinning locks are section 4's.
				"$SIM" run --locks mutex --scheme "${s%-again}" --workload "$w" --cpus "$cpus" \
					--duration "$DURATION" --seed "$rep" --quiet --json \
					>"$TMP/run.$seq.json" 2>"$TMP/run.$seq.err"
				rc=$?
				echo "$seq $rep $s $w $cpus $rc" >>"$TMP/index"
				if [ "$rc" -gt 1 ] || ! head -c1 "$TMP/run.$seq.json" | grep -q '{'; then
					echo "bench: run $seq ($s $w --cpus $cpus) failed with status $rc:" >&2
					head -3 "$TMP/run.$seq.err" >&2
				fi
				[ "$tty" = 1 ] && printf '\r  run %d/%d: %-15s %-14s %3s CPUs' \
					"$seq" "$nruns" "$s" "$w" "$cpus" >&2
			done
		done
	done
	[ "$tty" = 1 ] || echo "  repetition $rep of $REPS done ($(elapsed "$t0") s)" >&2
	rep=$((rep + 1))
done
[ "$tty" = 1 ] && printf '\r%60s\r' '' >&2

mkdir -p "$TMP/plot"
runfiles=$(i=1; while [ $i -le $seq ]; do printf '%s ' "$TMP/run.$i.json"; i=$((i + 1)); done)
# shellcheck disable=SC2086
awk -f "$HERE/summarize.awk" -v ref="$ref" -v base="$base" \
	-v json="$TMP/scaling.json" -v dat="$TMP/plot" -v schemes="$SCHEMES" -v control="$control" \
	-v workloads="$WORKLOADS" -v cpulist="$CPUS" "$TMP/index" $runfiles ||
	{ echo "bench: summarizing the scaling runs failed" >&2; status=1; }
echo "(scaling: $(elapsed "$t0") s)"
echo

# ---- the plot ---------------------------------------------------------------

plot="$OUT/scaling.svg"
if command -v gnuplot >/dev/null 2>&1; then
	{
		echo "set terminal svg size 1100,$((380 * $(echo $WORKLOADS | wc -w))) dynamic enhanced font 'sans,11'"
		echo "set output '$plot'"
		echo "set multiplot layout $(echo $WORKLOADS | wc -w),2 title 'icache-sim, host: $cores CPUs, $(echo "$host_model" | tr -d "'")'"
		echo "set key below horizontal"
		echo "set grid"
		echo "set xlabel 'simulated CPUs'"
		echo "set xtics ($(echo $CPUS | sed 's/ /, /g'))"
		echo "set offsets graph 0.05, graph 0.05, 0, 0"
		for w in $WORKLOADS; do
			# shellcheck disable=SC2086
			plot_workload "$w" "ops/s" $SCHEMES
		done
		echo "unset multiplot"
	} >"$TMP/plot.gp"
	plot_render
else
	echo "plot: gnuplot not found, no plot (apt-get install gnuplot-nox)"
	plot=""
fi
echo

# ---- 2. tracing cost ------------------------------------------------------

echo "== 2. Tracing cost"
if [ -f "$HERE/tracing.sh" ]; then
	t1=$(now)
	# tracing.sh has knobs of the same names (CPUS, REPS, DURATION) with
	# other meanings: one CPU count, its own repetitions.  Let it use its
	# own defaults for QUICK or full; the TRACE=0 tree goes beside BUILD.
	(
		unset CPUS REPS DURATION SCHEME WORKLOAD
		BUILD=$BUILD QUICK=$QUICK NOTRACE=${NOTRACE:-$BUILD/notrace} \
			JSON="$TMP/tracing.json" sh "$HERE/tracing.sh"
	)
	rc=$?
	[ $rc -eq 0 ] || { echo "bench: bench/tracing.sh exited $rc" >&2; status=1; }
	echo "(tracing: $(elapsed "$t1") s)"
else
	echo "  not available yet (bench/tracing.sh, the recorder's, has not landed)"
fi
echo

# ---- 3. viewer ------------------------------------------------------------

echo "== 3. Viewer"
t1=$(now)
BUILD=$BUILD QUICK=$QUICK JSON="$TMP/viewer.json" sh "$HERE/viewer.sh"
rc=$?
[ $rc -eq 0 ] || { echo "bench: the viewer section (bench/viewer.sh) exited $rc" >&2; status=1; }
[ -s "$TMP/viewer.json" ] && echo "(viewer: $(elapsed "$t1") s)"
echo

# ---- 4. virtual SMP -------------------------------------------------------

echo "== 4. Virtual SMP (icache-sim run --virtual): validated here, then 1 to 64 CPUs"
t1=$(now)
BUILD=$BUILD QUICK=$QUICK OUT=$OUT JSON="$TMP/virtual.json" sh "$HERE/virtual.sh"
rc=$?
[ $rc -eq 0 ] || { echo "bench: the virtual section (bench/virtual.sh) exited $rc" >&2; status=1; }
echo "(virtual: $(elapsed "$t1") s)"
echo

# ---- bench.json -----------------------------------------------------------

json_section() { # FILE: its object if it holds one, else a note
	if [ -s "$1" ] && head -c1 "$1" | grep -q '{'; then
		cat "$1"
	else
		printf '{"available":false,"note":"not available yet"}'
	fi
}

{
	printf '{"bench":"icache-lab","version":1,"quick":%s,"commit":"%s","date":"%s",\n' \
		"$( [ "$QUICK" = 1 ] && echo true || echo false)" "$commit" "$(date -u '+%Y-%m-%dT%H:%M:%SZ')"
	printf '"host":{"cpus":%d,"cpu_model":"%s"},\n' "$cores" "$(echo "$host_model" | sed 's/["\\]//g')"
	printf '"params":{"reps":%d,"duration":"%s","cpus":[%s],"schemes":[%s],"workloads":[%s],"reference":"%s","baseline":"%s","control":"%s"},\n' \
		"$REPS" "$DURATION" "$(echo $CPUS | sed 's/ /,/g')" \
		"$(echo $SCHEMES | sed 's/\([^ ]*\)/"\1"/g; s/ /,/g')" \
		"$(echo $WORKLOADS | sed 's/\([^ ]*\)/"\1"/g; s/ /,/g')" "$ref" "$base" "$control"
	printf '"scaling":'
	json_section "$TMP/scaling.json"
	printf ',\n"runs":['
	sep=""
	while read -r n r s w c rc; do
		printf '%s\n{"seq":%d,"rep":%d,"scheme":"%s","workload":"%s","cpus":%d,"exit":%d,"result":' \
			"$sep" "$n" "$r" "$s" "$w" "$c" "$rc"
		if head -c1 "$TMP/run.$n.json" | grep -q '{'; then
			tr -d '\n' <"$TMP/run.$n.json"
		else
			printf 'null'
		fi
		printf '}'
		sep=","
	done <"$TMP/index"
	printf '],\n"tracing":'
	json_section "$TMP/tracing.json"
	printf ',\n"viewer":'
	json_section "$TMP/viewer.json"
	printf ',\n"virtual":'
	json_section "$TMP/virtual.json"
	printf ',\n"plot":"%s","seconds":%s}\n' "$plot" "$(elapsed "$t0")"
} >"$OUT/bench.json.tmp" && mv "$OUT/bench.json.tmp" "$OUT/bench.json"

echo "results: $OUT/bench.json"
echo "bench: done in $(elapsed "$t0") s on $cores CPUs (${host_model:-unknown CPU})"
exit $status
