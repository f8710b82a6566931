package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/quorum-go/quorum/internal/bench"
)

// TestMain lets the suite run this test binary as its clients.
func TestMain(m *testing.M) {
	bench.MaybeChild()
	goleak.VerifyTestMain(m)
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"-only", "9"}, {"-only", "x"}, {"extra"}, {"-nope"}} {
		var stderr bytes.Buffer
		err := run(context.Background(), args, &bytes.Buffer{}, &stderr)
		if !errors.Is(err, errUsage) || exitCode(err, &stderr) != 2 {
			t.Errorf("%q: err %v (exit %d), want a usage error (exit 2)", args, err, exitCode(err, &stderr))
		}
	}
}

// Without COPILOT_SDK_DIR, or with one that holds no SDK, the suite says so
// and measures the rest.
func TestOfficialSDKMissing(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		t.Setenv(bench.SDKDirEnv, dir)
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), []string{"-short", "-only", "5"}, &stdout, &stderr); err != nil {
			t.Fatalf("%s=%q: %v\n%s", bench.SDKDirEnv, dir, err, stderr.String())
		}
		want := "is not set"
		if dir != "" {
			want = "holds no Go module"
		}
		if !strings.Contains(stdout.String(), "official Go SDK: NOT MEASURED") || !strings.Contains(stderr.String(), want) {
			t.Errorf("%s=%q: stdout\n%s\nstderr\n%s\nwant NOT MEASURED and %q", bench.SDKDirEnv, dir, stdout.String(), stderr.String(), want)
		}
		if !strings.Contains(stdout.String(), "5. Footprint") || strings.Contains(stdout.String(), "1. CPU") {
			t.Errorf("-only 5 printed:\n%s", stdout.String())
		}
	}
}
