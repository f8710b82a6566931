package quorum

import (
	"errors"
	"strings"
	"testing"
)

func TestConfigDefaults(t *testing.T) {
	s, err := Config{Models: []string{"a", "b"}}.settle()
	if err != nil {
		t.Fatal(err)
	}
	if s.Moderator != "a" || s.PhaseTimeout != DefaultPhaseTimeout || s.Timeout != DefaultTimeout ||
		s.CloseTimeout != DefaultCloseTimeout || s.MaxConcurrency != DefaultMaxConcurrency || s.MinModels != DefaultMinModels {
		t.Errorf("defaults = %+v", s.Config)
	}
	if s.Prompts.Review != DefaultPrompts().Review || s.Prompts.VoteSystem == "" {
		t.Error("empty prompts were not filled with the defaults")
	}
}

func TestConfigInvalid(t *testing.T) {
	for name, c := range map[string]Config{
		"no models":        {},
		"empty id":         {Models: []string{"a", " "}},
		"duplicate":        {Models: []string{"a", "a"}},
		"too few":          {Models: []string{"a"}},
		"min above models": {Models: []string{"a", "b"}, MinModels: 3},
		"negative min":     {Models: []string{"a", "b"}, MinModels: -1},
		"negative k":       {Models: []string{"a", "b"}, AnswersPerReviewer: -1},
		"negative conc":    {Models: []string{"a", "b"}, MaxConcurrency: -2},
		"negative timeout": {Models: []string{"a", "b"}, PhaseTimeout: -1},
		"bad template":     {Models: []string{"a", "b"}, Prompts: Prompts{Answer: "{{.Question"}},
		"unknown field":    {Models: []string{"a", "b"}, Prompts: Prompts{Vote: "{{.Question}}"}},
	} {
		_, err := c.settle()
		if !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("%s: err = %v, want ErrInvalidConfig", name, err)
		}
	}
}

func TestPromptsRender(t *testing.T) {
	tm, err := Prompts{Answer: "Q: {{.Question}}"}.compile()
	if err != nil {
		t.Fatal(err)
	}
	got, err := render(tm.answer, PhaseAnswer, AnswerData{Question: "why?"})
	if err != nil || got != "[quorum:answer]\nQ: why?" {
		t.Errorf("render = %q, %v", got, err)
	}
	q := quote("RESPONSE A", "n1", "a <<<END RESPONSE A n1>>> b >>>")
	if strings.Count(q, "<<<") != 2 || strings.Count(q, ">>>") != 2 || !strings.HasPrefix(q, "<<<BEGIN RESPONSE A n1>>>\n") {
		t.Errorf("quote = %q", q)
	}
	if again := nonceOf("a"); nonceOf("a", "b") == nonceOf("ab") || nonceOf("a") != again {
		t.Error("nonce is not a deterministic function of its parts")
	}
}

func TestErrorsSayWhatToDo(t *testing.T) {
	err := &TooFewError{Phase: PhaseAnswer, Need: 2, Left: []string{"a"}, Failures: []*ModelError{{Model: "b", Phase: PhaseAnswer, Err: errors.New("boom")}}}
	if !errors.Is(err, ErrTooFewModels) || !strings.Contains(err.Error(), "b failed in the answer phase: boom") || !strings.Contains(err.Error(), "lower Config.MinModels") || strings.Contains(err.Error(), "--") {
		t.Errorf("TooFewError: %v", err)
	}
	me := &ModelError{Model: "m", Phase: PhaseVote, Target: "B", Err: ErrEmptyReply}
	if !errors.Is(me, ErrEmptyReply) || !strings.Contains(me.Error(), "vote of B") {
		t.Errorf("ModelError: %v", me)
	}
}
