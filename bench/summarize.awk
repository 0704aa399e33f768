# summarize.awk - turn the scaling runs of bench/run.sh into medians and
# ratios: a text table on stdout, a JSON fragment, and gnuplot data.
#
#   awk -f bench/summarize.awk -v ref=merged -v base=global \
#       -v json=FRAG.json -v dat=PLOTDIR -v schemes="a b" -v workloads="w v" \
#       -v cpulist="1 2" INDEX run.1.json run.2.json ...
#
# INDEX has one line per run: "seq rep scheme workload cpus exit-status".
# Each run.SEQ.json holds the one JSON object `icache-sim run --json` printed
# (empty if the run failed).  Plain POSIX awk (mawk is enough): the objects
# are flat and their keys are ours, so a match on "key": finds the field.
#
# Every figure is reduced per run first (per operation), then the median is
# taken over the repetitions.  Ratios between schemes are paired: in each
# repetition the schemes ran back to back on the same CPU count, so the
# ratio is taken within a repetition and the median of those is reported;
# noise that lasts a few seconds then hits numerator and denominator alike.

function jstr(s, key,   m) {
	if (!match(s, "\"" key "\":\"[^\"]*\""))
		return ""
	m = substr(s, RSTART + length(key) + 4, RLENGTH - length(key) - 5)
	return m
}

function jnum(s, key,   m) {
	if (!match(s, "\"" key "\":-?[0-9][0-9.eE+-]*"))
		return -1
	m = substr(s, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
	return m + 0
}

# median of v[1..n] (sorts v in place)
function median(n,   i, j, t) {
	if (n <= 0)
		return -1
	for (i = 2; i <= n; i++) {
		t = v[i]
		for (j = i - 1; j >= 1 && v[j] > t; j--)
			v[j + 1] = v[j]
		v[j + 1] = t
	}
	if (n % 2)
		return v[(n + 1) / 2]
	return (v[n / 2] + v[n / 2 + 1]) / 2
}

function vmin(n,   i, m) { m = v[1]; for (i = 2; i <= n; i++) if (v[i] < m) m = v[i]; return m }
function vmax(n,   i, m) { m = v[1]; for (i = 2; i <= n; i++) if (v[i] > m) m = v[i]; return m }

# A JSON number, or null for "not defined" (a zero denominator).
function jn(x) { return x < 0 ? "null" : sprintf("%.6g", x) }
# A table cell: a ratio, or n/a.
function tr(x, fmt) { return x < 0 ? "n/a" : sprintf(fmt, x) }

function jesc(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return s }

FNR == 1 { file++ }

file == 1 {
	# the index
	seq = $1
	rrep[seq] = $2; rs[seq] = $3; rw[seq] = $4; rc[seq] = $5; rrc[seq] = $6
	nseq = seq > nseq ? seq : nseq
	next
}

{
	if (!match(FILENAME, /run\.[0-9]+\.json$/))
		next
	seq = substr(FILENAME, RSTART + 4, RLENGTH - 9) + 0
	line = $0
	if (substr(line, 1, 1) != "{")
		next
	ok[seq] = 1
	rops[seq] = jnum(line, "ops")
	rsec[seq] = jnum(line, "seconds")
	rops_s[seq] = jnum(line, "ops_per_s")
	rviol[seq] = jnum(line, "violations_total")
	if (host_cpus == "") {
		host_cpus = jnum(line, "host_cpus")
		host_model = jstr(line, "host_cpu_model")
	}
	# the locks array: objects without nested brackets
	if (match(line, /"locks":\[[^]]*\]/)) {
		locks = substr(line, RSTART + 9, RLENGTH - 10)
		n = split(locks, parts, /\},\{/)
		for (i = 1; i <= n; i++) {
			p = parts[i]
			cl = jstr(p, "class")
			if (cl == "")
				continue
			a = jnum(p, "acquisitions"); c = jnum(p, "contentions")
			b = jnum(p, "bounces"); t = jnum(p, "trylock_failures")
			wt = jnum(p, "wait_ns_total")
			la[seq, cl] = a; lc[seq, cl] = c; lb[seq, cl] = b; lt[seq, cl] = t
			lh[seq, cl] = jnum(p, "hold_ns_total")
			ta[seq] += a; tc[seq] += c; tb[seq] += b; tw[seq] += wt
			if (!((rw[seq], rs[seq], cl) in hasclass)) {
				hasclass[rw[seq], rs[seq], cl] = 1
				ncl[rw[seq], rs[seq]]++
				clname[rw[seq], rs[seq], ncl[rw[seq], rs[seq]]] = cl
			}
		}
	}
}

