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
#   BENCH_EVENTS    comma list of history lengths for the history case
#                   (default 1000,10000,30000; each at least 101; tine
#                   imports a run longer than 10000 events in batches)
#   BENCH_LOOP      iterations of the loop case (default 1000)
#   BENCH_CAS       single-process CAS updates of the cas case (default 200)
#   BENCH_REMOTE_EVENTS  events of the run the remote case pushes and fetches
#                   (default 10000; 101 to 10000, one tine import)
#   BENCH_ONLY      comma list of cases to run: bulk,fsck-loose,repack,
#                   fsck-packed,read,read-shuffled,refs,large,history,cas,loop,
#                   remote
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
EVENTS="${BENCH_EVENTS:-1000,10000,30000}"
LOOP_ITERS="${BENCH_LOOP:-1000}"
CAS_N="${BENCH_CAS:-200}"
REMOTE_EVENTS="${BENCH_REMOTE_EVENTS:-10000}"
ONLY="${BENCH_ONLY:-bulk,fsck-loose,repack,fsck-packed,read,read-shuffled,refs,large,history,cas,loop,remote}"
REFS=$((SCALE < 1000 ? SCALE : 1000))
SRC="$(cd "$(dirname "$0")/.." && pwd)"
# The record row times the append: tine record's code state capture (git
# calls on whatever work tree the bench runs in) is left out.
export TINE_CAPTURE=off
# The history case forks 100 events before the tip, so a history has more
# than 100 events; `tine import` takes at most 10000 a call, so a longer
# run is imported in batches onto the same ref.
IMPORT_BATCH=10000
EVENT_SCALES=()
IFS=', ' read -r -a EVENT_SCALES <<<"$EVENTS"
for n in "${EVENT_SCALES[@]}"; do
	if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -le 100 ]; then
		printf 'bench/run.sh: BENCH_EVENTS must list counts above 100, not %s\n' "$EVENTS" >&2
		exit 2
	fi
done
if ! [[ "$REMOTE_EVENTS" =~ ^[0-9]+$ ]] || [ "$REMOTE_EVENTS" -le 100 ] || [ "$REMOTE_EVENTS" -gt 10000 ]; then
	printf 'bench/run.sh: BENCH_REMOTE_EVENTS must be a count from 101 to 10000, not %s\n' "$REMOTE_EVENTS" >&2
	exit 2
fi
for v in "$LOOP_ITERS" "$CAS_N"; do
	if ! [[ "$v" =~ ^[1-9][0-9]*$ ]]; then
		printf 'bench/run.sh: BENCH_LOOP and BENCH_CAS must be positive counts, not %s\n' "$v" >&2
		exit 2
	fi
done

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
	# Static, as README's Install builds it: a cgo build is dynamically
	# linked and pays the C loader and libc's start on every process.
	(cd "$SRC" && CGO_ENABLED=0 go build -o "$BIN/tine" ./cmd/tine)
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
# Both tools write packs in the second comparison: git fast-import reads
# the same bytes as one stream (made beforehand, not timed: git is spared
# opening the 100,000 files tine reads), writes one pack and, with its
# defaults (core.fsync), fsyncs the pack and its index, as tine fsyncs
# its packs (tine also fsyncs their directory).
say "== bulk write: $SCALE objects, $RUNS runs"
want bulk && "$BIN/gendata" blobs "$WORK/paths" "$WORK/blobs.fi"
for i in $(seq "$RUNS"); do
	rm -rf "$X" && git init -q "$X"
	measure bulk git git -C "$X" hash-object -w --stdin-paths <"$WORK/paths" >"$WORK/git.oids"
	rm -rf "$G_LOOSE" && mv "$X" "$G_LOOSE"
	rm -rf "$X" && "$TINE" init "$X" >/dev/null
	measure bulk tine "$TINE" --repo "$X" hash-object -w --stdin-paths <"$WORK/paths" >"$WORK/tine.oids"
	rm -rf "$T_WRITTEN" && mv "$X" "$T_WRITTEN"
	want bulk || break
	rm -rf "$X" && git init -q "$X"
	measure bulk-fi git git -C "$X" fast-import --quiet <"$WORK/blobs.fi"
	fi_n="$(git -C "$X" count-objects -v | awk '$1 == "count:" || $1 == "in-pack:" { n += $2 } END { print n }')"
	[ "$fi_n" = "$SCALE" ] || { say "git fast-import stored $fi_n objects, want $SCALE"; exit 1; }
