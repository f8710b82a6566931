package quorum

import "testing"

// A resumed session has seen the rounds up to the last it took part in
// with that id, an interrupted one not counting (its prompt may never
// have reached it): the rounds after are told to it again.
func TestLastRoundOf(t *testing.T) {
	rounds := []ChatRound{
		{N: 1, Status: RoundOK, Sessions: map[string]string{"a": "s1", "b": "s2"}},
		{N: 2, Status: RoundOK, Sessions: map[string]string{"a": "s1"}},
		{N: 3, Status: RoundInterrupted, Sessions: map[string]string{"a": "s1", "b": "s2"}},
		{N: 4, Status: RoundOK, Sessions: map[string]string{"a": "s3"}},
	}
	for _, c := range []struct {
		model, id string
		want      int
	}{{"a", "s1", 2}, {"b", "s2", 1}, {"a", "s3", 4}, {"a", "gone", 0}, {"c", "s1", 0}} {
		if got := lastRoundOf(rounds, c.model, c.id); got != c.want {
			t.Errorf("lastRoundOf(%s, %s) = %d, want %d", c.model, c.id, got, c.want)
		}
	}
}