END {
	ns = split(schemes, S, " ")
	nw = split(workloads, W, " ")
	nc = split(cpulist, C, " ")
	mincpu = C[1]
	for (i = 2; i <= nc; i++) if (C[i] + 0 < mincpu + 0) mincpu = C[i]
	maxcpu = C[1]
	for (i = 2; i <= nc; i++) if (C[i] + 0 > maxcpu + 0) maxcpu = C[i]

	# runs of each configuration, and the run of each repetition
	for (seq = 1; seq <= nseq; seq++) {
		if (!(seq in rs))
			continue
		k = rw[seq] SUBSEP rs[seq] SUBSEP rc[seq]
		if (!ok[seq] || (rrc[seq] != 0 && rrc[seq] != 1) || rops[seq] <= 0) {
			failed[k]++
			nfailed++
			continue
		}
		nrun[k]++
		runseq[k, nrun[k]] = seq
		byrep[k, rrep[seq]] = seq
		if (rviol[seq] > 0)
			viol[k] += rviol[seq]
		if (rrep[seq] > maxrep)
			maxrep = rrep[seq]
	}

	# medians per configuration
	for (wi = 1; wi <= nw; wi++) for (si = 1; si <= ns; si++) for (ci = 1; ci <= nc; ci++) {
		k = W[wi] SUBSEP S[si] SUBSEP C[ci]
		n = nrun[k] + 0
		if (!n)
			continue
		for (i = 1; i <= n; i++) v[i] = rops_s[runseq[k, i]]
		mops[k] = median(n); minops[k] = vmin(n); maxops[k] = vmax(n)
		for (i = 1; i <= n; i++) { s = runseq[k, i]; v[i] = ta[s] / rops[s] }
		macq[k] = median(n)
		for (i = 1; i <= n; i++) { s = runseq[k, i]; v[i] = tc[s] / rops[s] }
		mcont[k] = median(n)
		for (i = 1; i <= n; i++) { s = runseq[k, i]; v[i] = tb[s] / rops[s] }
		mbnc[k] = median(n)
		for (i = 1; i <= n; i++) { s = runseq[k, i]; v[i] = tw[s] / rops[s] }
		mwait[k] = median(n)
		m = ncl[W[wi], S[si]] + 0
		for (j = 1; j <= m; j++) {
			cl = clname[W[wi], S[si], j]
			for (i = 1; i <= n; i++) { s = runseq[k, i]; v[i] = la[s, cl] / rops[s] }
			cacq[k, cl] = median(n)
			for (i = 1; i <= n; i++) { s = runseq[k, i]; v[i] = lc[s, cl] / rops[s] }
			ccont[k, cl] = median(n)
			for (i = 1; i <= n; i++) { s = runseq[k, i]; v[i] = lb[s, cl] / rops[s] }
			cbnc[k, cl] = median(n)
			# busy: the fraction of the run's wall time the class was
			# held (summed over its instances, so it can pass 1 for
			# per-inode or per-chain locks)
			for (i = 1; i <= n; i++) { s = runseq[k, i]; v[i] = rsec[s] > 0 ? lh[s, cl] / (rsec[s] * 1e9) : 0 }
			cbusy[k, cl] = median(n)
		}
	}

	# paired ratios: figure(num, rep r) / figure(den, rep r), median over r
	# what: 0 ops/s, 1 acquisitions/op, 2 contentions/op, 3 bounces/op
	# (the function is below; awk has no closures)

	out = json
	printf "{\"reps\":%d,\"failed_runs\":%d,\"results\":[", maxrep, nfailed + 0 > out
	first = 1
	for (wi = 1; wi <= nw; wi++) for (si = 1; si <= ns; si++) for (ci = 1; ci <= nc; ci++) {
		k = W[wi] SUBSEP S[si] SUBSEP C[ci]
		if (!nrun[k]) continue
		printf "%s\n{\"workload\":\"%s\",\"scheme\":\"%s\",\"cpus\":%d,\"runs\":%d,\"failed\":%d,", \
			first ? "" : ",", W[wi], S[si], C[ci], nrun[k], failed[k] + 0 > out
		first = 0
		printf "\"ops_per_s_median\":%s,\"ops_per_s_min\":%s,\"ops_per_s_max\":%s,", \
			jn(mops[k]), jn(minops[k]), jn(maxops[k]) > out
		printf "\"speedup_vs_%d_cpus\":%s,\"ops_per_s_vs_%s\":%s,", mincpu, \
			jn(pair(W[wi], S[si], C[ci], S[si], mincpu, 0)), ref, \
			jn(pair(W[wi], S[si], C[ci], ref, C[ci], 0)) > out
		printf "\"acquisitions_per_op\":%s,\"contentions_per_op\":%s,\"bounces_per_op\":%s,\"wait_ns_per_op\":%s,\"violations\":%d,\"oversubscribed\":%s,\"locks\":[", \
			jn(macq[k]), jn(mcont[k]), jn(mbnc[k]), jn(mwait[k]), viol[k] + 0, \
			(C[ci] + 0 > host_cpus + 0 ? "true" : "false") > out
		m = ncl[W[wi], S[si]] + 0
		for (j = 1; j <= m; j++) {
			cl = clname[W[wi], S[si], j]
			printf "%s{\"class\":\"%s\",\"acquisitions_per_op\":%s,\"contentions_per_op\":%s,\"bounces_per_op\":%s,\"busy\":%s}", \
				(j > 1 ? "," : ""), cl, jn(cacq[k, cl]), jn(ccont[k, cl]), jn(cbnc[k, cl]), jn(cbusy[k, cl]) > out
		}
		printf "]}" > out
	}
	printf "],\n\"ratios\":[" > out
	first = 1
	for (wi = 1; wi <= nw; wi++) for (ci = 1; ci <= nc; ci++) for (si = 1; si <= ns; si++) {
		if (base == "" || S[si] == base) continue
		printf "%s\n{\"workload\":\"%s\",\"cpus\":%d,\"numerator\":\"%s\",\"denominator\":\"%s\",\"contentions_per_op\":%s,\"bounces_per_op\":%s,\"acquisitions_per_op\":%s,\"wait_ns_per_op\":%s,\"ops_per_s\":%s}", \
			first ? "" : ",", W[wi], C[ci], base, S[si], \
			jn(pair(W[wi], base, C[ci], S[si], C[ci], 2)), \
			jn(pair(W[wi], base, C[ci], S[si], C[ci], 3)), \
			jn(pair(W[wi], base, C[ci], S[si], C[ci], 1)), \
			jn(pair(W[wi], base, C[ci], S[si], C[ci], 4)), \
			jn(pair(W[wi], base, C[ci], S[si], C[ci], 0)) > out
		first = 0
	}
	printf "],\n\"saturation\":[" > out
	first = 1
	for (wi = 1; wi <= nw; wi++) for (si = 1; si <= ns; si++) {
		x = saturation(W[wi], S[si])
		if (x < 0) continue
		printf "%s\n{\"workload\":\"%s\",\"scheme\":\"%s\",\"from_cpus\":%d,\"class\":\"%s\",\"busy\":%s,\"saturates_near_cpus\":%s}", \
			first ? "" : ",", W[wi], S[si], mincpu, sat_cl, jn(sat_busy), jn(x) > out
		first = 0
	}
	printf "],\n\"control\":[" > out
	first = 1
	if (control != "") for (wi = 1; wi <= nw; wi++) for (ci = 1; ci <= nc; ci++) {
		printf "%s\n{\"workload\":\"%s\",\"cpus\":%d,\"numerator\":\"%s\",\"denominator\":\"%s\",\"contentions_per_op\":%s,\"bounces_per_op\":%s,\"acquisitions_per_op\":%s,\"wait_ns_per_op\":%s,\"ops_per_s\":%s}", \
			first ? "" : ",", W[wi], C[ci], control, ref, \
			jn(pair(W[wi], control, C[ci], ref, C[ci], 2)), \
			jn(pair(W[wi], control, C[ci], ref, C[ci], 3)), \
			jn(pair(W[wi], control, C[ci], ref, C[ci], 1)), \
			jn(pair(W[wi], control, C[ci], ref, C[ci], 4)), \
			jn(pair(W[wi], control, C[ci], ref, C[ci], 0)) > out
		first = 0
	}
	printf "]}\n" > out
	close(out)

	# gnuplot data: one file per workload and scheme, "cpus ops/s cont/op bounces/op"
	for (wi = 1; wi <= nw; wi++) for (si = 1; si <= ns; si++) {
		f = dat "/" W[wi] "." S[si] ".dat"
		printf "# cpus ops_per_s contentions_per_op bounces_per_op\n" > f
		for (ci = 1; ci <= nc; ci++) {
			k = W[wi] SUBSEP S[si] SUBSEP C[ci]
			if (nrun[k])
				printf "%d %.1f %.6g %.6g\n", C[ci], mops[k], mcont[k], mbnc[k] > f
		}
		close(f)
	}

	# ---- the text report ----
	printf "== 1. Scaling: median of %d interleaved repetition%s per figure", maxrep, maxrep == 1 ? "" : "s"
	printf " (host: %d CPUs, %s)\n", host_cpus, host_model
	printf "ops/s are absolute on this host; \"x%s\" is against the same scheme at %d CPU%s,\n", \
		mincpu, mincpu, mincpu == 1 ? "" : "s"
	printf "\"/%s\" against %s at the same CPU count, both from runs of this invocation.\n", ref, ref
	printf "Per-op columns count lock events per operation, all lock classes together.\n\n"
	hdr = sprintf("%-14s %4s %-15s %10s %7s %6s %8s %8s %9s %9s", "workload", "cpus", "scheme", \
		"ops/s", "spread", "x" mincpu, "/" ref, "acq/op", "cont/op", "bounce/op")
	print hdr
	for (wi = 1; wi <= nw; wi++) {
		for (ci = 1; ci <= nc; ci++) for (si = 1; si <= ns; si++) {
			k = W[wi] SUBSEP S[si] SUBSEP C[ci]
			if (!nrun[k]) {
				printf "%-14s %4d %-15s %10s\n", W[wi], C[ci], S[si], "no run"
				continue
			}
			spread = mops[k] > 0 ? 100 * (maxops[k] - minops[k]) / mops[k] : 0
			printf "%-14s %4d %-15s %10.0f %6.0f%% %6s %8s %8.3f %8.4f %9.4f%s\n", \
				W[wi], C[ci], S[si], mops[k], spread, \
				tr(pair(W[wi], S[si], C[ci], S[si], mincpu, 0), "%.2f"), \
				tr(pair(W[wi], S[si], C[ci], ref, C[ci], 0), "%.2f"), \
				macq[k], mcont[k], mbnc[k], \
				(viol[k] ? sprintf("  (%d violations)", viol[k]) : "") \
				(failed[k] ? sprintf("  (%d failed runs)", failed[k]) : "") \
				(C[ci] + 0 > host_cpus + 0 ? "  (more CPUs than cores)" : "")
		}
		print ""
	}

	if (base == "" || ns < 2) {
		printf "Lock traffic ratios: not available (they need the global scheme and another;\n"
		printf "registered here: %s)\n\n", schemes
	} else {
		ratio_table()
		headline()
	}
	saturation_table()
	per_class_table()
	if (nfailed)
		printf "\n%d run%s failed (no JSON or exit status > 1): left out of the medians\n", nfailed, nfailed == 1 ? "" : "s"
}

