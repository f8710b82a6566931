package chat

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// maxHistory is how many inputs the history keeps.
const maxHistory = 1000

// History is what was typed at the prompt, oldest first, kept across runs
// in a file of one JSON string a line (an input can span lines), mode
// 0600. It is used by the UI's goroutine only.
type History struct {
	path    string
	entries []string
}

// LoadHistory reads the history at path ("": not kept). A missing file is
// an empty history; lines that cannot be read are skipped.
func LoadHistory(path string) (*History, error) {
	h := &History{path: path}
	if path == "" {
		return h, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("reading the input history: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.entries = append(h.entries, s)
		}
	}
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	return h, nil
}

// Entries returns the history, oldest first.
func (h *History) Entries() []string { return h.entries }

// Add appends s (unless it repeats the last entry) and saves it.
func (h *History) Add(s string) error {
	if s == "" || (len(h.entries) > 0 && h.entries[len(h.entries)-1] == s) {
		return nil
	}
	h.entries = append(h.entries, s)
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	if h.path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("saving the input history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("saving the input history: %w", err)
	}
	b, _ := json.Marshal(s) // a string always marshals
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("saving the input history: %w", err)
	}
	return nil
}
