package router

import (
	"sync"
	"testing"
)

// beforeDeliverHooks holds, per router, what a test wants run on the reader
// between looking a session's route up and delivering to it. The hook is per
// router so that tests running at once never see each other's.
var beforeDeliverHooks sync.Map // *Router -> func(id string)

func init() {
	testHookBeforeDeliver = func(r *Router, id string) {
		if f, ok := beforeDeliverHooks.Load(r); ok {
			f.(func(string))(id)
		}
	}
}

// setBeforeDeliver makes f run before each of r's deliveries, until the test
// ends. Set it before any traffic.
func setBeforeDeliver(t *testing.T, r *Router, f func(id string)) {
	beforeDeliverHooks.Store(r, f)
	t.Cleanup(func() { beforeDeliverHooks.Delete(r) })
}
