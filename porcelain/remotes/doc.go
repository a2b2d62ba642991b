// Package remotes is the workflow room of remotes: remote configuration
// (remotes.json), fetch, push, pull and clone over package remote's
// transports, remote-tracking refs and the shallow frontier.
//
// # Configuration
//
// remotes.json in the repository directory, beside config.json (which is
// never touched, so a sha256 repository stays OpenTine's bytes; OpenTine
// ignores the file):
//
//	{
//	  "remotes": {
//	    "origin": {"name": "origin", "url": "https://runs.example/v1/tenants/acme", "token_env": "TINE_TOKEN"}
//	  },
//	  "version": 1
//	}
//
// It names environment variables, never tokens; a URL with user
// information is refused.
//
// # Refs
//
// A fetched remote ref R is filed under remotes/<remote>/<R without a
// leading heads/> (OpenTine's rule). A push moves each remote ref by
// compare-and-swap from its tracking ref's value (what was last fetched or
// pushed), so a ref someone else moved since is never overwritten.
// promotions/* move on a remote only through the remote's own release
// policy (PolicyGuard).
package remotes
