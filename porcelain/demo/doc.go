// Package demo builds tine's guided demo repository (tine demo): an agent's
// failing first attempt, a fork that fixes it, an improvement loop,
// evaluations, a release policy and a promotion, all written through the
// other workflow rooms' public functions. It is the top room: it may import
// porcelain/runs, trust, loops and gates, and nothing but cmd/tine imports
// it. Nothing here prints or exits; the recorded commands' output goes to
// the writers in DemoOptions and the narration to its Step callback.
package demo
