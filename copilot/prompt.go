package copilot

import (
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// ErrInvalidPrompt is wrapped by the error of Prompt.Validate, and so of
// StreamPrompt and SendPrompt, for a Prompt the CLI would refuse; the error
// names the field. Nothing was sent.
var ErrInvalidPrompt = errors.New("copilot: invalid Prompt")

// Prompt is a message for the model and what goes with it. Only Text is
// usually needed; Stream(ctx, text, h) is StreamPrompt(ctx, Prompt{Text:
// text}, h).
type Prompt struct {
	Text string
	// Attachments go with the text: files, directories, a selection of a
	// file, images and other binary data (FileAttachment,
	// DirectoryAttachment, SelectionAttachment, BlobAttachment), or any
	// other kind protocol.Attachment describes. The CLI reads the files
	// itself: paths are absolute, on the CLI's machine.
	Attachments []protocol.Attachment
	// Mode protocol.SendModeImmediate steers a turn in progress: the model
	// gets the message at its next step, within the same turn, whose
	// reader (a Stream, or OnEvent after Send) sees the rest. Steer a
	// turn with SendPrompt: StreamPrompt waits for the session's turn in
	// progress to end first. Empty or protocol.SendModeEnqueue queues the
	// message after that turn.
	Mode protocol.SendMode
	// RequestHeaders go with the turn's model requests, over those of the
	// session's provider.
	RequestHeaders map[string]string
	// DisplayText, when set, is what the session's history shows instead
	// of Text.
	DisplayText string
	// AgentMode is the mode the message was written in (interactive, plan,
	// autopilot); empty is the session's current mode.
	AgentMode protocol.SendAgentMode
	// ResponseFormat asks the model for output in a JSON schema, for this
	// turn only (not with Mode immediate).
	ResponseFormat *protocol.ResponseFormat
}

// The types of attachment Validate checks the fields of.
const (
	attachFile      = "file"
	attachDirectory = "directory"
	attachSelection = "selection"
	attachBlob      = "blob"
)

// FileAttachment attaches the file at path (absolute, on the CLI's
// machine). The CLI reads it when the prompt is sent; set LineRange on the
// result to attach some lines only.
func FileAttachment(path string) protocol.Attachment {
	return protocol.Attachment{Type: attachFile, Path: path, DisplayName: filepath.Base(path)}
}

// DirectoryAttachment attaches the directory at path (absolute, on the
// CLI's machine).
func DirectoryAttachment(path string) protocol.Attachment {
	return protocol.Attachment{Type: attachDirectory, Path: path, DisplayName: filepath.Base(path)}
}

// SelectionAttachment attaches text selected in the file at path; set
// Selection on the result to say where in the file it is.
func SelectionAttachment(path, text string) protocol.Attachment {
	return protocol.Attachment{Type: attachSelection, FilePath: path, Text: text, DisplayName: filepath.Base(path)}
}

// BlobAttachment attaches data of the given MIME type ("image/png", …),
// sent inline, base64-encoded; images reach models that take them as
// images.
func BlobAttachment(data []byte, mimeType, displayName string) protocol.Attachment {
	return protocol.Attachment{Type: attachBlob, Data: base64.StdEncoding.EncodeToString(data), MimeType: mimeType, DisplayName: displayName}
}

// Validate reports the first field of p that the CLI would refuse, naming
// it, in an error wrapping ErrInvalidPrompt: an attachment without a
// type, or a file, directory,
// selection or blob attachment without its path or data; an unknown Mode;
// a ResponseFormat with Mode immediate.
func (p Prompt) Validate() error {
	for i, a := range p.Attachments {
		switch {
		case a.Type == "":
			return invalid(ErrInvalidPrompt, "Attachments[%d] has no Type", i)
		case (a.Type == attachFile || a.Type == attachDirectory) && a.Path == "":
			return invalid(ErrInvalidPrompt, "Attachments[%d] (%s) has no Path", i, a.Type)
		case a.Type == attachSelection && a.FilePath == "":
			return invalid(ErrInvalidPrompt, "Attachments[%d] (selection) has no FilePath", i)
		case a.Type == attachBlob && (a.Data == "" || a.MimeType == ""):
			return invalid(ErrInvalidPrompt, "Attachments[%d] (blob) needs Data and MimeType", i)
		}
	}
	switch p.Mode {
	case "", protocol.SendModeEnqueue:
	case protocol.SendModeImmediate:
		if p.ResponseFormat != nil {
			return invalid(ErrInvalidPrompt, "ResponseFormat is set with Mode %q; a steering message cannot change the turn's output format", p.Mode)
		}
	default:
		return invalid(ErrInvalidPrompt, "Mode %q is not %q or %q", p.Mode, protocol.SendModeEnqueue, protocol.SendModeImmediate)
	}
	return nil
}

// params is session.send's params for p.
func (p Prompt) params() protocol.SessionSendParams {
	return protocol.SessionSendParams{
		Prompt:         p.Text,
		DisplayPrompt:  p.DisplayText,
		Attachments:    p.Attachments,
		Mode:           p.Mode,
		RequestHeaders: p.RequestHeaders,
		AgentMode:      p.AgentMode,
		ResponseFormat: p.ResponseFormat,
	}
}

// SendPrompt is Send for a Prompt: it starts a turn (or, with
// SendModeImmediate, steers the one in progress) and returns the message
// id without reading the turn. A p that Validate refuses is refused here.
// Unlike Stream, it takes no turn of the session's: it does not wait for
// the abort of a cancelled turn, or of work the tool-call limit stopped
// between turns, so such an abort still in flight may stop its turn too.
func (s *Session) SendPrompt(ctx context.Context, p Prompt) (string, error) {
	if err := p.Validate(); err != nil {
		return "", err
	}
	return s.send(ctx, p)
}

// send is session.send: the start of a turn. It returns the message id.
func (s *Session) send(ctx context.Context, p Prompt) (string, error) {
	if err := s.superseded("sending to"); err != nil {
		return "", err
	}
	res, err := s.RPC().Send(ctx, p.params())
	if err != nil {
		return "", err
	}
	return res.MessageID, nil
}
