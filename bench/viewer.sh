#!/bin/sh
# bench/viewer.sh - the viewer section of `make bench` (called by run.sh).
#
# Records one trace with `icache-sim record`, then, on that same trace and
# interleaved (babeltrace2, viewer, babeltrace2, viewer, ...):
#   - babeltrace2's counter sink reading the whole trace: the reference;
#   - `icache-view --bench --no-cache TRACE` (the viewer's own hook), which
#     indexes the trace (its packets dealt to one decoder process per core,
#     or its streams if its index files do not account for every packet)
#     and prints {"events", "load_s", "events_per_s", "bytes_per_event",
#     "jump_end_ms", "jump_start_ms", "maxrss_kb" (the viewer's and its
#     decoders'), "decoders", "split", ...}.
# Then `icache-view --bench TRACE` twice with a cache directory of its own:
# the first indexes and writes the index cache, the second reopens it
# ("decoded": 0); its load_s is the reopen time.
# Reports the index rate as a ratio to babeltrace2's, the reopen time (and
# as a fraction of one full index), the machine's load average before and
# after (the ratio is only as good as the sharing of the cores), the peak
# resident memory per event of
# both (babeltrace2's when /usr/bin/time is there), the index's bytes per
# event against the trace's bytes per event on disk, and a jump to the end
# and back as a fraction of one full index.  Medians over the repetitions.
#
# Environment: BUILD, QUICK, JSON (where to write this section's object),
# VIEW_OPS (operations to record), VIEW_REPS.  Prints "not available yet"
# and writes nothing when a piece it needs has not landed.
set -u
BUILD=${BUILD:-build}
QUICK=${QUICK:-0}
JSON=${JSON:-/dev/null}
SIM=$BUILD/bin/icache-sim
VIEW=$BUILD/bin/icache-view
if [ "$QUICK" = 1 ]; then
	VIEW_OPS=${VIEW_OPS:-1000}
	VIEW_REPS=${VIEW_REPS:-1}
else
	VIEW_OPS=${VIEW_OPS:-120000} # some 18 M events: the size the targets name
	VIEW_REPS=${VIEW_REPS:-3}
fi

na() {
	echo "  not available yet ($*)"
	exit 0
}

[ -x "$VIEW" ] || na "no $VIEW: the viewer has not landed"
"$VIEW" --help 2>&1 | grep -q -- '--bench' || na "icache-view has no --bench hook yet"
"$SIM" record --help >/dev/null 2>&1 || na "icache-sim record has not landed: no trace to read"
command -v babeltrace2 >/dev/null 2>&1 || na "babeltrace2 is not installed: no reference"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/icache-bench-view.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
# The index cache of these runs: private, and removed with the rest.
XDG_CACHE_HOME=$TMP/cache
export XDG_CACHE_HOME
# Peak resident memory of a command, in KiB, when GNU time is there.
TIME=""
[ -x /usr/bin/time ] && /usr/bin/time -f %M true >/dev/null 2>&1 && TIME=/usr/bin/time
now() { date +%s.%N; }

cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
trace=$TMP/trace
# A session daemon shared with other users of the machine can go away under
# us (another test stopping the one it started): try up to three times, and
# say so.
try=1
while :; do
	rm -rf "$trace"
	"$SIM" record --scheme merged --workload mixed --cpus "$cores" --ops "$VIEW_OPS" \
		--quiet --json -o "$trace" >"$TMP/record.json" 2>"$TMP/record.err" && break
	echo "  icache-sim record failed (try $try of 3): $(head -1 "$TMP/record.err")" >&2
	[ $try -lt 3 ] || exit 1
	try=$((try + 1))
	sleep 1
done
# Bytes on disk per event: the stream files, not the metadata.
disk=$(find "$trace" -type f ! -name metadata ! -name '*.idx' -exec cat {} + | wc -c)
rec_events=$(sed -n 's/.*"events":\([0-9]*\).*/\1/p' "$TMP/record.json")
rec_disc=$(sed -n 's/.*"discarded_events":\([0-9]*\).*/\1/p' "$TMP/record.json")

