package quorum_test

import (
	"slices"
	"testing"

	"github.com/quorum-go/quorum/quorum"
)

func TestParseSynthesis(t *testing.T) {
	t.Run("Markdown headings", func(t *testing.T) {
		s, problems := quorum.ParseSynthesis("Preamble.\n## Conclusion\nUse a monolith.\nIt is simpler.\n\n## Key points\n- Small team\n- Fewer moving\n  parts\n## Consensus\n1. Start simple\n## Disagreements\n- None.\n")
		if s.Conclusion != "Use a monolith.\nIt is simpler." || !slices.Equal(s.KeyPoints, []string{"Small team", "Fewer moving parts"}) ||
			!slices.Equal(s.Consensus, []string{"Start simple"}) || len(s.Disagreements) != 0 || len(problems) != 0 {
			t.Errorf("got %+v, problems %v", s, problems)
		}
	})
	t.Run("bold and colon headings, paragraphs", func(t *testing.T) {
		s, problems := quorum.ParseSynthesis("**Conclusion:** Keep it.\n\n**Key points**\nFirst para.\n\nSecond para.\nConsensus: everyone agrees\nDisagreements:\n* timing\n")
		if s.Conclusion != "Keep it." || !slices.Equal(s.KeyPoints, []string{"First para.", "Second para."}) ||
			!slices.Equal(s.Consensus, []string{"everyone agrees"}) || !slices.Equal(s.Disagreements, []string{"timing"}) || len(problems) != 0 {
			t.Errorf("got %+v, problems %v", s, problems)
		}
	})
	t.Run("prose is not a heading", func(t *testing.T) {
		text := "Consensus is rare here and conclusions differ."
		s, problems := quorum.ParseSynthesis(text)
		if s.Conclusion != text || !hasProblem(problems, "whole text is kept") || !hasProblem(problems, "no Consensus section") {
			t.Errorf("got %+v, problems %v", s, problems)
		}
	})
}
