package quorum

import "fmt"

// This file is early stop: the reviews of Discuss and the votes of Plan
// (and of an agent's planning) are started in waves, and once the leader
// can no longer be overtaken by the reviews or votes still to come, those
// are not started at all, saving their premium requests
// (Config.NoEarlyStop turns it off).
//
// Why the winner cannot change: standings are ranked by mean score first
// (aggregate), and a score is 1 to 10. The leader's mean can fall no lower
// than if every pending judge who sees it gave it 1; a rival's can rise no
// higher than if every pending judge who sees it gave it 10. When even
// then the leader's mean stays strictly above every rival's, no outcome
// of the pending turns — scores, failures, unparsable replies — changes
// the winner, and the later tie-breaks (Borda count, failed votes, model
// order) never come into play. Waves are as small as can possibly settle
// the leader, so no turn is started that could not be needed.

// Bounds of a valid score (validScore).
const (
	minScore = 1
	maxScore = 10
)

// scoring is a review or vote as early stop sees it: the labels it scores,
// never its judge's own.
type scoring struct {
	own   string
	shown []string
}

// sees reports whether s scores label.
func (s scoring) sees(label string) bool {
	if label == s.own {
		return false
	}
	for _, l := range s.shown {
		if l == label {
			return true
		}
	}
	return false
}

// tally is the scores so far, by label.
type tally struct {
	labels []string
	sum    map[string]float64
	n      map[string]int
}

func newTally(labels []string) *tally {
	return &tally{labels: labels, sum: map[string]float64{}, n: map[string]int{}}
}

// add counts one judge's valid scores, never its own item's.
func (t *tally) add(own string, scores map[string]float64) {
	for l, s := range scores {
		if l != own && s >= minScore && s <= maxScore {
			t.sum[l] += s
			t.n[l]++
		}
	}
}

func (t *tally) clone() *tally {
	c := newTally(t.labels)
	for l, v := range t.sum {
		c.sum[l] = v
	}
	for l, v := range t.n {
		c.n[l] = v
	}
	return c
}

// mean is label's mean score, 0 without scores (as aggregate has it).
func (t *tally) mean(l string) float64 {
	if t.n[l] == 0 {
		return 0
	}
	return t.sum[l] / float64(t.n[l])
}

// settled reports whether the leader can no longer be overtaken by the
// pending scorings, and names it.
func (t *tally) settled(pending []scoring) (string, bool) {
	if len(t.labels) < 2 {
		return "", false // nothing to decide: the phase is not staged
	}
	leader := t.labels[0]
	for _, l := range t.labels[1:] {
		if t.mean(l) > t.mean(leader)+tieEpsilon {
			leader = l
		}
	}
	count := func(l string) int {
		k := 0
		for _, p := range pending {
			if p.sees(l) {
				k++
			}
		}
		return k
	}
	worst := t.mean(leader)
	if k := count(leader); k > 0 {
		worst = min(worst, (t.sum[leader]+minScore*float64(k))/float64(t.n[leader]+k))
	}
	for _, l := range t.labels {
		if l == leader {
			continue
		}
		best := t.mean(l)
		if k := count(l); k > 0 {
			best = max(best, (t.sum[l]+maxScore*float64(k))/float64(t.n[l]+k))
		}
		if worst <= best+tieEpsilon {
			return "", false
		}
	}
	return leader, true
}

// wave returns how many of the pending scorings, taken in order, must
// come in before the leader could possibly be settled: the smallest k for
// which some label, scored 10 by those k and every other label 1, would
// be settled against the rest. All of them when no k can settle it.
func (t *tally) wave(pending []scoring) int {
	for k := 1; k < len(pending); k++ {
		for _, hoped := range t.labels {
			h := t.clone()
			for _, p := range pending[:k] {
				scores := map[string]float64{}
				for _, l := range p.shown {
					scores[l] = minScore
					if l == hoped {
						scores[l] = maxScore
					}
				}
				h.add(p.own, scores)
			}
			if _, ok := h.settled(pending[k:]); ok {
				return k
			}
		}
	}
	return len(pending)
}

// staged is a phase of scorings run in waves: scoring describes task i,
// scores reads a finished task's valid scores (nil when it gave none).
type staged struct {
	labels  []string
	scoring func(i int) scoring
	scores  func(i int, res result) map[string]float64
}

// doStaged runs tasks in waves until the leader is settled, and returns
// every task's result in task order with ran[i] false for the tasks early
// stop did not start. With early stop off it is do.
func (pr *phaseRun) doStaged(tasks []task, st staged) (results []result, ran []bool) {
	results = make([]result, len(tasks))
	ran = make([]bool, len(tasks))
	if pr.r.s.NoEarlyStop {
		for i := range ran {
			ran[i] = true
		}
		return pr.do(tasks), ran
	}
	t := newTally(st.labels)
	next := 0
	for next < len(tasks) {
		var pending []scoring
		for i := next; i < len(tasks); i++ {
			pending = append(pending, st.scoring(i))
		}
		if leader, ok := t.settled(pending); ok {
			skipped := len(tasks) - next
			pr.r.skip(skipped, fmt.Sprintf("%d %s not started in the %s phase: %s led and no outcome of them could change that", skipped, turnNoun(pr.phase, skipped), pr.phase, leaderName(pr.phase, leader)))
			break
		}
		k := t.wave(pending)
		wave := pr.do(tasks[next : next+k])
		for j, res := range wave {
			i := next + j
			results[i], ran[i] = res, true
			if res.err == nil {
				t.add(st.scoring(i).own, st.scores(i, res))
			}
		}
		next += k
		if pr.r.stopped(pr.phase) != nil {
			break // cancelled, or the cap refused a turn: start no more
		}
	}
	return results, ran
}

// turnNoun names a staged phase's turns.
func turnNoun(p Phase, n int) string {
	noun := "review"
	if p == PhaseVote {
		noun = "vote"
	}
	if n != 1 {
		noun += "s"
	}
	return noun
}

// leaderName names the leading item as the phase's prompts do.
func leaderName(p Phase, label string) string {
	if p == PhaseVote {
		return "Plan " + label
	}
	return "Response " + label
}