done
for t in git tine; do
	[ "$(wc -l <"$WORK/$t.oids")" = "$SCALE" ] || { say "$t wrote $(wc -l <"$WORK/$t.oids") objects, want $SCALE"; exit 1; }
done
# The fast-import row pairs the same tine runs with git's fast-import runs.
want bulk && cp "$RES/bulk.tine" "$RES/bulk-fi.tine"
# git repack -ad packs reachable objects only (unreachable loose ones stay
# loose), so git's blobs get a tree and a commit on a branch, as in any
# real git repository. Not timed. tine's repack packs every object.
awk '{ printf "100644 blob %s\tf%07d\n", $1, NR }' "$WORK/git.oids" |
	git -C "$G_LOOSE" mktree >"$WORK/git.tree"
git -C "$G_LOOSE" update-ref refs/heads/main \
	"$(git -C "$G_LOOSE" commit-tree -m bench "$(cat "$WORK/git.tree")")"
want bulk || rm -f "$RES"/bulk.* "$RES"/bulk-fi.*

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
# Porcelain on a long history, once per BENCH_EVENTS scale N: a tine run of
# N events (`tine import`, in batches of IMPORT_BATCH onto the same ref) and
# a fork at event N-100 with 100 more events, beside a git repository of N
# commits (git fast-import) and a branch forking at commit N-100 with 100
# more commits. Event i and commit i carry the same ~1 KiB document
# (bench/gendata history). For the graph, 49 further forks of 2 events each
# (50 forks in all), beside 49 further git branches of 2 commits each.
# Results go to CASE-N.TOOL.

# import_batches.sh TINE REPO JSONL REF: imports JSONL onto REF, at most
# IMPORT_BATCH lines a `tine import` (the chunks JSONL.part-* are split
# beforehand): a script, so that measure times and sizes all its batches.
cat >"$BIN/import_batches.sh" <<'SCRIPT'
set -e
for f in "$3".part-*; do "$1" --repo "$2" import "$f" --ref "$4" >/dev/null; done
SCRIPT

# history_forks N GIT TINE: the 49 further forks of the graph rows, fork i
# at event (commit) i*N/50 from the tip. Not timed.
history_forks() {
	local n="$1" g="$2" t="$3" i k
	: >"$WORK/forks.fi"
	# Events by position from the tip (REV~N stops at 10000).
	"$TINE" --repo "$t" log heads/main --oneline | awk '{ print $1 }' >"$WORK/main.events"
	for i in $(seq 49); do
		k=$((i * n / 50))
		printf 'commit refs/heads/g%02d\ncommitter bench <bench@example.invalid> %d +0000\ndata 2\ng\nfrom refs/heads/main~%d\nM 100644 inline g%02d/a\ndata 2\na\n\n' "$i" $((1700000000 + n + 2 * i)) "$k" "$i" >>"$WORK/forks.fi"
		printf 'commit refs/heads/g%02d\ncommitter bench <bench@example.invalid> %d +0000\ndata 2\ng\nM 100644 inline g%02d/b\ndata 2\nb\n\n' "$i" $((1700000001 + n + 2 * i)) "$i" >>"$WORK/forks.fi"
		"$TINE" --repo "$t" fork heads/main --from "$(sed -n "$((k + 1))p" "$WORK/main.events")" --ref "heads/g$(printf %02d "$i")" >/dev/null
		printf '{"kind":"tool","tool":"g","seq":%d}\n{"kind":"tool","tool":"g","seq":%d}\n' "$i" "$i" >"$WORK/fork.jsonl"
		"$TINE" --repo "$t" import "$WORK/fork.jsonl" --ref "heads/g$(printf %02d "$i")" >/dev/null
	done
	git -C "$g" fast-import --quiet <"$WORK/forks.fi" >/dev/null
}

