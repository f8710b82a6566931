package quorum

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// This file saves a Chat as it goes and reads it back: one JSON object a
// line (chatRecord), appended at each step, so that a chat cut short (the
// program killed mid-round) keeps every round that ended, and says which
// one did not.

// ErrChatNotFound reports a chat id with no file in the directory. It
// wraps fs.ErrNotExist too.
var ErrChatNotFound = fmt.Errorf("quorum: no saved chat of that id: %w", fs.ErrNotExist)

// ErrChatFile reports a chat file that cannot be read as one: the
// wrapping error names the file and line.
var ErrChatFile = errors.New("quorum: unreadable chat file")

// maxChatLine bounds one line of a chat file when reading it: a round with
// seven models' answers, reviews and the synthesis is some tens of KB.
const maxChatLine = 64 << 20

// The kinds of chatRecord.
const (
	recChat     = "chat"     // the header: id, creation, models
	recModels   = "models"   // SetModels
	recSessions = "sessions" // the kept sessions' ids
	recStarted  = "started"  // a round began
	recRound    = "round"    // a round ended, whole
	recResumed  = "resumed"  // ResumeChat took the chat up again
	recClosed   = "closed"   // Close: sessions closed
	recDetached = "detached" // Detach: sessions left with the provider
)

// chatRecord is one line of a chat file.
type chatRecord struct {
	Type     string            `json:"type"`
	Time     time.Time         `json:"time"`
	Chat     *ChatInfo         `json:"chat,omitempty"`
	Sessions map[string]string `json:"sessions,omitempty"`
	Round    *ChatRound        `json:"round,omitempty"`
}

