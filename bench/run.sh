#!/usr/bin/env bash
# bench/run.sh: tine against git on the same machine, same data, same run.
#
# Builds tine once, generates the data set once (BENCH_SCALE distinct
# ~1 KiB JSON files and a BENCH_LARGE_MB MiB incompressible file, both
# deterministic), then times each operation BENCH_RUNS times for git and for
# tine, alternating, each from a fresh copy where the operation changes the
# repository. Prints the medians, tine/git ratios, peak RSS and the machine.
#
# Environment:
#   BENCH_SCALE     number of JSON objects            (default 100000)
#   BENCH_RUNS      runs per operation and tool       (default 5)
#   BENCH_LARGE_MB  size of the large file in MiB     (default 1024)
#   BENCH_LARGE_GIT also time `git hash-object -w` of the large file (default 1)
#   BENCH_EVENTS    history length for the history case (default 10000;
#                   at least 101, at most 10000: one tine import)
#   BENCH_ONLY      comma list of cases to run: bulk,fsck-loose,repack,
#                   fsck-packed,read,read-shuffled,refs,large,history
#                   (default: all)
#   BENCH_TINE      use this tine binary instead of building ./cmd/tine
#   BENCH_DIR       work directory (default: a new temporary directory,
#                   removed at the end unless BENCH_KEEP=1)
#
# Usage: bash bench/run.sh            (full run: 10-20 minutes)
#        BENCH_SCALE=2000 BENCH_RUNS=3 BENCH_LARGE_MB=64 bash bench/run.sh
set -euo pipefail

SCALE="${BENCH_SCALE:-100000}"
RUNS="${BENCH_RUNS:-5}"
LARGE_MB="${BENCH_LARGE_MB:-1024}"
LARGE_GIT="${BENCH_LARGE_GIT:-1}"
EVENTS="${BENCH_EVENTS:-10000}"
ONLY="${BENCH_ONLY:-bulk,fsck-loose,repack,fsck-packed,read,read-shuffled,refs,large,history}"
REFS=$((SCALE < 1000 ? SCALE : 1000))
SRC="$(cd "$(dirname "$0")/.." && pwd)"
# The record row times the append: tine record's code state capture (git
# calls on whatever work tree the bench runs in) is left out.
export TINE_CAPTURE=off
# The history case forks 100 events before the tip and imports the run in
# one `tine import`, whose bound is 10000 events.
if ! [[ "$EVENTS" =~ ^[0-9]+$ ]] || [ "$EVENTS" -le 100 ] || [ "$EVENTS" -gt 10000 ]; then
	printf 'bench/run.sh: BENCH_EVENTS must be 101..10000, not %s\n' "$EVENTS" >&2
	exit 2
fi

if [ -n "${BENCH_DIR:-}" ]; then
	WORK="$BENCH_DIR"
	mkdir -p "$WORK"
else
	WORK="$(mktemp -d "${TMPDIR:-/tmp}/tine-bench.XXXXXX")"
	if [ "${BENCH_KEEP:-0}" != "1" ]; then
		trap 'rm -rf "$WORK"' EXIT
	fi
fi
WORK="$(cd "$WORK" && pwd)"
BIN="$WORK/bin"
RES="$WORK/results"
LOG="$WORK/log"
rm -rf "$RES" "$LOG"
mkdir -p "$BIN" "$RES" "$LOG"


say() { printf '%s\n' "$*" >&2; }
want() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }

say "== building tine and the bench helpers into $BIN"
(cd "$SRC" && go build -o "$BIN/gendata" ./bench/gendata && go build -o "$BIN/rawb3" ./bench/rawb3 &&
	go build -o "$BIN/mkloose" ./bench/mkloose)
if [ -n "${BENCH_TINE:-}" ]; then
	cp "$BENCH_TINE" "$BIN/tine"
else
	(cd "$SRC" && go build -o "$BIN/tine" ./cmd/tine)
fi
TINE="$BIN/tine"

