package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is set at link time (-ldflags "-X .../internal/cli.Version=v1.2.3");
// otherwise the module version from the build info is used.
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func runVersion(_ context.Context, inv *invocation) error {
	fmt.Fprintf(inv.e.stdout, "quorum %s (%s, Copilot CLI protocol 3)\n", version(), runtime.Version())
	return nil
}
