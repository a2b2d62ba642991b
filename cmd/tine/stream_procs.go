package main

import (
	"os"
	"runtime"
	"sync"
)

// streamProcs counts the blob streams that raised GOMAXPROCS, so streams
// that overlap raise it once and the last one to end restores it.
var streamProcs struct {
	sync.Mutex
	users int
}

// aroundStream is what the verbs that store large blobs by streaming
// (hash-object -w, --stdin-paths -w) hand plumbing as
// BulkOptions.AroundStream; tests wrap it to watch it being applied.
var aroundStream = raiseStreamProcs

// raiseStreamProcs adds writers to GOMAXPROCS until the returned function
// is called, unless the user fixed GOMAXPROCS in the environment. A
// stream's writers (loose.StreamWriters of them) spend most of their time
// blocked in direct writes of megabytes each; with GOMAXPROCS at the
// number of CPUs those blocked writers hold the processors the runtime
// schedules on, so its monitor takes each one back from the system call
// and hands it on (a thread wake-up each time) and keeps polling every
// 20 µs. With a processor to spare per writer, a blocked writer keeps its
// own and the reader never waits for one: on 2 CPUs, `tine hash-object -w`
// of a 1 GiB file used ~20% less CPU and half the context switches (issue
// 13). Only the reader runs Go code meanwhile, so the CPUs are not
// oversubscribed. This is the command's decision, not the library's:
// GOMAXPROCS is process-wide, and a pool sized while it is raised (as
// `tine serve`'s would be) keeps the extra workers.
func raiseStreamProcs(writers int) func() {
	if _, set := os.LookupEnv("GOMAXPROCS"); set || writers <= 0 {
		return func() {}
	}
	streamProcs.Lock()
	defer streamProcs.Unlock()
	if streamProcs.users == 0 {
		runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + writers)
	}
	streamProcs.users++
	return func() {
		streamProcs.Lock()
		defer streamProcs.Unlock()
		if streamProcs.users--; streamProcs.users == 0 {
			// The runtime's default, not the value before: an explicit
			// setting would turn off its tracking of the CPU count and
			// cgroup quota; tine sets GOMAXPROCS nowhere else.
			runtime.SetDefaultGOMAXPROCS()
		}
	}
}