history_case() {
	local n="$1" H="$WORK/history-$1" G_HIST="$WORK/git-history" T_HIST="$WORK/tine-history" i c
	say "== history: $n events, a fork of 100, 49 more forks of 2; $RUNS runs"
	if [ ! -f "$H/.done-batched" ]; then
		rm -rf "$H"
		"$BIN/gendata" history "$H" "$n" 100
		split -l "$IMPORT_BATCH" -a 3 "$H/main.jsonl" "$H/main.jsonl.part-"
		touch "$H/.done-batched"
	fi
	# The import rows also build the repositories the other rows read.
	for i in $(seq "$RUNS"); do
		rm -rf "$X" && git init -q -b main "$X"
		measure "import-$n" git git -C "$X" fast-import --quiet <"$H/main.fi" >/dev/null
		rm -rf "$G_HIST" && mv "$X" "$G_HIST"
		rm -rf "$X" && "$TINE" init "$X" >/dev/null
		measure "import-$n" tine bash "$BIN/import_batches.sh" "$TINE" "$X" "$H/main.jsonl" heads/main
		rm -rf "$T_HIST" && mv "$X" "$T_HIST"
	done
	git -C "$G_HIST" fast-import --quiet <"$H/div.fi" >/dev/null
	# `git commit` below needs the index at main's tree, as after any
	# checkout; the work tree is checked out with it, as a git user's is
	# (so git's commit also refreshes an index of N files).
	git -C "$G_HIST" reset -q --hard main
	"$TINE" --repo "$T_HIST" fork heads/main --from heads/main~100 --ref heads/div >/dev/null
	"$TINE" --repo "$T_HIST" import "$H/div.jsonl" --ref heads/div >/dev/null
	c="$(git -C "$G_HIST" rev-list --count main)"
	[ "$c" = "$n" ] || { say "git history has $c commits, want $n"; exit 1; }
	c="$("$TINE" --repo "$T_HIST" log heads/main --oneline | wc -l)"
	[ "$c" = "$n" ] || { say "tine history has $c events, want $n"; exit 1; }
	for i in $(seq "$RUNS"); do
		measure "log-$n" git git -C "$G_HIST" log -n 20 main >/dev/null
		measure "log-$n" tine "$TINE" --repo "$T_HIST" log -n 20 heads/main >/dev/null
		# git diff of the two tips: 200 files (100 each side), the nearest
		# to tine's diff, which reads both runs' divergent events.
		measure "diff-$n" git git -C "$G_HIST" diff main div >/dev/null
		measure "diff-$n" tine "$TINE" --repo "$T_HIST" diff heads/main heads/div >/dev/null
		fresh "$G_HIST" "$X"
		measure "record-$n" git git -C "$X" commit --allow-empty -q -m x
		[ "$(git -C "$X" rev-list --count main)" = "$((n + 1))" ] || { say "git commit did not add a commit"; exit 1; }
		fresh "$T_HIST" "$X"
		measure "record-$n" tine "$TINE" --repo "$X" record --ref heads/main -- true >/dev/null
		[ "$("$TINE" --repo "$X" log heads/main --oneline | wc -l)" = "$((n + 1))" ] || { say "tine record did not append an event"; exit 1; }
	done
	history_forks "$n" "$G_HIST" "$T_HIST"
	c="$(git -C "$G_HIST" log --all --oneline | wc -l)"
	[ "$c" = "$((n + 198))" ] || { say "git graph has $c commits, want $((n + 198))"; exit 1; }
	c="$("$TINE" --repo "$T_HIST" log --all --oneline | wc -l)"
	[ "$c" = "$((n + 198))" ] || { say "tine graph has $c events, want $((n + 198))"; exit 1; }
	for i in $(seq "$RUNS"); do
		measure "graph-$n" git git -C "$G_HIST" log --graph --all >/dev/null
		measure "graph-$n" tine "$TINE" --repo "$T_HIST" log --graph --all >/dev/null
	done
	"$TINE" --repo "$T_HIST" fsck >/dev/null || { say "fsck of the $n-event tine history failed"; exit 1; }
	rm -rf "$X"
}

