// Package runs holds the run model and the run verbs, the bottom room of
// tine's workflows: loading runs, naming them by revision, appending,
// recording and importing events, listing, showing, diffing, forking,
// resuming, replaying and tagging, with the blob specs, redaction helpers
// and run graph they share. It builds on package plumbing, writes objects
// only through Repo.WriteValidated (and Repo.WriteAppend, its form for
// appends) and refs only through refs.Store, and
// never prints or exits (cmd/tine renders the result structs).
//
// The other workflow rooms sit on this one and never the other way round
// (internal/archtest enforces it): porcelain/trust and porcelain/loops import
// runs, porcelain/gates imports runs and trust, porcelain/demo imports them
// all. What they share from here is exported for them: the event encoders
// (Str, Number, OIDField, StringsValue, TimeValue, UnixSeconds, OIDValues),
// the ref-moving write (Commit, WritableRef, RefreshIndex, over plumbing's
// one write path Repo.WriteValidated), the run listing (ListRuns,
// LoadEvents) and the run constructors (RunFromObject, ShowRun).
//
// # What a function needs of the repository
//
// A function that only reads takes the small interfaces it reads through:
// objects.Getter for objects, RefLister (List) for a listing and Reflogger
// (Reflog) for history; *refs.Store and the repository's object store
// satisfy them. ListRuns, LoadRun and LoadEvents are such readers. The
// verbs keep *plumbing.Repo because they need the whole handle: a write
// goes through Repo.WriteValidated under the writers' lock, moves a ref by
// compare-and-swap and refreshes the derived catalog (Commit; the verbs
// that append go through Repo.WriteAppend instead, which checks only the
// new events and the run-graph delta against the run object they extend
// and reads none of its older events, build the next run by splicing the
// head's bytes (head.go), and leave the catalog to its next reader:
// commitAppend, afterAppend); revisions resolve through the repository's resolver
// (ResolveRun, Show, Tag, Fork); record also needs the repository root for
// its recovery file and ref guards.
//
// # Reading history costs what it shows
//
// log, diff and log --all decide from the run objects' event lists which
// events they need and read only those (lazy.go): log -n N the N newest,
// diff the divergent events and each shared one once, log --all each event
// of the union once however many runs hold it. A run read that way has no
// Events (EventsLoaded is false); LoadRun and LoadEvents read them all.
//
// # Runs as commits (ARCHITECTURE §4)
//
// A run object is an immutable snapshot of an event graph. Appending an event
// writes, in this order, the blobs it links, the event, and a new run object
// whose events are the old run's events plus the new one; only then does the
// ref move, by compare-and-swap from the value the snapshot was built on. A
// concurrent writer that moved the ref in between makes the append fail with
// a *refs.StaleError naming the expected and actual values, for every verb
// but record, whose command has already run: record appends its event to
// whatever the run has become, retrying only that append (appendRecorded),
// so concurrent records show as several tips. The ref's reflog is therefore
// the run's history, one row per recorded event.
//
// # The run payload tine writes (SPEC §1.5, run)
//
//	{"created_at": <float Unix seconds, fixed when the run is created>,
//	 "events":     [event oids, parents before children],
//	 "roots":      [events without parent_ids],
//	 "tips":       [events no other event names as a parent],
//	 "status":     "running" | "paused" | "completed" | "failed",
//	 "forked_from": {"run": <run oid>, "event": <event oid>, "reason": "..."}}  (forks only)
//
// Every run is validated with objects.Validate (links, existence, graph
// rules) before it is written.
//
// # The event payload tine record writes (SPEC §1.5, event)
//
//	kind          "tool" for a captured command
//	tool          "shell"
//	parent_ids    the run's tips when record read them, before running
//	duration      wall-clock seconds the command took
//	time_unix     Unix seconds when it started
//	output_blob   the command's stdout (redacted, capped)
//	artifact_blob the command's stderr (redacted, capped)
//	attributes    {"argv", "cwd", "exit_code", "env_names",
//	               "stdout_truncated", "stderr_truncated",
//	               "signal" (the signal that ended it),
//	               "forwarded_signals" (what tine sent it, in order),
//	               "params" ({NAME: VALUE} from --param, redacted)}
//
// Every blob an event holds is named by one of the three link fields
// input_blob, output_blob and artifact_blob, so fsck, packs and gc see it.
//
// # Revisions
//
// Anything plumbing.Repo.ResolveRevision accepts (full oid, unique hex prefix,
// ref name, short name, REF@{n}) names a run, and so does REV~N: the run as
// it was N events ago along the first-parent chain of its newest event (see
// ResolveRun).
package runs
