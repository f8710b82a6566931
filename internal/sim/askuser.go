package sim

import (
	"encoding/json"

	"github.com/google/uuid"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// askUser runs the built-in ask_user tool as the real CLI does when the
// client asked for user input: user_input.requested, then a
// userInput.request to the client, then user_input.completed. It returns
// the answer, or the reason there is none (errText); a non-nil error means
// the turn was stopped while the question was open.
//
// The question is a JSON-RPC request, not an event answered by a call, so
// the wait goes through Conn.call: it ends with the answer, the turn's
// context (abort, destroy) or the connection.
func (s *session) askUser(t *turn, req protocol.AssistantMessageToolRequest) (answer, errText string, err error) {
	var q askUserArgs
	if err := json.Unmarshal(req.Arguments, &q); err != nil || q.Question == "" {
		return "", "ask_user needs a question", nil
	}
	requestID := uuid.NewString()
	if err := s.emit(t, protocol.EventUserInputRequested, protocol.UserInputRequestedData{
		RequestID:     requestID,
		Question:      q.Question,
		Choices:       q.Choices,
		AllowFreeform: q.AllowFreeform,
		ToolCallID:    req.ToolCallID,
	}); err != nil {
		return "", "", err
	}
	a := s.conn.call(t.ctx, protocol.MethodUserInputRequest, protocol.UserInputRequestParams{
		SessionID:     s.id,
		Question:      q.Question,
		Choices:       q.Choices,
		AllowFreeform: q.AllowFreeform,
	})
	done := protocol.UserInputCompletedData{RequestID: requestID}
	switch {
	case a.Err != nil:
		return "", "", errStopped
	case a.Error != nil:
		errText = "user input failed: " + a.Error.Message
	default:
		var r protocol.UserInputResponse
		if err := json.Unmarshal(a.Result, &r); err != nil {
			errText = "malformed userInput.request answer: " + err.Error()
			break
		}
		answer = r.Answer
		done.Answer, done.WasFreeform = r.Answer, ptr(r.WasFreeform)
	}
	return answer, errText, s.emit(t, protocol.EventUserInputCompleted, done)
}