if want history; then
	for n in "${EVENT_SCALES[@]}"; do history_case "$n"; done
fi

# ---------------------------------------------------------------- cas
# CAS_N single-ref compare-and-swap updates, one process each (process
# start included): `tine update-ref tags/cas NEW --old OLD` against
# `git update-ref refs/tags/cas NEW OLD`, git with its defaults and, as the
# durable baseline, with core.fsync=reference and every ref update logged
# (tine fsyncs every ref and reflog). Each tool runs a script of CAS_N
# literal commands, so the shell's cost is the same for all.
if want cas; then
	say "== $CAS_N single-process CAS updates; $RUNS runs"
	mkdir -p "$WORK/cas"
	for i in $(seq 0 "$CAS_N"); do echo "cas $i" >"$WORK/cas/$i"; done
	rm -rf "$WORK/git-cas" "$WORK/tine-cas"
	git init -q "$WORK/git-cas"
	"$TINE" init "$WORK/tine-cas" >/dev/null
	for i in $(seq 0 "$CAS_N"); do echo "$WORK/cas/$i"; done >"$WORK/cas.paths"
	git -C "$WORK/git-cas" hash-object -w --stdin-paths <"$WORK/cas.paths" >"$WORK/cas.git.oids"
	"$TINE" --repo "$WORK/tine-cas" hash-object -w --stdin-paths <"$WORK/cas.paths" >"$WORK/cas.tine.oids"
	git -C "$WORK/git-cas" update-ref refs/tags/cas "$(head -n 1 "$WORK/cas.git.oids")"
	"$TINE" --repo "$WORK/tine-cas" update-ref tags/cas "$(head -n 1 "$WORK/cas.tine.oids")" --create >/dev/null
	awk -v g="$(command -v git)" 'NR > 1 { printf "%s -C \"$1\" update-ref refs/tags/cas %s %s\n", g, $1, prev } { prev = $1 }' \
		"$WORK/cas.git.oids" >"$WORK/cas.git.sh"
	awk -v g="$(command -v git)" 'NR > 1 { printf "%s -c core.fsync=reference -c core.logAllRefUpdates=always -C \"$1\" update-ref refs/tags/cas %s %s\n", g, $1, prev } { prev = $1 }' \
		"$WORK/cas.git.oids" >"$WORK/cas.gitd.sh"
	awk -v t="$TINE" 'NR > 1 { printf "%s --repo \"$1\" update-ref tags/cas %s --old %s >/dev/null\n", t, $1, prev } { prev = $1 }' \
		"$WORK/cas.tine.oids" >"$WORK/cas.tine.sh"
	for i in $(seq "$RUNS"); do
		fresh "$WORK/git-cas" "$X"
		measure cas git bash -e "$WORK/cas.git.sh" "$X"
		[ "$(git -C "$X" rev-parse refs/tags/cas)" = "$(tail -n 1 "$WORK/cas.git.oids")" ] || { say "git CAS ended elsewhere"; exit 1; }
		fresh "$WORK/git-cas" "$X"
		measure cas gitd bash -e "$WORK/cas.gitd.sh" "$X"
		[ "$(wc -l <"$X/.git/logs/refs/tags/cas")" = "$CAS_N" ] || { say "durable git logged the wrong number of updates"; exit 1; }
		fresh "$WORK/tine-cas" "$X"
		measure cas tine bash -e "$WORK/cas.tine.sh" "$X"
		[ "$("$TINE" --repo "$X" rev-parse tags/cas)" = "$(tail -n 1 "$WORK/cas.tine.oids")" ] || { say "tine CAS ended elsewhere"; exit 1; }
	done
	rm -rf "$X"
fi

