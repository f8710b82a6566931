package copilot

import (
	"fmt"
	"os"
	"os/exec"
)

// EnvCLIPath names the environment variable that points at the CLI binary.
const EnvCLIPath = "COPILOT_CLI_PATH"

// FindCLI returns the Copilot CLI binary to run: explicit if not empty,
// then $COPILOT_CLI_PATH, then `copilot` on PATH. The error wraps
// ErrCLINotFound and says how to install the CLI.
func FindCLI(explicit string) (string, error) {
	for _, c := range []struct{ path, from string }{
		{explicit, "Options.CLIPath"},
		{os.Getenv(EnvCLIPath), "$" + EnvCLIPath},
	} {
		if c.path == "" {
			continue
		}
		p, err := exec.LookPath(c.path)
		if err != nil {
			return "", fmt.Errorf("%w (%s is %q: %v)", ErrCLINotFound, c.from, c.path, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("copilot")
	if err != nil {
		return "", ErrCLINotFound
	}
	return p, nil
}
