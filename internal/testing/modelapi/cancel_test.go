package modelapi

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// waitIdle waits until no chat handler is running.
func waitIdle(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for s.Active() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a chat handler is still running: cancellation was not honoured")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestStallHonoursCancel(t *testing.T) {
	s, c := startServer(t, map[string]Responder{
		"bare":    Fixed(Stall()),
		"partial": Fixed(Text("thinking").WithStall()),
	})
	for _, tc := range []struct {
		model  string
		stream bool
		first  string // the only chunk expected before the stall
	}{
		{"bare", true, ""},
		{"partial", true, "thinking"},
		{"bare", false, ""},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan string, 1)
		errc := make(chan error, 1)
		go func() {
			resp, err := post(ctx, t, c, s.URL(), chatBody(tc.model, tc.stream, "x"))
			if err != nil {
				errc <- err
				return
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			if tc.first != "" {
				line, err := br.ReadString('\n')
				if err != nil {
					errc <- err
					return
				}
				got <- line
			} else {
				got <- "headers"
			}
			_, err = io.ReadAll(br)
			errc <- err
		}()

		if tc.stream {
			// A streaming stall sends its status and headers (and any text)
			// before it stalls.
			select {
			case line := <-got:
				if tc.first != "" && !strings.Contains(line, `"content":"thinking"`) {
					t.Errorf("%s: first line %q", tc.model, line)
				}
			case err := <-errc:
				t.Fatalf("%s: %v before the stall", tc.model, err)
			case <-time.After(hangGuard):
				t.Fatalf("%s: no headers from a streaming stall", tc.model)
			}
		}
		// Wait until the handler is running, then check nothing more comes.
		deadline := time.Now().Add(hangGuard)
		for s.Active() != 1 {
			if time.Now().After(deadline) {
				t.Fatal("the stalled request never reached the handler")
			}
			time.Sleep(time.Millisecond)
		}
		select {
		case err := <-errc:
			t.Fatalf("%s stream=%v: ended before cancel: %v", tc.model, tc.stream, err)
		case <-got:
			t.Fatalf("%s: a non-streaming stall sent headers", tc.model)
		default:
		}
		cancel()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s stream=%v: client error %v, want context.Canceled", tc.model, tc.stream, err)
			}
		case <-time.After(hangGuard):
			t.Fatal("client still blocked after cancel")
		}
		waitIdle(t, s)
	}
}

func TestDelaysHonourCancel(t *testing.T) {
	// An hour-long delay can only end through cancellation, so these show
	// where the delay sits without timing anything.
	s, c := startServer(t, map[string]Responder{
		"slowstart": Fixed(Text("late").WithStartDelay(time.Hour)),
		"slowchunk": Fixed(Text("ab").WithChunks(2).WithChunkDelay(time.Hour)),
		"quick":     Fixed(Text("ok").WithChunks(2).WithChunkDelay(time.Millisecond).WithStartDelay(time.Millisecond)),
	})

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		resp, err := post(ctx, t, c, s.URL(), chatBody("slowstart", true, "x"))
		if err == nil {
			resp.Body.Close()
			err = errors.New("got a response during the start delay")
		}
		errc <- err
	}()
	// A request that fails at once (a dial error) must fail the test, not
	// leave it waiting for a request the server never sees.
	for s.Active() != 1 {
		select {
		case err := <-errc:
			t.Fatalf("the request ended before the server took it: %v", err)
		case <-time.After(time.Millisecond):
		}
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("slow start: %v, want no headers until cancelled", err)
	}
	waitIdle(t, s)

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	resp, err := post(ctx, t, c, s.URL(), chatBody("slowchunk", true, "x"))
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || !strings.Contains(line, `"content":"a"`) {
		t.Fatalf("first chunk %q %v: it must come without waiting for the chunk delay", line, err)
	}
	cancel()
	if _, err := io.ReadAll(br); !errors.Is(err, context.Canceled) {
		t.Errorf("second chunk should be held by the delay until cancel, got %v", err)
	}
	resp.Body.Close()
	waitIdle(t, s)

	resp = mustPost(t, c, s.URL(), chatBody("quick", true, "x"))
	if events, done := readSSE(t, resp.Body); !done || len(events) != 3 {
		t.Errorf("short delays: %q done=%v", events, done)
	}
}

func TestCloseEndsStalls(t *testing.T) {
	s, err := Start(Config{Models: map[string]Responder{"m": Fixed(Stall())}})
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: hangGuard}
	resp := mustPost(t, c, s.URL(), chatBody("m", true, "x"))
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(hangGuard):
		t.Fatal("Close hangs on a stalled response")
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Error("a stalled stream cut by Close read as a clean end")
	}
	if s.Active() != 0 {
		t.Error("handler still running after Close returned")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