load_before=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -1)
# Warm the page cache so that neither side pays for the first read.
babeltrace2 "$trace" -c sink.utils.counter -p 'step=+0' >/dev/null 2>&1

: >"$TMP/rows"
r=1
while [ "$r" -le "$VIEW_REPS" ]; do
	t0=$(now)
	${TIME:+$TIME -f "%M %U %S" -o "$TMP/bt.rss"} babeltrace2 "$trace" -c sink.utils.counter \
		-p 'step=+0' >"$TMP/bt.out" 2>"$TMP/bt.err" || {
		echo "  babeltrace2 failed on the trace:" >&2
		head -3 "$TMP/bt.err" >&2
		exit 1
	}
	t1=$(now)
	bt_rss=$( [ -n "$TIME" ] && tail -1 "$TMP/bt.rss" | awk '{ print $1 }' || echo -1)
	bt_cpu=$( [ -n "$TIME" ] && tail -1 "$TMP/bt.rss" | awk '{ print $2 + $3 }' || echo -1)
	"$VIEW" --bench --no-cache "$trace" >"$TMP/view.json" 2>"$TMP/view.err" || {
		echo "  icache-view --bench failed:" >&2
		head -3 "$TMP/view.err" >&2
		exit 1
	}
	t2=$(now)
	bt_events=$(awk '$2 == "Event" && $3 == "messages" { print $1 }' "$TMP/bt.out" | tail -1)
	tr -d '\n' <"$TMP/view.json" | awk -v bt_s="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
		-v view_wall="$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')" -v bt_events="${bt_events:-0}" \
		-v bt_rss="${bt_rss:--1}" -v bt_cpu="${bt_cpu:--1}" '
		function num(k,   m) {
			if (!match($0, "\"" k "\":-?[0-9][0-9.eE+-]*")) return -1
			return substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0
		}
		{ sk = match($0, "\"split\":\"[a-z]*\"") ? substr($0, RSTART + 9, RLENGTH - 10) : "?"
		  print bt_s, bt_events, view_wall, num("events"), num("load_s"), num("events_per_s"),
			num("bytes_per_event"), num("jump_end_ms"), num("jump_start_ms"), num("jump_middle_ms"),
			num("maxrss_kb"), bt_rss, num("decoders"), bt_cpu,
			num("loader_cpu_s") + (num("decoders_cpu_s") > 0 ? num("decoders_cpu_s") : 0),
			(num("busiest_decoder_cpu_s") > num("loader_cpu_s") ? num("busiest_decoder_cpu_s") : num("loader_cpu_s")),
			sk }' \
		>>"$TMP/rows"
	r=$((r + 1))
done

# The index cache: written once, then reopened (nothing decoded).
for pass in write reopen; do
	"$VIEW" --bench "$trace" >"$TMP/$pass.json" 2>"$TMP/$pass.err" || {
		echo "  icache-view --bench ($pass the cache) failed:" >&2
		head -3 "$TMP/$pass.err" >&2
		exit 1
	}
done
load_after=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo -1)
reopen=$(tr -d '\n' <"$TMP/reopen.json")
case $reopen in
*'"cache":"reopened"'*'"decoded":0,'*) ;;
*)
	echo "  the second open did not reuse the index cache: $reopen" >&2
	exit 1
	;;
esac
reopen_s=$(echo "$reopen" | sed -n 's/.*"load_s":\([0-9.]*\).*/\1/p')
reopen_rss=$(echo "$reopen" | sed -n 's/.*"maxrss_kb":\([0-9]*\).*/\1/p')

