// Package view builds pictures of run graphs: the data behind tine graph
// (the event DAG of chosen runs as JSON, Mermaid or Graphviz DOT, with
// refs, forks, statuses and scores) and tine view (a read-only web page
// served on loopback from assets embedded in the binary, drawing every
// ref's runs as lanes the way git log --graph does).
//
// It writes nothing to the repository: the event order and the lane
// drawing come from porcelain/runs (LogRevs, LogAll, RenderGraph), scores
// from the derived catalog (package index), which a query brings up to
// date like any other reader's. Everything a run records is untrusted:
// every string is escaped for the format it is written into (format.go),
// and the web page inserts recorded text only as text nodes under a
// Content-Security-Policy that allows nothing but the page's own assets.
package view