function ratio_table(   wi, ci, si) {
	printf "Lock traffic ratios: %s / scheme, per operation, median of paired runs\n", base
	printf "(Dave Chinner, V4 cover letter: contention and lock traffic \"down by an order of magnitude on an 8-way box\"\n"
	printf " for parallel create and unlink, %s -> inode-scale-v4)\n\n", base
	printf "%-14s %4s %-22s %10s %10s %10s %10s\n", "workload", "cpus", "ratio", "cont/op", "bounce/op", "acq/op", "wait/op"
	for (wi = 1; wi <= nw; wi++) for (ci = 1; ci <= nc; ci++) for (si = 1; si <= ns; si++) {
		if (S[si] == base) continue
		printf "%-14s %4d %-22s %10s %10s %10s %10s\n", W[wi], C[ci], base "/" S[si], \
			tr(pair(W[wi], base, C[ci], S[si], C[ci], 2), "%.1fx"), \
			tr(pair(W[wi], base, C[ci], S[si], C[ci], 3), "%.1fx"), \
			tr(pair(W[wi], base, C[ci], S[si], C[ci], 1), "%.2fx"), \
			tr(pair(W[wi], base, C[ci], S[si], C[ci], 4), "%.1fx")
	}
	control_rows()
	print ""
}

# A/A: the reference scheme against itself, run twice in every repetition.
# Whatever these ratios differ from 1.0x by is noise; a ratio between two
# schemes means something only well outside that band.
function control_rows(   wi, ci) {
	if (control == "")
		return
	for (wi = 1; wi <= nw; wi++) for (ci = 1; ci <= nc; ci++)
		printf "%-14s %4d %-22s %10s %10s %10s %10s\n", W[wi], C[ci], "A/A " ref "/" ref, \
			tr(pair(W[wi], control, C[ci], ref, C[ci], 2), "%.1fx"), \
			tr(pair(W[wi], control, C[ci], ref, C[ci], 3), "%.1fx"), \
			tr(pair(W[wi], control, C[ci], ref, C[ci], 1), "%.2fx"), \
			tr(pair(W[wi], control, C[ci], ref, C[ci], 4), "%.1fx")
}

