package copilottest

import "time"

// Echo answers "echo: " and the prompt.
func Echo(t Turn) Response { return Response{Text: "echo: " + t.Prompt} }

// Say answers every call with text.
func Say(text string) Script {
	return func(Turn) Response { return Response{Text: text} }
}

// Stream answers every call with text, streamed in chunks pieces with delay
// before each.
func Stream(text string, chunks int, delay time.Duration) Script {
	return func(Turn) Response {
		return Response{Text: text, Chunks: chunks, FirstTokenDelay: delay, ChunkDelay: delay}
	}
}

// UseTool calls tool name with args on a turn's first model call and hands
// every later call, which carries the result (Turn.ToolResults), to then.
func UseTool(name string, args any, then Script) Script {
	call := Call(name, args)
	return func(t Turn) Response {
		if t.Call == 0 {
			return Response{ToolCalls: []ToolCall{call}}
		}
		return then(t)
	}
}

// AskUser puts q to the user (Response.AskUser) on a turn's first model
// call and hands every later call, which carries the answer
// (Turn.UserAnswer), to then.
func AskUser(q UserQuestion, then Script) Script {
	return func(t Turn) Response {
		if t.Call == 0 {
			q := q // each response its own copy: a script may change it
			return Response{AskUser: &q}
		}
		return then(t)
	}
}

// Elicit asks the user to fill in f (Response.Elicit) on a turn's first
// model call and hands every later call, which carries the answer
// (Turn.Elicitation), to then.
func Elicit(f Elicitation, then Script) Script {
	return func(t Turn) Response {
		if t.Call == 0 {
			f := f
			return Response{Elicit: &f}
		}
		return then(t)
	}
}

// Fail fails every turn with session.error of errorType and message
// (Response.Failure).
func Fail(errorType, message string) Script {
	return func(Turn) Response { return Response{Failure: &Failure{Type: errorType, Message: message}} }
}

// Stall is a script whose turns never end on their own (each Response
// sets Hang): the client must abort them (cancel the turn's context) or
// give up.
func Stall(Turn) Response { return Response{Hang: true} }

// Crash streams partial, then closes the connection (Response.Crash), as a
// CLI that dies mid-turn.
func Crash(partial string) Script {
	return func(Turn) Response { return Response{Text: partial, Crash: true} }
}

// Delay makes s's responses wait d more before their first piece.
func Delay(d time.Duration, s Script) Script {
	return func(t Turn) Response {
		r := s(t)
		r.FirstTokenDelay += d
		return r
	}
}