# Git must not read the user's configuration, and its reflogs need a name.
export HOME="$WORK/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid
mkdir -p "$HOME"
unset TINE_DIR GIT_DIR

HAVE_TIME=0
if [ -x /usr/bin/time ] && /usr/bin/time -f %M -o "$LOG/probe" true 2>/dev/null; then
	HAVE_TIME=1
fi

# measure CASE TOOL CMD...: runs CMD once (stdin and stdout as the caller
# redirected them), appending "seconds peak_rss_kib" to the case's result
# file, or "FAIL" when CMD fails (its stderr is kept in the log). The page
# cache is flushed to disk first so an earlier run's writeback is not
# charged to this one.
measure() {
	local case="$1" tool="$2" t0 t1 rc=0 rss=- cpu=-
	shift 2
	sync
	t0="$(date +%s.%N)"
	if [ "$HAVE_TIME" = 1 ]; then
		/usr/bin/time -f '%M %U %S' -o "$LOG/rss" "$@" 2>>"$LOG/$case.$tool.err" || rc=$?
	else
		"$@" 2>>"$LOG/$case.$tool.err" || rc=$?
	fi
	t1="$(date +%s.%N)"
	if [ "$rc" != 0 ]; then
		say "   $case/$tool failed (exit $rc): $(tail -n 2 "$LOG/$case.$tool.err" | tr '\n' ' ')"
		echo FAIL >>"$RES/$case.$tool"
		return 0
	fi
	if [ "$HAVE_TIME" = 1 ]; then
		read -r rss u s <<<"$(tail -n 1 "$LOG/rss")"
		cpu="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')"
	fi
	awk -v a="$t0" -v b="$t1" -v r="$rss" -v c="$cpu" 'BEGIN { printf "%.4f %s %s\n", b - a, r, c }' >>"$RES/$case.$tool"
}

# fresh SRC DST: replaces DST with a copy of SRC (not timed).
fresh() { rm -rf "$2" && cp -a "$1" "$2"; }

# skip CASE TOOL REASON: records that a tool could not run a case.
skip() { echo "SKIP $3" >"$RES/$1.$2"; say "   $1/$2 not measured: $3"; }

# tine_has VERB: whether this tine build has the verb.
tine_has() { "$TINE" "$1" --help >/dev/null 2>&1; }
# tine_help_mentions VERB WORD: VERB's help mentions WORD. The help is
# captured first: piping it into grep -q lets grep exit before tine has
# written everything, and under pipefail tine's SIGPIPE fails the test.
tine_help_mentions() { grep -q -- "$2" <<<"$("$TINE" "$1" --help 2>&1)"; }

# read_shuffled: every packed object read back in one shuffled order, the
# same for both tools (object i of git's list and of tine's is the same
# document), so almost no two consecutive reads share a pack block or a
# delta base: random access, where reading in write order is sequential.
read_shuffled() {
	say "== read all $SCALE objects back from packs, shuffled"
	if ! tine_help_mentions cat-object --batch; then
		skip read-shuffled tine "this tine has no cat-object --batch"
		return
	fi
	paste "$WORK/tine.oids" "$WORK/git.oids" |
		awk 'BEGIN { srand(13) } { printf "%.9f\t%s\n", rand(), $0 }' | sort -k1,1 | cut -f2- >"$WORK/shuffled"
	cut -f1 "$WORK/shuffled" >"$WORK/tine.shuffled"
	cut -f2 "$WORK/shuffled" >"$WORK/git.shuffled"
	for i in $(seq "$RUNS"); do
		measure read-shuffled git git -C "$G_PACKED" cat-file --batch <"$WORK/git.shuffled" >"$WORK/git.read"
		measure read-shuffled tine "$TINE" --repo "$T_PACKED" cat-object --batch <"$WORK/tine.shuffled" >"$WORK/tine.read"
	done
	for t in git tine; do
		n="$(grep -c ' blob [0-9]*$' "$WORK/$t.read" || true)"
		[ "$n" = "$SCALE" ] || { say "$t read back $n shuffled objects, want $SCALE"; exit 1; }
	done
	rm -f "$WORK/git.read" "$WORK/tine.read"
}

