#!/bin/sh
# viewer/fuzz.sh - build viewer/fuzz_load.c with clang's libFuzzer and ASan
# and run it for FUZZ_SECONDS (default 30).  `make fuzz` calls this; CI can
# use FUZZ_SECONDS=5.  Crashes land in $BUILD/fuzz/ as crash-* files and the
# script exits non-zero.
#
# The fuzzer runs in libFuzzer's fork mode with OOMs ignored: when
# babeltrace2's CTF decoder asserts on a corrupt stream, the loader jumps
# out of it and must leave the library's half-built objects alone (see
# index.c), so each such input leaks what babeltrace2 had allocated.  The
# viewer loads one trace per process, so that is harmless there; in one
# long fuzzing process it would add up to an out-of-memory.  Fork mode
# restarts the process every so often; crashes and sanitizer reports still
# fail the run.
set -eu
BUILD=${BUILD:-build}
SECS=${FUZZ_SECONDS:-30}
out=$BUILD/fuzz
mkdir -p "$out/corpus"
# Findings of an earlier run are not this run's (the corpus is kept).
rm -f "$out"/crash-* "$out"/leak-* "$out"/oom-* "$out"/timeout-*
# Inputs that once broke the loader run first, every time.
cp viewer/fuzz-seeds/* "$out/corpus/"
command -v clang >/dev/null 2>&1 || { echo "fuzz: clang not installed"; exit 2; }
# Every viewer file but its main: the loader calls into the cache, the
# thread table and the unprotected-span finder, and the list grows.
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -I. $(pkg-config --cflags babeltrace2) \
	viewer/fuzz_load.c $(ls viewer/*.c | grep -v -e view_main.c -e /fuzz_) lib/*.c \
	$(pkg-config --libs babeltrace2) $(pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw) \
	-lm -o "$out/fuzz_load"
echo "fuzz: running $out/fuzz_load for ${SECS}s"
ICVIEW_FUZZ_CORPUS=$out/corpus ASAN_OPTIONS=detect_leaks=0 \
	"$out/fuzz_load" -fork=1 -ignore_ooms=1 -max_total_time="$SECS" -timeout=10 -max_len=4096 \
	-artifact_prefix="$out/" -print_final_stats=1 "$out/corpus" 2>"$out/fuzz.log" || true
# Judge by what was found, not by libFuzzer's exit code: in fork mode it
# exits non-zero after an ignored out-of-memory too.  An OOM here is
# babeltrace2 believing a corrupt metadata's huge sizes (say so, go on); a
# crash or a sanitizer report is ours to fix.
ooms=$(ls "$out"/oom-* 2>/dev/null | wc -l)
crashes=$(ls "$out"/crash-* "$out"/leak-* 2>/dev/null | wc -l)
if [ "$crashes" -gt 0 ]; then
	grep -E "ERROR|SUMMARY|#[0-9]+ 0x" "$out/fuzz.log" | grep -v NEW_FUNC | tail -30
	echo "fuzz: $crashes crashing input(s) in $out/"
	exit 1
fi
[ "$ooms" -gt 0 ] && echo "fuzz: $ooms input(s) made babeltrace2 allocate past 2 GiB (ignored)"
echo "fuzz: no crash in ${SECS}s"
