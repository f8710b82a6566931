package modelapi

import (
	"net/http"
	"slices"
)

// catalogEntry is one model of GET /models, in the shape of GitHub's model
// API: the few fields the CLI needs to offer the model, and its billing.
type catalogEntry struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	Capabilities capabilities `json:"capabilities"`
	Billing      billing      `json:"billing"`
}

type capabilities struct {
	Supports map[string]bool `json:"supports"`
	Limits   limits          `json:"limits"`
}

type limits struct {
	MaxContextWindowTokens int `json:"max_context_window_tokens"`
}

// billing is what one request to the model counts in premium requests.
type billing struct {
	IsPremium  bool    `json:"is_premium"`
	Multiplier float64 `json:"multiplier"`
}

// serveModels answers GET /models: every model, in the order added.
func (s *Server) serveModels(w http.ResponseWriter) {
	s.mu.Lock()
	ids := slices.Clone(s.order)
	s.mu.Unlock()
	data := make([]catalogEntry, 0, len(ids))
	for _, id := range ids {
		data = append(data, catalogEntry{ID: id, Name: id,
			Capabilities: capabilities{
				Supports: map[string]bool{"vision": true},
				Limits:   limits{MaxContextWindowTokens: 128000},
			},
			Billing: s.billingOf(id),
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

// billingOf is the model's billing: Config.Multipliers' multiplier, else 1.
// A model that counts no premium requests (multiplier 0) is not premium,
// as GitHub's API reports its included models.
func (s *Server) billingOf(id string) billing {
	m, ok := s.multipliers[id]
	if !ok {
		m = 1
	}
	return billing{IsPremium: m > 0, Multiplier: m}
}