# ---------------------------------------------------------------- data
DATA="$WORK/data"
NEED_OBJECTS=0
for c in bulk fsck-loose repack fsck-packed read read-shuffled; do want "$c" && NEED_OBJECTS=1; done
# The JSON files feed the object cases and the refs case only.
NEED_DATA="$NEED_OBJECTS"
want refs && NEED_DATA=1
if [ "$NEED_DATA" = 1 ]; then
say "== generating $SCALE JSON files"
if [ ! -f "$DATA/.done-$SCALE" ]; then
	rm -rf "$DATA"
	"$BIN/gendata" json "$DATA" "$SCALE"
	touch "$DATA/.done-$SCALE"
fi
find "$DATA" -name '*.json' | sort >"$WORK/paths"
[ "$(wc -l <"$WORK/paths")" = "$SCALE" ] || { say "expected $SCALE files"; exit 1; }
head -n "$REFS" "$WORK/paths" >"$WORK/paths.refs"
xargs cat <"$WORK/paths" >/dev/null # warm the page cache
fi # NEED_DATA

G_LOOSE="$WORK/git-loose" T_WRITTEN="$WORK/tine-written" T_LOOSE="$WORK/tine-loose"
G_PACKED="$WORK/git-packed" T_PACKED="$WORK/tine-packed" X="$WORK/scratch"

if [ "$NEED_OBJECTS" = 1 ]; then
# ---------------------------------------------------------------- bulk write
# Also builds the as-written repositories the later cases start from.
say "== bulk write: $SCALE objects, $RUNS runs"
for i in $(seq "$RUNS"); do
	rm -rf "$X" && git init -q "$X"
	measure bulk git git -C "$X" hash-object -w --stdin-paths <"$WORK/paths" >"$WORK/git.oids"
	rm -rf "$G_LOOSE" && mv "$X" "$G_LOOSE"
	rm -rf "$X" && "$TINE" init "$X" >/dev/null
	measure bulk tine "$TINE" --repo "$X" hash-object -w --stdin-paths <"$WORK/paths" >"$WORK/tine.oids"
	rm -rf "$T_WRITTEN" && mv "$X" "$T_WRITTEN"
	want bulk || break
done
for t in git tine; do
	[ "$(wc -l <"$WORK/$t.oids")" = "$SCALE" ] || { say "$t wrote $(wc -l <"$WORK/$t.oids") objects, want $SCALE"; exit 1; }
done
# git repack -ad packs reachable objects only (unreachable loose ones stay
# loose), so git's blobs get a tree and a commit on a branch, as in any
# real git repository. Not timed. tine's repack packs every object.
awk '{ printf "100644 blob %s\tf%07d\n", $1, NR }' "$WORK/git.oids" |
	git -C "$G_LOOSE" mktree >"$WORK/git.tree"
git -C "$G_LOOSE" update-ref refs/heads/main \
	"$(git -C "$G_LOOSE" commit-tree -m bench "$(cat "$WORK/git.tree")")"
want bulk || rm -f "$RES"/bulk.*

# tine's own bulk write stores packs; fsck of loose objects needs a loose
# repository, written by the same code through the loose store.
rm -rf "$T_LOOSE" && "$TINE" init "$T_LOOSE" >/dev/null
"$BIN/mkloose" "$T_LOOSE" <"$WORK/paths" >/dev/null

# ---------------------------------------------------------------- fsck loose
if want fsck-loose; then
	say "== fsck of $SCALE loose objects"
	for i in $(seq "$RUNS"); do
		measure fsck-loose git git -C "$G_LOOSE" fsck --full >/dev/null
		measure fsck-loose tine "$TINE" --repo "$T_LOOSE" fsck >/dev/null
	done
fi