# ---------------------------------------------------------------- loop
# A LOOP_ITERS-iteration loop (tine only: git has no equivalent): the
# numeric strategy at width 2 with a target it never reaches, so every step
# forks a branch (max-branches 6 prunes the rest): LOOP_ITERS branch runs
# and refs. Then `tine loop show` and `tine log --all` of that repository.
# Each run gets a new directory, and all are removed after the case: on
# ext4 without a journal the inode allocator skips inodes freed in the last
# minutes, so a loop started right after removing the previous run's ~4,000
# files paid about a millisecond per file it created (2.3 s instead of 1.4
# s for 1,000 iterations), a cost of the harness, not of the loop.
if want loop; then
	say "== loop: $LOOP_ITERS iterations; $RUNS runs"
	for i in $(seq "$RUNS"); do
		L="$WORK/loop-$i"
		rm -rf "$L" && "$TINE" init "$L" >/dev/null
		measure loop-run tine "$TINE" --repo "$L" loop run --strategy numeric --target 1000000 --width 2 \
			--max-steps "$LOOP_ITERS" --name bench --json >"$WORK/loop.json"
		grep -q "\"total_steps\": *$LOOP_ITERS," "$WORK/loop.json" || { say "the loop did not run $LOOP_ITERS steps"; exit 1; }
		measure loop-show tine "$TINE" --repo "$L" loop show bench >/dev/null
		measure loop-logall tine "$TINE" --repo "$L" log --all >/dev/null
	done
	"$TINE" --repo "$L" fsck >/dev/null || { say "fsck of the loop repository failed"; exit 1; }
	for i in $(seq "$RUNS"); do rm -rf "$WORK/loop-$i"; done
fi

