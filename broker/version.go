package broker

import (
	"runtime/debug"
	"strings"
)

// release is the version of a release build, set by `make dist` with
// -ldflags "-X github.com/dbeast/dbeast/broker.release=vX.Y.Z"; empty in
// a build from a checkout.
var release string

// commit is the VCS revision of a release build, set by `make dist` next
// to release, for builds whose VCS stamping is off (GOFLAGS=-buildvcs=false).
var commit string

// BuildInfo is what the binary knows about its own build.
type BuildInfo struct {
	// Version is the release version, the module version of a `go
	// install …@version` build, or Version-dev for a build from a
	// checkout.
	Version string `json:"version"`
	// Commit is the VCS revision the binary was built from ("" when the
	// build had no VCS information); Modified reports uncommitted changes.
	Commit   string `json:"commit,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
}

// Build returns the binary's build information from runtime/debug.
func Build() BuildInfo {
	bi := BuildInfo{Version: Version + "-dev"}
	info, ok := debug.ReadBuildInfo()
	if ok {
		bi.Go = info.GoVersion
		if v := info.Main.Version; v != "" && v != "(devel)" && !strings.Contains(v, "+dirty") {
			bi.Version = v
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				bi.Commit = s.Value
			case "vcs.modified":
				bi.Modified = s.Value == "true"
			}
		}
	}
	if release != "" {
		bi.Version = release
	}
	if bi.Commit == "" {
		bi.Commit = commit
	}
	return bi
}

// ServerVersion is the version the MCP server reports in serverInfo and
// `dbeast --version` prints: the build's version, with the short commit
// for a build from a checkout.
func ServerVersion() string {
	bi := Build()
	v := bi.Version
	if release == "" && bi.Commit != "" && strings.HasSuffix(v, "-dev") {
		c := bi.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		v += "+" + c
		if bi.Modified {
			v += ".dirty"
		}
	}
	return v
}
