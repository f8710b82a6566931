package quorum

import (
	"cmp"
	"math"
	"slices"
)

// judgement is what one judge (a reviewer, or a voter across its votes)
// said about the items it was shown.
type judgement struct {
	judge string
	// own is the judge's own item; anything it says about it is ignored
	// (self-votes never count).
	own string
	// shown are the items it was asked about.
	shown []string
	// scores are its valid 1–10 scores by label.
	scores map[string]float64
	// ranking is its explicit ranking, best first, if any (valid labels, no
	// duplicates). Without one, a ranking is derived from the scores.
	ranking []string
	// failed are items whose judgement failed (error or unparsable).
	failed []string
}

// candidate is an item being ranked, with its author and the author's
// place in the configured model order (the last tie-break).
type candidate struct {
	label, model string
	order        int
}

// tieEpsilon absorbs floating-point noise when comparing means and Borda
// counts, so that equal figures summed in different orders still tie.
const tieEpsilon = 1e-9

// aggregate ranks candidates by mean score, then Borda count, then fewer
// failed judgements, then configured model order: the same judgements
// always give the same ranking.
func aggregate(cands []candidate, js []judgement) []Standing {
	idx := make(map[string]int, len(cands))
	out := make([]Standing, len(cands))
	sums := make([]float64, len(cands))
	for i, c := range cands {
		idx[c.label] = i
		out[i] = Standing{Label: c.label, Model: c.model}
	}
	for _, j := range js {
		for _, l := range j.shown {
			if s, ok := j.scores[l]; ok && l != j.own {
				if i, ok := idx[l]; ok {
					sums[i] += s
					out[i].Scores++
				}
			}
		}
		for l, pts := range borda(j) {
			if i, ok := idx[l]; ok {
				out[i].Borda += pts
			}
		}
		for _, l := range j.failed {
			if i, ok := idx[l]; ok && l != j.own {
				out[i].Failed++
			}
		}
	}
	for i := range out {
		if out[i].Scores > 0 {
			out[i].MeanScore = sums[i] / float64(out[i].Scores)
		}
	}
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmpDesc(out[a].MeanScore, out[b].MeanScore); c != 0 {
			return c
		}
		if c := cmpDesc(out[a].Borda, out[b].Borda); c != 0 {
			return c
		}
		if c := cmp.Compare(out[a].Failed, out[b].Failed); c != 0 {
			return c
		}
		return cmp.Compare(cands[a].order, cands[b].order)
	})
	ranked := make([]Standing, len(cands))
	for r, i := range order {
		ranked[r] = out[i]
		ranked[r].Rank = r + 1
	}
	return ranked
}

// cmpDesc orders larger first, treating values within tieEpsilon as equal.
func cmpDesc(a, b float64) int {
	if math.Abs(a-b) <= tieEpsilon {
		return 0
	}
	if a > b {
		return -1
	}
	return 1
}

// borda gives one judge's Borda points: of m items shown, m−1 for the
// first place, m−2 for the second, …, 0 for the last. Items sharing places
// (tied scores, or left out of a partial ranking) share those places'
// points equally. The judge's own item is never among them.
func borda(j judgement) map[string]float64 {
	var items []string
	for _, l := range j.shown {
		if l != j.own && !slices.Contains(items, l) {
			items = append(items, l)
		}
	}
	m := len(items)
	if m == 0 {
		return nil
	}
	// groups are the places, best first; items in one group share points.
	var groups [][]string
	placed := make(map[string]bool, m)
	switch {
	case len(j.ranking) > 0:
		for _, l := range j.ranking {
			if slices.Contains(items, l) && !placed[l] {
				groups = append(groups, []string{l})
				placed[l] = true
			}
		}
	case len(j.scores) > 0:
		var scored []string
		for _, l := range items {
			if _, ok := j.scores[l]; ok {
				scored = append(scored, l)
			}
		}
		slices.SortStableFunc(scored, func(a, b string) int { return cmpDesc(j.scores[a], j.scores[b]) })
		for i, l := range scored {
			if i > 0 && cmpDesc(j.scores[l], j.scores[scored[i-1]]) == 0 {
				groups[len(groups)-1] = append(groups[len(groups)-1], l)
			} else {
				groups = append(groups, []string{l})
			}
			placed[l] = true
		}
	default:
		return nil
	}
	var rest []string
	for _, l := range items {
		if !placed[l] {
			rest = append(rest, l)
		}
	}
	if len(rest) > 0 {
		groups = append(groups, rest)
	}
	pts := make(map[string]float64, m)
	place := 0
	for _, g := range groups {
		// Places place … place+len(g)−1 carry m−1−place … points.
		sum := 0.0
		for p := place; p < place+len(g); p++ {
			sum += float64(m - 1 - p)
		}
		for _, l := range g {
			pts[l] = sum / float64(len(g))
		}
		place += len(g)
	}
	return pts
}
