# bench/plot.sh - the gnuplot part shared by bench/run.sh (real CPUs) and
# bench/virtual.sh (virtual CPUs); sourced, not run.  Each data file
# $TMP/plot/WORKLOAD.SERIES.dat has columns: CPUs, ops/s, contentions/op.

# plot_workload W YLABEL SERIES...: the two panels of workload W (its
# throughput, then its contentions per op on a log scale), one line per
# series, as gnuplot commands on stdout.
plot_workload() {
	pw_w=$1
	pw_ylabel=$2
	shift 2
	echo "set ylabel '$pw_ylabel'"
	echo "unset logscale y"
	echo "set yrange [0:*]"
	echo "set format y '%.1s%c'"
	printf "set title '%s: throughput'\nplot " "$pw_w"
	pw_sep=""
	for pw_s in "$@"; do
		printf "%s'%s' using 1:2 with linespoints lw 2 title '%s'" \
			"$pw_sep" "$TMP/plot/$pw_w.$pw_s.dat" "$pw_s"
		pw_sep=", "
	done
	echo
	echo "set ylabel 'lock contentions per op'"
	echo "set yrange [*:*]"
	echo "set logscale y"
	echo "set format y '%g'"
	printf "set title '%s: contentions per op (log)'\nplot " "$pw_w"
	pw_sep=""
	for pw_s in "$@"; do
		printf "%s'%s' using 1:(\$3 > 0 ? \$3 : 1/0) with linespoints lw 2 title '%s'" \
			"$pw_sep" "$TMP/plot/$pw_w.$pw_s.dat" "$pw_s"
		pw_sep=", "
	done
	echo
}

# plot_render: draw $TMP/plot.gp into $plot and say where; on failure the
# first lines of gnuplot's complaint and status=1.
plot_render() {
	if gnuplot "$TMP/plot.gp" 2>"$TMP/plot.err"; then
		echo "plot: $plot"
	else
		echo "bench: gnuplot failed:" >&2
		head -5 "$TMP/plot.err" >&2
		status=1
	fi
}