// ChatInfo describes a chat: its header, and its models as last set.
type ChatInfo struct {
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"createdAt"`
	Models    []string  `json:"models"`
	Moderator string    `json:"moderator,omitempty"`
	// Simulated: the chat ran, at least in part, on a simulator
	// (ChatConfig.Simulated).
	Simulated bool `json:"simulated,omitempty"`
}

// SavedChat is a chat as its file holds it (LoadChat).
type SavedChat struct {
	ChatInfo
	Path string `json:"path"`
	// UpdatedAt is the time of the file's last record.
	UpdatedAt time.Time `json:"updatedAt"`
	// Rounds are the rounds that ended, in order, and, last, a round
	// that began and never ended (the program stopped mid-round), marked
	// interrupted with an Error saying so.
	Rounds []ChatRound `json:"rounds"`
	// Sessions are the kept sessions' ids by model, as last saved.
	Sessions map[string]string `json:"sessions"`
	// Closed is true when the chat ended with Close (its sessions
	// deleted), false after Detach or when it never ended.
	Closed bool `json:"closed"`
}

// ChatDir is where chats are saved by default: $XDG_STATE_HOME/quorum/chats,
// or ~/.local/state/quorum/chats when XDG_STATE_HOME is unset or not an
// absolute path (the XDG Base Directory rule).
func ChatDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "quorum", "chats"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("quorum: no state directory for chats (set XDG_STATE_HOME): %w", err)
	}
	return filepath.Join(home, ".local", "state", "quorum", "chats"), nil
}

// chatLog is a chat's file, appended to.
type chatLog struct {
	mu   sync.Mutex
	path string
	f    *os.File
	err  error // the first write error: later writes are not tried
}

func createChatLog(dir, id string) (*chatLog, error) {
	return openChatLog(dir, id, os.O_CREATE|os.O_EXCL)
}

func openChatLog(dir, id string, flag int) (*chatLog, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("quorum: creating the chat directory: %w", err)
	}
	path := filepath.Join(dir, id+".jsonl")
	// O_APPEND: each record is one write at the end, whole, even if two
	// programs were to write the same file.
	f, err := os.OpenFile(path, flag|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("quorum: opening the chat file: %w", err)
	}
	// The mode of a file that existed stays what it was; a chat holds
	// what the user asked, so make it private whatever it was.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, fmt.Errorf("quorum: making the chat file private: %w", err)
	}
	return &chatLog{path: path, f: f}, nil
}

func (l *chatLog) write(rec chatRecord) error {
	if rec.Time.IsZero() {
		rec.Time = time.Now()
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("quorum: saving the chat: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if l.f == nil {
		return fmt.Errorf("quorum: saving the chat: %w", os.ErrClosed)
	}
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		l.err = fmt.Errorf("quorum: saving the chat to %s: %w", l.path, err)
		return l.err
	}
	return nil
}

func (l *chatLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// LoadChat reads the chat id saved in dir.
func LoadChat(dir, id string) (*SavedChat, error) {
	if err := checkChatID(id); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, id+".jsonl")
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s (quorum history lists the saved chats)", ErrChatNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("quorum: reading the chat: %w", err)
	}
	defer f.Close()
	sc := &SavedChat{Path: path, Sessions: map[string]string{}, Rounds: []ChatRound{}}
	var started *ChatRound
	rd := bufio.NewReaderSize(f, 64<<10)
	for line := 1; ; line++ {
		b, err := readLine(rd)
		if errors.Is(err, errEOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w %s, line %d: %v", ErrChatFile, path, line, err)
		}
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var rec chatRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			if isLast(rd) {
				// A last line cut short by a crash mid-write: what came
				// before it is whole.
				break
			}
			return nil, fmt.Errorf("%w %s, line %d: %v", ErrChatFile, path, line, err)
		}
		sc.UpdatedAt = rec.Time
		switch rec.Type {
		case recChat, recModels:
			if rec.Chat == nil {
				return nil, fmt.Errorf("%w %s, line %d: a %q record without its chat", ErrChatFile, path, line, rec.Type)
			}
			created, simulated := sc.CreatedAt, sc.Simulated
			sc.ChatInfo = *rec.Chat
			sc.Simulated = sc.Simulated || simulated // once simulated, in part
			if rec.Type == recModels {
				sc.CreatedAt = created
			}
		case recSessions, recResumed:
			for m, id := range rec.Sessions {
				sc.Sessions[m] = id
				if id == "" { // the session failed: gone
					delete(sc.Sessions, m)
				}
			}
		case recStarted:
			started = rec.Round
		case recRound:
			if rec.Round == nil {
				return nil, fmt.Errorf("%w %s, line %d: a round record without its round", ErrChatFile, path, line)
			}
			sc.Rounds = append(sc.Rounds, *rec.Round)
			started = nil
		case recClosed:
			sc.Closed = true
		case recDetached:
			sc.Closed = false
		}
	}
	if sc.ID == "" {
		return nil, fmt.Errorf("%w %s: no chat header (is it a chat file?)", ErrChatFile, path)
	}
	if started != nil {
		r := *started
		r.Status = RoundInterrupted
		r.Error = "the program stopped during this round; what it had collected was not saved"
		if r.Sessions == nil {
			r.Sessions = map[string]string{}
		}
		sc.Rounds = append(sc.Rounds, r)
	}
	return sc, nil
}

var errEOF = errors.New("end of file")

// readLine reads one line of at most maxChatLine bytes, without its end.
func readLine(rd *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := rd.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > maxChatLine {
			return nil, fmt.Errorf("a line longer than %d bytes", maxChatLine)
		}
		switch {
		case err == nil:
			return out[:len(out)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(out) > 0:
			return out, nil
		default:
			return nil, errEOF
		}
	}
}

func isLast(rd *bufio.Reader) bool {
	_, err := rd.Peek(1)
	return err != nil
}

// ListChats lists the chats saved in dir, the latest first. A file that
// cannot be read is listed with its error rather than hiding the others.
// A dir that does not exist holds no chats.
func ListChats(dir string) ([]*SavedChat, []error, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("quorum: listing the chats: %w", err)
	}
	var out []*SavedChat
	var bad []error
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || e.IsDir() || checkChatID(id) != nil {
			continue
		}
		sc, err := LoadChat(dir, id)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		out = append(out, sc)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].UpdatedAt.Equal(out[j].UpdatedAt) {
			return out[i].UpdatedAt.After(out[j].UpdatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out, bad, nil
}

// ResumeChat continues the chat id saved in cfg.Dir. Its rounds are the
// saved ones; cfg.Models empty takes the saved models and moderator. Each
// model's saved session is taken up again where b can (a Backend with a
// Resume method: Copilot's resumes a session the CLI still keeps); a
// model whose session is gone gets a new one at its next round, whose
// prompt then carries every saved round. Rounds go on being appended to
// the same file.
func ResumeChat(ctx context.Context, b Backend, cfg ChatConfig, id string) (*Chat, error) {
	if b == nil {
		return nil, invalid("the Backend is nil; pass quorum.Copilot(client) or another Backend")
	}
	if cfg.Dir == "" {
		return nil, invalid("ChatConfig.Dir is empty; name the directory the chat was saved in (ChatDir)")
	}
	sc, err := LoadChat(cfg.Dir, id)
	if err != nil {
		return nil, err
	}
	if len(cfg.Models) == 0 {
		cfg.Models, cfg.Moderator = slices.Clone(sc.Models), sc.Moderator
	}
	if _, err := cfg.Config.settle(); err != nil {
		return nil, err
	}
	l, err := openChatLog(cfg.Dir, id, 0)
	if err != nil {
		return nil, err
	}
	cfg.ID = id
	cfg.Simulated = cfg.Simulated || sc.Simulated
	c := &Chat{b: b, cfg: cfg, id: id, created: sc.CreatedAt, rounds: sc.Rounds, kept: map[string]*keptSession{}, log: l}
	if !sc.Closed {
		c.resumeKept(ctx, sc.Sessions, cfg.Models)
	}
	resumed := map[string]string{}
	for m, ks := range c.kept {
		resumed[m] = ks.id
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.saveLocked(chatRecord{Type: recModels, Chat: c.infoLocked()}); err != nil {
		return nil, errors.Join(err, c.closeKeptLocked(ctx))
	}
	if err := c.saveLocked(chatRecord{Type: recResumed, Sessions: resumed}); err != nil {
		return nil, errors.Join(err, c.closeKeptLocked(ctx))
	}
	return c, nil
}

// closeKeptLocked detaches the sessions ResumeChat took up, when it
// fails after all: they stay with the provider as they were.
func (c *Chat) closeKeptLocked(ctx context.Context) error {
	var errs []error
	for _, ks := range c.kept {
		if d, ok := ks.conv.(interface{ Detach(context.Context) error }); ok {
			errs = append(errs, d.Detach(ctx))
		}
	}
	c.kept = map[string]*keptSession{}
	errs = append(errs, c.log.close())
	return errors.Join(errs...)
}
