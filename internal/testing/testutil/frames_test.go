package testutil

import (
	"strconv"
	"strings"
	"testing"
)

// Frames returns a frame once, whole, however the stream was cut: byte by
// byte, or with a body that itself says "Content-Length: ".
func TestFramesWhole(t *testing.T) {
	bodies := []string{`{"a":1}`, `{"text":"Content-Length: 3\r\n\r\nxyz"}`, `{}`}
	var stream strings.Builder
	for _, b := range bodies {
		stream.WriteString("Content-Length: " + strconv.Itoa(len(b)) + "\r\n\r\n" + b)
	}
	var f Frames
	var got []string
	for i := range stream.Len() {
		out, err := f.Feed([]byte{stream.String()[i]})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range out {
			got = append(got, string(b))
		}
		if i < len("Content-Length: 7\r\n\r\n") && len(got) > 0 {
			t.Fatal("a frame returned before its body came")
		}
	}
	if strings.Join(got, "|") != strings.Join(bodies, "|") {
		t.Errorf("got %q, want %q", got, bodies)
	}
	if _, err := f.Feed([]byte("Content-Type: x\r\n\r\n")); err == nil {
		t.Error("a header without Content-Length was taken")
	}
}
