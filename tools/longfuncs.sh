#!/bin/sh
# tools/longfuncs.sh - list C functions longer than MAX lines (default 80).
#
# Works on the formatted tree (make format): a function body opens with a
# "{" alone in column 0 and closes with "}" in column 0.  The name is the
# last identifier before "(" on the lines above the brace.
#   sh tools/longfuncs.sh [MAX] [FILE...]   (default: every source but tests)
MAX=${1:-80}
[ $# -gt 0 ] && shift
[ $# -eq 0 ] && set -- $(ls lib/*.c sim/*/*.c viewer/*.c lessons/src/*.c tracepoints/*.c bench/*.c 2>/dev/null)
awk -v max="$MAX" '
FNR == 1 { sig = ""; inside = 0 }
!inside && /^[A-Za-z_].*\(/ { sig = $0 }
!inside && /^\{$/ { inside = 1; start = FNR; name = sig; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); name = w[n]; next }
inside && /^\}/ { len = FNR - start - 1; if (len > max) printf "%5d %s:%d %s\n", len, FILENAME, start, name; inside = 0 }
' "$@" | sort -rn
