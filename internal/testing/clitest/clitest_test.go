package clitest

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestBinary(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "copilot")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Setenv("COPILOT_CLI_PATH", exe)
	if p, err := Binary(); err != nil || p != exe {
		t.Errorf("with COPILOT_CLI_PATH: %q, %v; want %q", p, err, exe)
	}
	for _, bad := range []string{plain, dir, filepath.Join(dir, "missing")} {
		t.Setenv("COPILOT_CLI_PATH", bad)
		if _, err := Binary(); err == nil || !strings.Contains(err.Error(), "install-copilot.sh") {
			t.Errorf("COPILOT_CLI_PATH=%s: %v; want an error with the install hint", bad, err)
		}
	}

	t.Setenv("COPILOT_CLI_PATH", "")
	cache := t.TempDir()
	t.Setenv("QUORUM_CACHE", cache)
	_, err := Binary()
	if err == nil {
		t.Fatal("empty cache: no error")
	}
	for _, want := range []string{".ci/install-copilot.sh", "npm install -g @github/copilot@" + Version, "COPILOT_CLI_PATH"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	want := filepath.Join(cache, "copilot-"+Version, "node_modules", "@github", "copilot-linux-x64", "copilot")
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := Binary(); err != nil || p != want {
		t.Errorf("cached install: %q, %v; want %q", p, err, want)
	}
}

func TestOfflineEnv(t *testing.T) {
	shared := t.TempDir()
	t.Setenv("QUORUM_CACHE", shared)
	t.Setenv("PATH", "/usr/bin:/bin")
	t.Setenv("GITHUB_TOKEN", "must-not-leak")
	const api = "http://127.0.0.1:4321"
	env := OfflineEnv(t, api)
	got := map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.Fatalf("malformed %q", kv)
		}
		if _, dup := got[k]; dup {
			t.Errorf("%s set twice", k)
		}
		got[k] = v
	}
	fixed := map[string]string{
		"PATH":                         "/usr/bin:/bin",
		"COPILOT_API_URL":              api,
		"COPILOT_DEBUG_GITHUB_API_URL": api,
		"COPILOT_SDK_AUTH_TOKEN":       AuthToken,
		"HTTP_PROXY":                   api,
		"HTTPS_PROXY":                  api,
		"NO_PROXY":                     "127.0.0.1,localhost,::1",
	}
	for k, v := range fixed {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["GITHUB_TOKEN"]; ok {
		t.Error("the test's own environment leaked into the child's")
	}
	seen := map[string]bool{}
	// Only the unpacked package is shared; the rest of the CLI's cache (the
	// account it was last told of) is the test's own.
	if to, err := os.Readlink(filepath.Join(got["XDG_CACHE_HOME"], "copilot", "pkg")); err != nil || to != filepath.Join(shared, "xdg", "copilot", "pkg") {
		t.Errorf("the test's XDG_CACHE_HOME/copilot/pkg links to %q (%v), want the shared package under QUORUM_CACHE", to, err)
	}
	for _, k := range []string{"HOME", "COPILOT_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "GH_CONFIG_DIR", "XDG_CACHE_HOME"} {
		d := got[k]
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			t.Errorf("%s = %q is not a directory: %v", k, d, err)
		}
		if seen[d] {
			t.Errorf("%s shares its directory %q", k, d)
		}
		seen[d] = true
	}
	// Each call is a fresh home: no test sees another's CLI state.
	if other := OfflineEnv(t, api); strings.Join(other, "\n") == strings.Join(env, "\n") {
		t.Error("two OfflineEnv calls share their directories")
	}
}

func TestSandboxIsolates(t *testing.T) {
	sb := NewSandbox(t)
	if !sb.Isolated() {
		t.Skipf("no network namespace here (%s); the pass-through path is covered by TestSmoke", sb.why)
	}
	ctx := context.Background()

	// A listener in the test's own namespace is out of the sandbox's reach.
	outside, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer outside.Close()
	if c, err := sb.Dial(ctx, "tcp", outside.Addr().String()); err == nil {
		c.Close()
		t.Error("the sandbox reached a listener outside it")
	}

	// A listener in the sandbox is reachable from inside only.
	inside, err := sb.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer inside.Close()
	if c, err := net.Dial("tcp4", inside.Addr().String()); err == nil {
		c.Close()
		t.Error("the test's namespace reached the sandbox's listener")
	}
	accepted := make(chan []byte, 1)
	go func() {
		c, err := inside.Accept()
		if err != nil {
			accepted <- nil
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		accepted <- b
	}()
	c, err := sb.Dial(ctx, "tcp", inside.Addr().String())
	if err != nil {
		t.Fatalf("dial inside the sandbox: %v", err)
	}
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if b := <-accepted; string(b) != "ping" {
		t.Errorf("inside connection carried %q", b)
	}

	// A command runs in the sandbox's namespace, not the test's.
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	sandboxNS, err := os.Readlink(sb.nsPath())
	if err != nil {
		t.Fatal(err)
	}
	out, err := sb.Command(ctx, "readlink", "/proc/self/ns/net").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := string(bytes.TrimSpace(out)); got != sandboxNS || got == self {
		t.Errorf("command's namespace %q; sandbox %q, test %q", got, sandboxNS, self)
	}
	// And only loopback exists there.
	out, err = sb.Command(ctx, "cat", "/proc/net/dev").Output()
	if err != nil {
		t.Fatal(err)
	}
	var ifaces []string
	for _, line := range strings.Split(string(out), "\n")[2:] {
		if name, _, ok := strings.Cut(line, ":"); ok {
			ifaces = append(ifaces, strings.TrimSpace(name))
		}
	}
	if strings.Join(ifaces, ",") != "lo" {
		t.Errorf("interfaces in the sandbox: %v, want only lo", ifaces)
	}
}

func TestSandboxPassThrough(t *testing.T) {
	t.Setenv("QUORUM_NETNS", "off")
	sb := NewSandbox(t)
	if sb.Isolated() {
		t.Fatal("QUORUM_NETNS=off still isolated")
	}
	cmd := sb.Command(context.Background(), "true")
	if filepath.Base(cmd.Path) != "true" {
		t.Errorf("pass-through command runs %s", cmd.Path)
	}
	ln, err := sb.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatalf("pass-through listener unreachable from the test: %v", err)
	}
	c.Close()
	if err := exec.Command(cmd.Path).Run(); err != nil {
		t.Fatal(err)
	}
}