# The figure the issue asks for, on one line per workload: contentions per
# op of global over each other scheme at the largest CPU count.
function headline(   wi, si, x, line) {
	printf "Headline, at %d CPU%s%s: contentions per operation, %s / scheme\n", maxcpu, \
		maxcpu == 1 ? "" : "s", maxcpu + 0 == host_cpus + 0 ? " (all of this host)" : "", base
	for (wi = 1; wi <= nw; wi++) {
		line = sprintf("  %-14s", W[wi])
		for (si = 1; si <= ns; si++) {
			if (S[si] == base) continue
			x = pair(W[wi], base, maxcpu, S[si], maxcpu, 2)
			line = line sprintf("  %s/%s %s", base, S[si], tr(x, "%.1fx"))
		}
		print line
	}
	print ""
}

function per_class_table(   wi, ci, si, k, m, j, cl) {
	printf "Per lock class at each CPU count (median per operation)\n\n"
	printf "busy: the fraction of the run's wall time the class was held, summed over\n"
	printf "its instances (one lock per inode for i_lock, per chain for hash_bucket)\n\n"
	printf "%-14s %4s %-15s %-20s %9s %9s %9s %6s\n", "workload", "cpus", "scheme", "class", "acq/op", "cont/op", "bounce/op", "busy"
	for (wi = 1; wi <= nw; wi++) for (ci = 1; ci <= nc; ci++) for (si = 1; si <= ns; si++) {
		k = W[wi] SUBSEP S[si] SUBSEP C[ci]
		if (!nrun[k]) continue
		m = ncl[W[wi], S[si]] + 0
		for (j = 1; j <= m; j++) {
			cl = clname[W[wi], S[si], j]
			printf "%-14s %4d %-15s %-20s %9.3f %9.4f %9.4f %6.3f\n", W[wi], C[ci], S[si], cl, \
				cacq[k, cl], ccont[k, cl], cbnc[k, cl], cbusy[k, cl]
		}
	}
}

