package quorum

import "hash/fnv"

// label returns the i-th anonymous label: A … Z, then AA, AB, ….
func label(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return label(i/26-1) + string(rune('A'+i%26))
}

// shuffle returns a permutation of 0..n-1 that depends only on seed. Labels
// are dealt in this order rather than in configured model order, so that
// "Response A" is not always the first model (reviewers could learn that)
// and no model always gets the position reviewers see first. It uses its
// own generator, so the permutation never changes with the Go release.
func shuffle(n int, seed ...string) []int {
	h := fnv.New64a()
	for _, s := range seed {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	x := h.Sum64()
	next := func() uint64 { // splitmix64
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := int(next() % uint64(i+1))
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// assignReviews decides which answers each reviewer sees: reviewer i (in
// label order) gets the k answers after its own, cyclically, so every
// answer gets exactly k reviews and nobody reviews their own. k ≤ 0 or
// k ≥ n−1 means all the others. The result lists indexes in label order.
func assignReviews(n, k int) [][]int {
	if k <= 0 || k >= n-1 {
		k = n - 1
	}
	out := make([][]int, n)
	for i := range n {
		seen := make([]bool, n)
		for d := 1; d <= k; d++ {
			seen[(i+d)%n] = true
		}
		for j := range n {
			if seen[j] {
				out[i] = append(out[i], j)
			}
		}
	}
	return out
}
