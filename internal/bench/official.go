package bench

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The official GitHub Copilot Go SDK (github.com/github/copilot-sdk, its
// go/ directory) is not on the module proxy, and this repository must not
// carry its code. The suite builds a driver for it (driver/main.go.txt,
// this project's code) in a temporary module whose go.mod replaces the SDK
// with the checkout the user names in SDKDirEnv, and runs it like its own
// clients. Nothing of the build is kept.

// SDKDirEnv names the environment variable that points at a checkout of
// github.com/github/copilot-sdk (the directory holding go/).
const SDKDirEnv = "COPILOT_SDK_DIR"

//go:embed driver/main.go.txt
var driverSource string

// ErrNoSDK reports that SDKDirEnv is not set: the official SDK's columns
// are left out.
var ErrNoSDK = errors.New("bench: " + SDKDirEnv + " is not set: the official Go SDK is not measured (point it at a checkout of github.com/github/copilot-sdk)")

// BuildOfficial builds the official SDK's driver from the checkout in
// SDKDirEnv into dir and returns the program's path.
func BuildOfficial(ctx context.Context, dir string) (string, error) {
	checkout := os.Getenv(SDKDirEnv)
	if checkout == "" {
		return "", ErrNoSDK
	}
	module, err := filepath.Abs(filepath.Join(checkout, "go"))
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(module, "go.mod")); err != nil {
		return "", fmt.Errorf("bench: %s=%s holds no Go module in go/: %w", SDKDirEnv, checkout, err)
	}
	src := filepath.Join(dir, "driver")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	gomod := "module quorumbench/driver\n\ngo 1.24\n\nrequire github.com/github/copilot-sdk/go v0.0.0\n\nreplace github.com/github/copilot-sdk/go => " + module + "\n"
	files := map[string]string{"go.mod": gomod, "main.go": driverSource}
	if sum, err := os.ReadFile(filepath.Join(module, "go.sum")); err == nil {
		files["go.sum"] = string(sum) // the SDK's own checksums, as a start
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			return "", err
		}
	}
	exe := filepath.Join(dir, "official-driver")
	cmd := exec.CommandContext(ctx, "go", "build", "-mod=mod", "-o", exe, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("bench: building the official SDK's driver from %s: %w\n%s", module, err, strings.TrimSpace(string(out)))
	}
	return exe, nil
}
