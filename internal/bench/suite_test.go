package bench

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// Every client counts what the simulator sent: the suite's per-event
// figures divide by these counts.
func TestClientsCountEveryEvent(t *testing.T) {
	addr := server(t)
	const sessions, chunks = 8, 30
	for _, client := range []string{ClientQuorum, ClientDecode} {
		res := runChild(t, client, Job{Role: RoleStream, Addr: addr, Sessions: sessions, Chunks: chunks})
		if want := int64(sessions * EventsPerTurn(chunks)); res.Events != want {
			t.Errorf("%s counted %d events, want %d", client, res.Events, want)
		}
		if res.CPU <= 0 || res.Mallocs == 0 || res.Wall <= 0 {
			t.Errorf("%s measured nothing: %+v", client, res)
		}
	}
}

// The isolation run reports the six others' time, and the footprint run a
// cost per session; the creation runs create.
func TestClientRoles(t *testing.T) {
	addr := server(t)
	for _, job := range []Job{
		{Role: RoleIsolation, Client: ClientQuorum, Sessions: 8, Chunks: 10, Patience: time.Minute},
		{Role: RoleIsolation, Client: ClientQuorum, Sessions: 8, Chunks: 10, SlowDelay: time.Millisecond, Patience: time.Minute},
		{Role: RoleIdle, Client: ClientQuorum, Sessions: 50},
		{Role: RoleIdle, Client: ClientRouter, Sessions: 50},
		{Role: RoleCreate, Client: ClientQuorum, Sessions: 20},
		{Role: RoleCreate, Client: ClientQuorum, Sessions: 20, Assigned: true},
	} {
		res := runChild(t, job.Client, Job{Role: job.Role, Addr: addr, Sessions: job.Sessions, Chunks: job.Chunks,
			SlowDelay: job.SlowDelay, Patience: job.Patience, Assigned: job.Assigned})
		switch {
		case job.Role == RoleIsolation && (res.Wall <= 0 || res.Stalled):
			t.Errorf("%+v: %+v", job, res)
		case job.Role == RoleIdle && (res.HeapBytes <= 0 || res.Goroutines < 0):
			t.Errorf("%+v: %+v", job, res)
		case job.Role == RoleCreate && res.Wall <= 0:
			t.Errorf("%+v: %+v", job, res)
		}
	}
}

// A feed's events have fresh ids across cycles, and its deltas carry the
// time they were written.
func TestFeed(t *testing.T) {
	f := NewFeed(3, 2)
	if f.EventsPerCycle() != 3*5 {
		t.Fatalf("%d events a cycle, want 15", f.EventsPerCycle())
	}
	first := string(f.Cycle())
	second := string(f.Cycle())
	if first == second || len(first) != len(second) {
		t.Fatal("a second cycle repeats the first's ids")
	}
	d := NewDecoder(strings.NewReader(first))
	for d.Events < f.EventsPerCycle() {
		if _, _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if len(d.Idle) != 3 {
		t.Errorf("idle sessions %v, want 3", d.Idle)
	}
	var buf bytes.Buffer
	epoch := time.Now().Add(-time.Hour)
	if err := f.WritePaced(&buf, 1, 1_000_000, epoch, nil); err != nil {
		t.Fatal(err)
	}
	d = NewDecoder(&buf)
	stamps := 0
	d.OnDelta = func(text string) {
		if at, ok := Stamp(text); ok && at >= time.Hour {
			stamps++
		}
	}
	for d.Events < f.EventsPerCycle() {
		if _, _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if stamps != 3*2 {
		t.Errorf("%d stamped deltas, want 6", stamps)
	}
}

// The suite runs whole in its short form and prints every section.
func TestSuiteShort(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow in this mode; the CI runs the command itself, in its short form")
	}
	var out bytes.Buffer
	s := &Suite{Exe: mustExecutable(t), Short: true, Events: 2000, NoOfficial: ErrNoSDK}
	if err := s.Run(context.Background(), &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"1. CPU per event", "2. Throughput", "3. Delivery latency", "4. Isolation", "5. Footprint", "6. Creation", "7. The real CLI", "NOT MEASURED"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}

func mustExecutable(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