# ---------------------------------------------------------------- remote
# Moving a run of BENCH_REMOTE_EVENTS events (default 10,000; one tine import)
# to and from another repository, beside git moving the same history
# (git fast-import) over a local path: push into a fresh empty repository
# (tine init / git init --bare) and fetch into a fresh empty one (git
# fetch from the path). tine moves it twice: over a path (the file
# transport) and over HTTP to a tine serve on 127.0.0.1, started fresh
# (empty root, untimed) for every push; each HTTP fetch reads the tenant
# the push before it filled. The same git figures stand beside both. The
# HTTP rows' CPU time is the client's plus the server's during the command.
if want remote; then
	H="$WORK/remote-history-$REMOTE_EVENTS" G_REM="$WORK/git-remote" T_REM="$WORK/tine-remote"
	say "== remote: push and fetch of a $REMOTE_EVENTS-event run (path and HTTP) vs git; $RUNS runs"
	if [ ! -f "$H/.done" ]; then
		rm -rf "$H"
		"$BIN/gendata" history "$H" "$REMOTE_EVENTS" 100
		touch "$H/.done"
	fi
	rm -rf "$G_REM" "$T_REM"
	git init -q -b main "$G_REM" && git -C "$G_REM" fast-import --quiet <"$H/main.fi" >/dev/null
	"$TINE" init "$T_REM" >/dev/null && "$TINE" --repo "$T_REM" import "$H/main.jsonl" --ref heads/main >/dev/null
	export BENCH_SERVE_TOKEN="bench-token-$$-0123456789abcdef"
	SERVE_PID=""
	stop_serve() {
		if [ -n "$SERVE_PID" ]; then kill -INT "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; fi
		SERVE_PID=""
	}
	start_serve() { # a fresh tine serve on an empty root; sets URL
		stop_serve
		rm -rf "$WORK/serve" "$WORK/serve.url"
		TINE_REMOTE_TOKEN="$BENCH_SERVE_TOKEN" "$TINE" serve --root "$WORK/serve" --addr 127.0.0.1:0 --tenant bench \
			--ready-file "$WORK/serve.url" >"$LOG/serve.out" 2>>"$LOG/serve.err" &
		SERVE_PID=$!
		for _ in $(seq 600); do [ -s "$WORK/serve.url" ] && break; sleep 0.1; done
		[ -s "$WORK/serve.url" ] || { say "tine serve did not start: $(tail -n 2 "$LOG/serve.err")"; exit 1; }
		URL="$(cat "$WORK/serve.url")/v1/tenants/bench"
	}
	trap 'stop_serve; [ "${BENCH_KEEP:-0}" = 1 ] || [ -n "${BENCH_DIR:-}" ] || rm -rf "$WORK"' EXIT
	TICKS="$(getconf CLK_TCK)"
	serve_cpu() { awk -v t="$TICKS" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$SERVE_PID/stat"; }
	# measure_http CASE CMD...: measure, then add the server's CPU time
	# during the command to the row's CPU figure, so CPU t/g counts both
	# ends of the HTTP transfer.
	measure_http() {
		local c="$1" c0 c1
		shift
		c0="$(serve_cpu)"
		measure "$c" tine "$@"
		c1="$(serve_cpu)"
		awk -v d="$(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }')" 'NR == n && $3 ~ /^[0-9.]+$/ { $3 = sprintf("%.2f", $3 + d) } { print }' \
			n="$(wc -l <"$RES/$c.tine")" "$RES/$c.tine" >"$RES/$c.tine.tmp" && mv "$RES/$c.tine.tmp" "$RES/$c.tine"
	}
	D="$WORK/remote-dst"
	for i in $(seq "$RUNS"); do
		rm -rf "$D" && git init -q --bare "$D"
		measure push git git -C "$G_REM" push -q "$D" main
		rm -rf "$D" && "$TINE" init "$D" >/dev/null
		# A new remote each run: no tracking ref from the run before.
		"$TINE" --repo "$T_REM" remote remove path >/dev/null 2>&1 || true
		"$TINE" --repo "$T_REM" remote add path "$D" >/dev/null
		measure push tine "$TINE" --repo "$T_REM" push path main >/dev/null
		[ "$("$TINE" --repo "$D" rev-parse heads/main)" = "$("$TINE" --repo "$T_REM" rev-parse heads/main)" ] || { say "tine push did not create heads/main"; exit 1; }
		rm -rf "$X" && git init -q -b main "$X"
		measure fetch git git -C "$X" fetch -q "$G_REM" main
		rm -rf "$X" && "$TINE" init "$X" >/dev/null && "$TINE" --repo "$X" remote add src "$T_REM" >/dev/null
		measure fetch tine "$TINE" --repo "$X" fetch src main >/dev/null
		n="$("$TINE" --repo "$X" log remotes/src/main --oneline | wc -l)"
		[ "$n" = "$REMOTE_EVENTS" ] || { say "tine fetch brought $n events, want $REMOTE_EVENTS"; exit 1; }
		start_serve
		"$TINE" --repo "$T_REM" remote remove http >/dev/null 2>&1 || true
		"$TINE" --repo "$T_REM" remote add http "$URL" --token-env BENCH_SERVE_TOKEN >/dev/null
		measure_http pushhttp "$TINE" --repo "$T_REM" push http main >/dev/null
		rm -rf "$X" && "$TINE" init "$X" >/dev/null
		"$TINE" --repo "$X" remote add http "$URL" --token-env BENCH_SERVE_TOKEN >/dev/null
		measure_http fetchhttp "$TINE" --repo "$X" fetch http main >/dev/null
		n="$("$TINE" --repo "$X" log remotes/http/main --oneline | wc -l)"
		[ "$n" = "$REMOTE_EVENTS" ] || { say "tine fetch over HTTP brought $n events, want $REMOTE_EVENTS"; exit 1; }
	done
	stop_serve
	cp "$RES/push.git" "$RES/pushhttp.git"
	cp "$RES/fetch.git" "$RES/fetchhttp.git"
	rm -rf "$X" "$D"
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
	want history && data="${data:+$data, }histories of ${EVENT_SCALES[*]} events with a fork of 100 and 49 of 2"
	want cas && data="${data:+$data, }$CAS_N CAS processes"
	want loop && data="${data:+$data, }a $LOOP_ITERS-iteration loop"
	want remote && data="${data:+$data, }a $REMOTE_EVENTS-event run pushed and fetched"
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

# history_rows: the history case's rows, scale by scale.
history_rows() {
	local n
	for n in "${EVENT_SCALES[@]}"; do
		row "log -n 20, $n-event run" "log-$n" git 2
		row "diff, fork of 100 at $n" "diff-$n" git 2
		row "record true onto $n vs commit" "record-$n" git 1.5
		row "import $n events vs fast-import" "import-$n" git 1.0
		row "log --graph --all, 50 forks at $n" "graph-$n" git 1.5
	done
}

# cas_rows: the cas case's rows.
cas_rows() {
	row "$CAS_N CAS processes, git defaults" cas git 2
	row "$CAS_N CAS processes, durable git" cas gitd 2
}

# loop_rows: the loop case's rows (tine only) and its targets: at least
# 500 iterations/s; loop show and log --all under 1 s and 100 MiB.
loop_rows() {
	local r t s rss cpu verdict
	[ -f "$RES/loop-run.tine" ] || return 0
	row "loop run, $LOOP_ITERS iterations (tine only)" loop-run none -
	row "loop show of that loop (tine only)" loop-show none -
	row "log --all of that loop (tine only)" loop-logall none -
	LOOP_SUMMARY=""
	read -r t _ cpu <<<"$(median "$RES/loop-run.tine")"
	if [[ "$t" =~ ^[0-9.]+$ ]]; then
		LOOP_SUMMARY="$(awk -v n="$LOOP_ITERS" -v t="$t" -v c="${cpu:--}" 'BEGIN { printf "loop: %d iterations in %.3f s (CPU %s s) = %.0f iterations/s (target >= 500: %s)", n, t, c, n / t, (n / t >= 500 ? "met" : "MISSED") }')"
	fi
	for r in loop-show loop-logall; do
		read -r s rss cpu <<<"$(median "$RES/$r.tine")"
		[[ "$s" =~ ^[0-9.]+$ ]] || continue
		rss="$(mib "${rss:--}")"
		verdict="$(awk -v s="$s" -v m="$rss" 'BEGIN { print (s < 1 && m != "-" && m + 0 < 100) ? "met" : "MISSED" }')"
		LOOP_SUMMARY="$LOOP_SUMMARY; ${r#loop-} $s s (CPU ${cpu:--} s), $rss MiB (target < 1 s, < 100 MiB: $verdict)"
	done
}

{
	echo
	echo "tine vs git: medians of $RUNS runs (wall seconds; peak RSS in MiB; CPU t/g = tine/git user+sys CPU time)"
	machine
	echo
	printf '| %-37s | %8s | %8s | %8s | %8s | %8s | %8s | %6s | %-6s |\n' operation "git s" "tine s" tine/git "git MiB" "tine MiB" "CPU t/g" target result
	printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' "$(dashes 39)" "$(dashes 10)" "$(dashes 10)" "$(dashes 10)" "$(dashes 10)" "$(dashes 10)" "$(dashes 10)" "$(dashes 8)" "$(dashes 8)"
	row "bulk write ($SCALE x ~1 KiB)" bulk git 0.1
	row "bulk write vs git fast-import" bulk-fi git 0.5
	row "fsck, loose" fsck-loose git -
	row "fsck, packed" fsck-packed git 0.7
	row "read all from packs" read git 1.0
	row "random-order reads (shuffled --batch)" read-shuffled git 1.0
	row "repack (tine: its packs as written)" repack git 0.5
	row "repack (tine: from loose)" repack-loose git -
	row "$REFS refs, one txn, git defaults" refs git -
	row "$REFS refs, one txn, durable git" refs gitd 1.0
	history_rows
	cas_rows
	loop_rows
	row "push $REMOTE_EVENTS-event run, path" push git 1.0
	row "push $REMOTE_EVENTS-event run, HTTP" pushhttp git 1.0
	row "fetch $REMOTE_EVENTS-event run, path" fetch git 1.0
	row "fetch $REMOTE_EVENTS-event run, HTTP" fetchhttp git 1.0
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
	if [ -n "${LOOP_SUMMARY:-}" ]; then
		echo
		echo "${LOOP_SUMMARY/logall/log --all}"
	fi
	if [ "$HAVE_TIME" = 0 ]; then echo "(peak RSS not measured: /usr/bin/time is missing)"; fi
}