# ---------------------------------------------------------------- repack
# git packs its loose objects; tine consolidates the packs its bulk write
# left (as written), and, as a second row, packs the loose repository.
TINE_REPACK=()
if tine_has repack; then
	TINE_REPACK=(repack)
	if tine_help_mentions repack --delete; then TINE_REPACK+=(-d); fi
fi
say "== repack ($RUNS runs from fresh copies)"
for i in $(seq "$RUNS"); do
	fresh "$G_LOOSE" "$X"
	measure repack git git -C "$X" repack -ad -q
	rm -rf "$G_PACKED" && mv "$X" "$G_PACKED"
	if [ ${#TINE_REPACK[@]} -gt 0 ]; then
		fresh "$T_WRITTEN" "$X"
		measure repack tine "$TINE" --repo "$X" "${TINE_REPACK[@]}" >/dev/null
		rm -rf "$T_PACKED" && mv "$X" "$T_PACKED"
		if want repack; then
			fresh "$T_LOOSE" "$X"
			measure repack-loose tine "$TINE" --repo "$X" "${TINE_REPACK[@]}" >/dev/null
		fi
	fi
	want repack || break
done
if [ ${#TINE_REPACK[@]} -eq 0 ]; then
	skip repack tine "this tine has no repack verb"
	# Reading from packs still makes sense: the bulk write stored packs.
	rm -rf "$T_PACKED" && cp -a "$T_WRITTEN" "$T_PACKED"
fi
want repack || rm -f "$RES"/repack.* "$RES"/repack-loose.*
[ -f "$RES/repack.git" ] && cp "$RES/repack.git" "$RES/repack-loose.git"

# ---------------------------------------------------------------- fsck packed
if want fsck-packed; then
	say "== fsck of $SCALE packed objects"
	for i in $(seq "$RUNS"); do
		measure fsck-packed git git -C "$G_PACKED" fsck --full >/dev/null
		measure fsck-packed tine "$TINE" --repo "$T_PACKED" fsck >/dev/null
	done
fi

# ---------------------------------------------------------------- read all
if want read; then
	say "== read all $SCALE objects back from packs"
	if tine_has cat-object && tine_help_mentions cat-object --batch; then
		for i in $(seq "$RUNS"); do
			measure read git git -C "$G_PACKED" cat-file --batch <"$WORK/git.oids" >"$WORK/git.read"
			measure read tine "$TINE" --repo "$T_PACKED" cat-object --batch <"$WORK/tine.oids" >"$WORK/tine.read"
		done
		for t in git tine; do
			n="$(grep -c ' blob [0-9]*$' "$WORK/$t.read" || true)"
			[ "$n" = "$SCALE" ] || { say "$t read back $n objects, want $SCALE"; exit 1; }
		done
		rm -f "$WORK/git.read" "$WORK/tine.read"
	else
		skip read tine "this tine has no cat-object --batch"
	fi
fi
want read-shuffled && read_shuffled
fi # NEED_OBJECTS

# ---------------------------------------------------------------- ref stream
if want refs; then
	say "== $REFS ref updates in one transaction"
	rm -rf "$WORK/git-refs" "$WORK/tine-refs"
	git init -q "$WORK/git-refs"
	git -C "$WORK/git-refs" hash-object -w --stdin-paths <"$WORK/paths.refs" |
		awk '{ printf "create refs/tags/bench/%05d %s\n", NR, $1 }' >"$WORK/git.refstream"
	"$TINE" init "$WORK/tine-refs" >/dev/null
	"$TINE" --repo "$WORK/tine-refs" hash-object -w --stdin-paths <"$WORK/paths.refs" |
		awk '{ printf "create tags/bench/%05d %s\n", NR, $1 }' >"$WORK/tine.refstream"
	for i in $(seq "$RUNS"); do
		fresh "$WORK/git-refs" "$X"
		measure refs git git -C "$X" update-ref --stdin <"$WORK/git.refstream"
		[ "$(git -C "$X" for-each-ref | wc -l)" = "$REFS" ] || { say "git made the wrong number of refs"; exit 1; }
		# Durable git: ref files fsynced, every ref's update logged, as
		# tine fsyncs every ref and reflog.
		fresh "$WORK/git-refs" "$X"
		measure refs gitd git -c core.fsync=reference -c core.logAllRefUpdates=always -C "$X" update-ref --stdin <"$WORK/git.refstream"
		[ "$(ls "$X/.git/logs/refs/tags/bench" | wc -l)" = "$REFS" ] || { say "durable git logged the wrong number of refs"; exit 1; }
		fresh "$WORK/tine-refs" "$X"
		measure refs tine "$TINE" --repo "$X" update-ref --stdin <"$WORK/tine.refstream" >/dev/null
		[ "$("$TINE" --repo "$X" refs | wc -l)" = "$REFS" ] || { say "tine made the wrong number of refs"; exit 1; }
	done
fi

# ---------------------------------------------------------------- large file
if want large; then
	say "== hashing and storing a $LARGE_MB MiB file"
	LARGE="$WORK/large-$LARGE_MB.bin"
	[ -f "$LARGE" ] || "$BIN/gendata" large "$LARGE" "$LARGE_MB"
	cat "$LARGE" >/dev/null
	for i in $(seq "$RUNS"); do
		measure large raw "$BIN/rawb3" "$LARGE" >/dev/null
		rm -rf "$X" && "$TINE" init "$X" >/dev/null
		measure large tine "$TINE" --repo "$X" hash-object -w "$LARGE" >/dev/null
		if [ "$LARGE_GIT" = 1 ]; then
			rm -rf "$X" && git init -q "$X"
			measure large git git -C "$X" hash-object -w "$LARGE" >/dev/null
		fi
	done
	rm -rf "$X"
fi

# ---------------------------------------------------------------- history
# Porcelain on a long history: a tine run of EVENTS events (one tine
# import) and a fork at event EVENTS-100 with 100 more events, beside a git
# repository of EVENTS commits (git fast-import) and a branch forking at
# commit EVENTS-100 with 100 more commits. Event i and commit i carry the
# same ~1 KiB document (bench/gendata history).
if want history; then
	H="$WORK/history-$EVENTS" G_HIST="$WORK/git-history" T_HIST="$WORK/tine-history"
	say "== history: $EVENTS events, a fork of 100; $RUNS runs"
	if [ ! -f "$H/.done" ]; then
		rm -rf "$H"
		"$BIN/gendata" history "$H" "$EVENTS" 100
		touch "$H/.done"
	fi
	# The import rows also build the repositories the other rows read.
	for i in $(seq "$RUNS"); do
		rm -rf "$X" && git init -q -b main "$X"
		measure import git git -C "$X" fast-import --quiet <"$H/main.fi" >/dev/null
		rm -rf "$G_HIST" && mv "$X" "$G_HIST"
		rm -rf "$X" && "$TINE" init "$X" >/dev/null
		measure import tine "$TINE" --repo "$X" import "$H/main.jsonl" --ref heads/main >/dev/null
		rm -rf "$T_HIST" && mv "$X" "$T_HIST"
	done
	git -C "$G_HIST" fast-import --quiet <"$H/div.fi" >/dev/null
	# `git commit` below needs the index at main's tree, as after any
	# checkout; the work tree is checked out with it, as a git user's is
	# (so git's commit also refreshes an index of EVENTS files).
	git -C "$G_HIST" reset -q --hard main
	"$TINE" --repo "$T_HIST" fork heads/main --from heads/main~100 --ref heads/div >/dev/null
	"$TINE" --repo "$T_HIST" import "$H/div.jsonl" --ref heads/div >/dev/null
	n="$(git -C "$G_HIST" rev-list --count main)"
	[ "$n" = "$EVENTS" ] || { say "git history has $n commits, want $EVENTS"; exit 1; }
	n="$("$TINE" --repo "$T_HIST" log heads/main --oneline | wc -l)"
	[ "$n" = "$EVENTS" ] || { say "tine history has $n events, want $EVENTS"; exit 1; }
	for i in $(seq "$RUNS"); do
		measure log git git -C "$G_HIST" log -n 20 main >/dev/null
		measure log tine "$TINE" --repo "$T_HIST" log -n 20 heads/main >/dev/null
		# git diff of the two tips: 200 files (100 each side), the nearest
		# to tine's diff, which reads both runs' divergent events.
		measure diff git git -C "$G_HIST" diff main div >/dev/null
		measure diff tine "$TINE" --repo "$T_HIST" diff heads/main heads/div >/dev/null
		fresh "$G_HIST" "$X"
		measure record git git -C "$X" commit --allow-empty -q -m x
		[ "$(git -C "$X" rev-list --count main)" = "$((EVENTS + 1))" ] || { say "git commit did not add a commit"; exit 1; }
		fresh "$T_HIST" "$X"
		measure record tine "$TINE" --repo "$X" record --ref heads/main -- true >/dev/null
		[ "$("$TINE" --repo "$X" log heads/main --oneline | wc -l)" = "$((EVENTS + 1))" ] || { say "tine record did not append an event"; exit 1; }
	done
	rm -rf "$X"
fi

# ---------------------------------------------------------------- report
# median FILE: the median seconds, peak RSS (KiB) and CPU seconds of a
# result file, "FAIL" if any run failed, "SKIP ..." if not measured.
median() {
	local f="$1"
	[ -f "$f" ] || { echo "-"; return; }
	if grep -q '^SKIP' "$f"; then echo "skip"; return; fi
	if grep -q '^FAIL' "$f"; then echo "FAIL"; return; fi
	printf '%s %s %s\n' "$(cut -d' ' -f1 "$f" | mid)" "$(cut -d' ' -f2 "$f" | mid)" "$(cut -d' ' -f3 "$f" | mid)"
}

# mid: the median of the numbers on stdin ("-" if they are not numbers).
mid() {
	sort -g | awk '$1 !~ /^[0-9.]+$/ { bad = 1 } { v[NR] = $1 } END {
		if (bad || NR == 0) { print "-"; exit }
		printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

machine() {
	echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(awk '/MemTotal/ { printf "%.1f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
	echo "storage: $(df -PT "$WORK" | awk 'NR == 2 { print $2 " on " $1 }'); kernel $(uname -r)"
	echo "software: $(go version | cut -d' ' -f3-), $(git --version), tine $("$TINE" version 2>/dev/null | head -n 1)"
	local data=""
	[ "$NEED_DATA" = 1 ] && data="$SCALE JSON files of ~1 KiB ($(du -sk "$DATA" | cut -f1) KiB on disk), $REFS refs"
	want large && data="${data:+$data, }a $LARGE_MB MiB file"
	want history && data="${data:+$data, }a history of $EVENTS events and a fork of 100"
	echo "data: $data; medians of $RUNS runs"
}

# mib KIB: KiB as MiB with one decimal, or the input unchanged.
mib() { [[ "$1" =~ ^[0-9.]+$ ]] && awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }' || echo "$1"; }

dashes() { printf '%*s' "$1" '' | tr ' ' -; }

row() { # row LABEL CASE GIT_TOOL TARGET
	local label="$1" c="$2" gt="$3" target="$4" g t gs gr gc ts tr tc ratio cratio=- verdict
	g="$(median "$RES/$c.$gt")"
	t="$(median "$RES/$c.tine")"
	[ "$g" = "-" ] && [ "$t" = "-" ] && return
	read -r gs gr gc <<<"$g"
	read -r ts tr tc <<<"$t"
	if [[ "${gc:-}" =~ ^[0-9.]+$ && "${tc:-}" =~ ^[0-9.]+$ ]]; then
		cratio="$(awk -v a="$tc" -v b="$gc" 'BEGIN { printf (b > 0 ? "%.3f" : "-"), a / b }')"
	fi
	gr="$(mib "${gr:--}")" tr="$(mib "${tr:--}")"
	ratio=-
	verdict=-
	if [[ "$gs" =~ ^[0-9.]+$ && "$ts" =~ ^[0-9.]+$ ]]; then
		ratio="$(awk -v a="$ts" -v b="$gs" 'BEGIN { printf (b > 0 ? "%.3f" : "-"), a / b }')"
		if [ "$target" != "-" ] && [ "$ratio" != "-" ]; then
			verdict="$(awk -v r="$ratio" -v t="$target" 'BEGIN { print (r <= t) ? "met" : "MISSED" }')"
		fi
	fi
	printf '| %-37s | %8s | %8s | %8s | %8s | %8s | %8s | %6s | %-6s |\n' "$label" "$gs" "$ts" "$ratio" "${gr:--}" "${tr:--}" "$cratio" "${target/#-/}" "$verdict"
}

{
	echo
	echo "tine vs git: medians of $RUNS runs (wall seconds; peak RSS in MiB; CPU t/g = tine/git user+sys CPU time)"
	machine
	echo
	printf '| %-37s | %8s | %8s | %8s | %8s | %8s | %8s | %6s | %-6s |\n' operation "git s" "tine s" tine/git "git MiB" "tine MiB" "CPU t/g" target result
	printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' "$(dashes 39)" "$(dashes 10)" "$(dashes 10)" "$(dashes 10)" "$(dashes 10)" "$(dashes 10)" "$(dashes 10)" "$(dashes 8)" "$(dashes 8)"
	row "bulk write ($SCALE x ~1 KiB)" bulk git 0.1
	row "fsck, loose" fsck-loose git -
	row "fsck, packed" fsck-packed git 0.7
	row "read all from packs" read git 1.0
	row "random-order reads (shuffled --batch)" read-shuffled git 1.0
	row "repack (tine: its packs as written)" repack git 0.5
	row "repack (tine: from loose)" repack-loose git -
	row "$REFS refs, one txn, git defaults" refs git -
	row "$REFS refs, one txn, durable git" refs gitd 1.0
	row "log -n 20, $EVENTS-event run" log git -
	row "diff, fork of 100 at $EVENTS" diff git -
	row "record true onto $EVENTS vs commit" record git -
	row "import $EVENTS events vs fast-import" import git -
	if [ -f "$RES/large.raw" ]; then
		row "$LARGE_MB MiB file: tine vs raw BLAKE3" large raw -
		[ -f "$RES/large.git" ] && row "$LARGE_MB MiB file: tine vs git" large git -
		r="$(median "$RES/large.raw")" t="$(median "$RES/large.tine")"
		read -r rs _ <<<"$r"
		read -r ts trss _ <<<"$t"
		trss="$(mib "${trss:--}")"
		echo
		if [[ "$rs" =~ ^[0-9.]+$ && "$ts" =~ ^[0-9.]+$ ]]; then
			awk -v mb="$LARGE_MB" -v r="$rs" -v t="$ts" -v rss="$trss" 'BEGIN {
				frac = r / t
				printf "large file: raw BLAKE3 %.0f MiB/s, tine hash-object -w %.0f MiB/s = %.0f%% of raw (target >= 80%%: %s); tine peak RSS %s MiB (target < 64: %s)\n",
					mb / r, mb / t, 100 * frac, (frac >= 0.8 ? "met" : "MISSED"), rss, (rss != "-" && rss + 0 < 64 ? "met" : "MISSED") }'
		else
			echo "large file: tine hash-object -w of the $LARGE_MB MiB file failed: $(tail -n 1 "$LOG/large.tine.err" 2>/dev/null)"
		fi
	fi
	if [ "$HAVE_TIME" = 0 ]; then echo "(peak RSS not measured: /usr/bin/time is missing)"; fi
}
