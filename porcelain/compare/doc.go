// Package compare holds the workflows that find and compare runs side by
// side, the way experiment trackers do: the runs table (`tine runs`, one
// row per ref'd run with its status, meters, newest trusted evaluation
// scores, gate decisions, promotions and parameters) and event search
// (`tine search`, through an inverted index kept beside the catalog).
//
// Both answer from the derived catalog (package index) and return plain
// data structures (Table, SearchResult) that the CLI, the MCP tools and the
// web view render alike; nothing here prints or exits.
//
// # Where a run's parameters come from
//
// A run's parameters are the merge, in the run's event order, of the
// parameters its events declare (index.EventParams): the event member
// attributes.params, an object of name -> string, number or boolean, which
// `tine record --param NAME=VALUE` writes and any imported or --event event
// may carry; and, for a loop run, the bounds of the loop's policy recorded
// on its init event, as loop.max_steps, loop.width and so on. A later
// event's value for a name replaces an earlier one's. attributes is a free
// member of OpenTine's event payload, so such runs stay OpenTine runs.
//
// compare sits above porcelain/runs and porcelain/trust (whose release
// policy decides which evaluations are trusted under --promotion) and
// below cmd/tine.
package compare
