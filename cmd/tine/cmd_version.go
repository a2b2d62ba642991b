package main

import (
	"runtime"
	"runtime/debug"
)

// version is set at release time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version recorded by `go install` is used.
var version = ""

// versionCmd prints the version of this binary.
type versionCmd struct {
	jsonFlag
}

// Help shows an example under `tine version --help`.
func (c *versionCmd) Help() string {
	return "Example:\n\n    $ tine version\n    tine v0.1.0 (go1.26.8 linux/amd64)"
}

// versionResult is what `tine version --json` prints.
type versionResult struct {
	Version  string `json:"version"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// Run prints the version.
func (c *versionCmd) Run(e *env) error {
	if err := e.refuseRepoFlag(""); err != nil {
		return err
	}
	res := versionResult{Version: moduleVersion(), Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("tine %s (%s %s)\n", res.Version, res.Go, res.Platform)
	})
}

// moduleVersion is the release version, the installed module version, or
// "devel" for a build from a source checkout.
func moduleVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// versionString is what `tine --version` prints.
func versionString() string {
	return "tine " + moduleVersion() + " (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")"
}