# The shared lock (not i_lock, one per inode, nor hash_bucket, one per
# chain) that is busiest at the smallest CPU count m.  If every CPU added
# the same load, N CPUs would keep it busy N/m times as long: it saturates
# near N = m / busy.  Sets sat_cl, sat_busy; returns the estimate or -1.
function saturation(w, sc,   k, m, j, cl, b) {
	k = w SUBSEP sc SUBSEP mincpu
	sat_cl = ""; sat_busy = 0
	if (!nrun[k]) return -1
	m = ncl[w, sc] + 0
	for (j = 1; j <= m; j++) {
		cl = clname[w, sc, j]
		if (cl == "i_lock" || cl == "hash_bucket") continue
		b = cbusy[k, cl]
		if (b > sat_busy) { sat_busy = b; sat_cl = cl }
	}
	return sat_busy > 0 ? mincpu / sat_busy : -1
}

function saturation_table(   wi, si, n) {
	printf "Saturation estimate, from the runs at %d CPU%s: the busiest shared lock class\n", mincpu, mincpu == 1 ? "" : "s"
	printf "(neither i_lock nor hash_bucket) is held a fraction B of the time; N CPUs doing\n"
	printf "the same work would need N/%d x B of it, so it saturates near N = %d / B CPUs.\n", mincpu, mincpu
	printf "Conservative for classes with one lock per superblock (all instances count)\n"
	printf "and for the writeback list lock (the flusher's polling counts as if it grew with N).\n\n"
	printf "%-14s %-15s %-20s %6s %12s\n", "workload", "scheme", "busiest class", "B", "saturates at"
	for (wi = 1; wi <= nw; wi++) for (si = 1; si <= ns; si++) {
		n = saturation(W[wi], S[si])
		if (n < 0) continue
		printf "%-14s %-15s %-20s %6.3f %9.1f CPUs\n", W[wi], S[si], sat_cl, sat_busy, n
	}
	print ""
}

# The median over repetitions of fig(w, s1, c1) / fig(w, s2, c2), pairing
# the runs of the same repetition; -1 if no pair has a nonzero denominator.
function pair(w, s1, c1, s2, c2, what,   r, a, b, n) {
	n = 0
	for (r = 1; r <= maxrep; r++) {
		if (!((w SUBSEP s1 SUBSEP c1, r) in byrep)) continue
		if (!((w SUBSEP s2 SUBSEP c2, r) in byrep)) continue
		a = fig(byrep[w SUBSEP s1 SUBSEP c1, r], what)
		b = fig(byrep[w SUBSEP s2 SUBSEP c2, r], what)
		if (b <= 0) continue
		v[++n] = a / b
	}
	return n ? median(n) : -1
}

function fig(seq, what) {
	if (what == 0) return rops_s[seq]
	if (what == 1) return ta[seq] / rops[seq]
	if (what == 2) return tc[seq] / rops[seq]
	if (what == 3) return tb[seq] / rops[seq]
	return tw[seq] / rops[seq]
}
