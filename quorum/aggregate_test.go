package quorum

import (
	"maps"
	"testing"
)

func TestBorda(t *testing.T) {
	cases := []struct {
		name string
		j    judgement
		want map[string]float64
	}{
		{"full ranking", judgement{shown: []string{"A", "B", "C"}, ranking: []string{"C", "A", "B"}},
			map[string]float64{"C": 2, "A": 1, "B": 0}},
		{"partial ranking shares the rest", judgement{shown: []string{"A", "B", "C", "D"}, ranking: []string{"B"}},
			map[string]float64{"B": 3, "A": 1, "C": 1, "D": 1}},
		{"from scores with a tie", judgement{shown: []string{"A", "B", "C"}, scores: map[string]float64{"A": 7, "B": 9, "C": 7}},
			map[string]float64{"B": 2, "A": 0.5, "C": 0.5}},
		{"unscored items share the last places", judgement{shown: []string{"A", "B", "C"}, scores: map[string]float64{"A": 3}},
			map[string]float64{"A": 2, "B": 0.5, "C": 0.5}},
		{"own item and unknown labels ignored", judgement{own: "A", shown: []string{"A", "B", "C"}, ranking: []string{"A", "Z", "C", "B"}},
			map[string]float64{"C": 1, "B": 0}},
		{"ranking wins over scores", judgement{shown: []string{"A", "B"}, ranking: []string{"A", "B"}, scores: map[string]float64{"A": 1, "B": 9}},
			map[string]float64{"A": 1, "B": 0}},
		{"nothing said", judgement{shown: []string{"A", "B"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := borda(c.j); !maps.Equal(got, c.want) {
				t.Errorf("borda = %v, want %v", got, c.want)
			}
		})
	}
}

func TestAggregate(t *testing.T) {
	cands := []candidate{{"A", "ma", 0}, {"B", "mb", 1}, {"C", "mc", 2}}
	t.Run("self-votes excluded", func(t *testing.T) {
		js := []judgement{
			// mc scores its own C 10 and ranks it first: neither counts.
			{judge: "mc", own: "C", shown: []string{"A", "B", "C"}, scores: map[string]float64{"A": 5, "B": 6, "C": 10}, ranking: []string{"C", "B", "A"}},
			{judge: "ma", own: "A", shown: []string{"B", "C"}, scores: map[string]float64{"B": 4, "C": 8}},
		}
		got := aggregate(cands, js)
		if got[0].Label != "C" || got[0].MeanScore != 8 || got[0].Scores != 1 || got[0].Borda != 1 {
			t.Errorf("C counted a self-vote: %+v", got[0])
		}
		// A and B both average 5; B wins the tie on Borda (mc ranked B
		// over A once its own C is set aside).
		if got[1].Label != "B" || got[1].MeanScore != 5 || got[1].Borda != 1 || got[2].Label != "A" || got[2].MeanScore != 5 || got[2].Borda != 0 {
			t.Errorf("ranking = %+v", got)
		}
	})
	t.Run("tie-breaks in order", func(t *testing.T) {
		// A and B tie on mean (6) and Borda (0.5 each); A has one failed
		// judgement, so B goes first although A comes first in the
		// configured order. C's mean (5) puts it last.
		js := []judgement{
			{judge: "x", shown: []string{"A", "B"}, scores: map[string]float64{"A": 6, "B": 6}},
			{judge: "y", shown: []string{"C"}, scores: map[string]float64{"C": 5}, failed: []string{"A"}},
		}
		got := aggregate(cands, js)
		want := []string{"B", "A", "C"}
		for i, w := range want {
			if got[i].Label != w || got[i].Rank != i+1 {
				t.Fatalf("ranking = %+v, want %v", got, want)
			}
		}
	})
	t.Run("configured order last", func(t *testing.T) {
		got := aggregate([]candidate{{"A", "ma", 2}, {"B", "mb", 0}, {"C", "mc", 1}}, nil)
		if got[0].Label != "B" || got[1].Label != "C" || got[2].Label != "A" {
			t.Errorf("ranking = %+v", got)
		}
	})
	t.Run("float noise is a tie", func(t *testing.T) {
		js := []judgement{
			{judge: "x", shown: []string{"A"}, scores: map[string]float64{"A": 0.1 + 0.2}},
			{judge: "y", shown: []string{"B"}, scores: map[string]float64{"B": 0.3}},
		}
		// 0.1+0.2 != 0.3 in floating point, and neither is a valid score
		// anyway; the comparison must still treat them as equal.
		if cmpDesc(js[0].scores["A"], js[1].scores["B"]) != 0 {
			t.Error("0.1+0.2 and 0.3 compare unequal")
		}
	})
}
