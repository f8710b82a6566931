package session

import "sync"

// beforeWaitHooks holds, per mailbox, what a test wants run when that
// mailbox's receiver has found the queue empty and is about to wait. The
// hook is per mailbox so that tests running at once never see each other's.
var beforeWaitHooks sync.Map // *mailbox -> func()

func init() {
	testHookBeforeWait = func(b *mailbox) {
		if f, ok := beforeWaitHooks.Load(b); ok {
			f.(func())()
		}
	}
}

// setBeforeWait makes f run whenever b's receiver is about to wait; a nil f
// removes the hook. The hook is removed when the test ends.
func setBeforeWait(t interface{ Cleanup(func()) }, b *mailbox, f func()) {
	if f == nil {
		beforeWaitHooks.Delete(b)
		return
	}
	beforeWaitHooks.Store(b, f)
	t.Cleanup(func() { beforeWaitHooks.Delete(b) })
}