awk -v disk="$disk" -v rec_events="${rec_events:-0}" -v rec_disc="${rec_disc:-0}" -v json="$JSON" \
	-v reopen_s="${reopen_s:--1}" -v reopen_rss="${reopen_rss:--1}" \
	-v model="$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null | tr -d '"\\')" \
	-v cores="$cores" -v ops="$VIEW_OPS" -v load_before="$load_before" -v load_after="$load_after" '
function median(n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function jn(x) { return x < 0 ? "null" : sprintf("%.6g", x) }
{ n++; bt_s[n] = $1; bt_ev[n] = $2; vw[n] = $3; ev[n] = $4; load[n] = $5; rate[n] = $6
  bpe[n] = $7; jend[n] = $8; jstart[n] = $9; vrss[n] = $11; brss[n] = $12; dec = $13
  bcpu[n] = $14; vcpu[n] = $15; vbusy[n] = $16; sk = $17 }
END {
	if (!n) exit 1
	events = ev[1]
	for (i = 1; i <= n; i++) v[i] = (bt_s[i] > 0 && load[i] > 0) ? (ev[i] / load[i]) / (bt_ev[i] / bt_s[i]) : -1
	r_rate = median(n)
	for (i = 1; i <= n; i++) v[i] = rate[i]; m_rate = median(n)
	for (i = 1; i <= n; i++) v[i] = bt_s[i] > 0 ? bt_ev[i] / bt_s[i] : 0; m_bt = median(n)
	for (i = 1; i <= n; i++) v[i] = bpe[i]; m_bpe = median(n)
	disk_bpe = events > 0 ? disk / events : -1
	for (i = 1; i <= n; i++) v[i] = load[i] > 0 ? (jend[i] + jstart[i]) / (1000 * load[i]) : -1
	r_jump = median(n)
	for (i = 1; i <= n; i++) v[i] = jend[i] + jstart[i]; m_jump = median(n)
	for (i = 1; i <= n; i++) v[i] = load[i]; m_load = median(n)
	for (i = 1; i <= n; i++) v[i] = vrss[i]; m_vrss = median(n)
	for (i = 1; i <= n; i++) v[i] = brss[i]; m_brss = median(n)
	for (i = 1; i <= n; i++) v[i] = bcpu[i]; m_bcpu = median(n)
	for (i = 1; i <= n; i++) v[i] = vcpu[i]; m_vcpu = median(n)
	for (i = 1; i <= n; i++) v[i] = vbusy[i]; m_vbusy = median(n)
	for (i = 1; i <= n; i++) v[i] = bcpu[i] > 0 && vbusy[i] > 0 ? bcpu[i] / vbusy[i] : -1
	r_free = median(n)
	v_pe = events > 0 && m_vrss > 0 ? m_vrss * 1024 / events : -1
	b_pe = events > 0 && m_brss > 0 ? m_brss * 1024 / events : -1

	printf "  one trace: %d ops of mixed on %d CPUs (merged), %d events, %.1f MB on disk\n", ops, cores, events, disk / 1e6
	printf "  events: viewer %d, babeltrace2 %d, recorder %d (discarded %d)%s\n", events, bt_ev[1], rec_events, rec_disc, \
		(events == bt_ev[1] ? "" : "  <- they differ")
	printf "  index rate / babeltrace2 counter sink:   %sx   (%d repetition%s, median; %s)\n", \
		r_rate < 0 ? "n/a" : sprintf("%.2f", r_rate), n, n == 1 ? "" : "s", \
		(dec > 1 ? sprintf("%d decoder processes, a share of the %s each", dec, sk) : "one process")
	printf "  load average (1 min) before and after:   %s, %s on %d CPUs\n", load_before, load_after, cores
	printf "  CPU time: babeltrace2 %s s; viewer %.2f s in all, %.2f s in its busiest process\n", \
		m_bcpu < 0 ? "n/a" : sprintf("%.2f", m_bcpu), m_vcpu, m_vbusy
	printf "  index rate on %d free cores (estimate):   %sx   (babeltrace2 CPU / the busiest process CPU)\n", \
		(dec > 1 ? dec : 1), r_free < 0 ? "n/a" : sprintf("%.2f", r_free)
	printf "  reopen from the index cache:             %s s for %d events (%s of one full index)\n", \
		reopen_s < 0 ? "n/a" : sprintf("%.3f", reopen_s), events, \
		(reopen_s >= 0 && m_load > 0 ? sprintf("%.3f", reopen_s / m_load) : "n/a")
	printf "  peak memory per event, indexing:         %s B (%.0f MB)   babeltrace2: %s\n", \
		v_pe < 0 ? "n/a" : sprintf("%.2f", v_pe), m_vrss / 1024, \
		b_pe < 0 ? "n/a (no /usr/bin/time)" : sprintf("%.2f B (%.0f MB)", b_pe, m_brss / 1024)
	printf "  index bytes per event / bytes on disk:   %s   (%.1f B index, %.1f B on disk)\n", \
		(disk_bpe > 0 ? sprintf("%.2f", m_bpe / disk_bpe) : "n/a"), m_bpe, disk_bpe
	printf "  jump to the end and back / full index:   %s\n", r_jump < 0 ? "n/a" : sprintf("%.3g", r_jump)
	printf "  absolute, on %d CPUs (%s): index %.0f ev/s, babeltrace2 %.0f ev/s, jump end+back %.2f ms, index %.3f s\n", \
		cores, model, m_rate, m_bt, m_jump, m_load
	printf "{\"available\":true,\"reps\":%d,\"ops\":%d,\"events\":%d,\"babeltrace2_events\":%d,\"recorded_events\":%d,\"discarded_events\":%d,", \
		n, ops, events, bt_ev[1], rec_events, rec_disc > json
	printf "\"disk_bytes\":%d,\"disk_bytes_per_event\":%s,\"index_bytes_per_event\":%s,\"memory_to_disk\":%s,", \
		disk, jn(disk_bpe), jn(m_bpe), (disk_bpe > 0 ? jn(m_bpe / disk_bpe) : "null") > json
	printf "\"index_rate_vs_babeltrace2\":%s,\"index_events_per_s\":%s,\"babeltrace2_events_per_s\":%s,", \
		jn(r_rate), jn(m_rate), jn(m_bt) > json
	printf "\"jump_end_and_back_vs_index\":%s,\"jump_end_and_back_ms\":%s,\"index_s\":%s,", jn(r_jump), jn(m_jump), jn(m_load) > json
	printf "\"reopen_s\":%s,\"reopen_maxrss_kb\":%s,\"index_maxrss_kb\":%s,\"babeltrace2_maxrss_kb\":%s,", \
		jn(reopen_s), jn(reopen_rss), jn(m_vrss), jn(m_brss) > json
	printf "\"peak_bytes_per_event\":%s,\"babeltrace2_peak_bytes_per_event\":%s,\"decoders\":%d,\"split\":\"%s\",", jn(v_pe), jn(b_pe), dec, sk > json
	printf "\"load_before\":%s,\"load_after\":%s,", jn(load_before), jn(load_after) > json
	printf "\"babeltrace2_cpu_s\":%s,\"index_cpu_s\":%s,\"index_busiest_cpu_s\":%s,\"index_rate_free_cores_estimate\":%s,\"runs\":[", \
		jn(m_bcpu), jn(m_vcpu), jn(m_vbusy), jn(r_free) > json
	for (i = 1; i <= n; i++)
		printf "%s{\"babeltrace2_s\":%s,\"babeltrace2_events\":%d,\"view_wall_s\":%s,\"load_s\":%s,\"jump_end_ms\":%s,\"jump_start_ms\":%s}", \
			(i > 1 ? "," : ""), jn(bt_s[i]), bt_ev[i], jn(vw[i]), jn(load[i]), jn(jend[i]), jn(jstart[i]) > json
	printf "]}\n" > json
}' "$TMP/rows" || { echo "  no viewer figures" >&2; exit 1; }
