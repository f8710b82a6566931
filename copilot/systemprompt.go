package copilot

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/quorum-go/quorum/copilot/protocol"
)

// SystemMode says what SessionConfig.SystemMessage does to the CLI's own
// system prompt (its instructions to the model: identity, tone, tool use,
// safety rules, the working directory, …).
type SystemMode string

const (
	// SystemAppend, the default, adds SystemMessage after the CLI's prompt.
	SystemAppend SystemMode = protocol.SystemMessageAppend
	// SystemReplace makes SystemMessage the whole system prompt. The CLI's
	// instructions, its safety rules included, are then gone.
	SystemReplace SystemMode = protocol.SystemMessageReplace
	// SystemCustomize keeps the CLI's prompt but changes its sections as
	// SessionConfig.SystemSections says; SystemMessage, if any, follows
	// them.
	SystemCustomize SystemMode = protocol.SystemMessageCustomize
)

// The sections of the CLI's system prompt, the keys of
// SessionConfig.SystemSections. An id the CLI does not know is not an
// error: content given for it is appended to the prompt, and removing it
// does nothing.
const (
	SectionIdentity            = "identity"             // the group of the preamble, tone and tool efficiency
	SectionPreamble            = "preamble"             // who the agent is and its mode
	SectionTone                = "tone"                 // style, conciseness, output format
	SectionToolEfficiency      = "tool_efficiency"      // tool use: parallel calls, batching
	SectionEnvironmentContext  = "environment_context"  // working directory, OS, git, tools
	SectionCodeChangeRules     = "code_change_rules"    // how to change code, lint, test
	SectionGuidelines          = "guidelines"           // behavioural guidelines
	SectionSafety              = "safety"               // limits, prohibited actions, security
	SectionToolInstructions    = "tool_instructions"    // per-tool instructions
	SectionCustomInstructions  = "custom_instructions"  // repository and organisation instructions
	SectionRuntimeInstructions = "runtime_instructions" // notifications, memories, mode
	SectionLastInstructions    = "last_instructions"    // end-of-prompt instructions
)

// SectionAction is what a SectionOverride does to its section.
type SectionAction string

const (
	SectionReplace SectionAction = protocol.SectionReplace // Content stands in for the section
	SectionRemove  SectionAction = protocol.SectionRemove  // the section is left out
	SectionAppend  SectionAction = protocol.SectionAppend  // Content follows the section
	SectionPrepend SectionAction = protocol.SectionPrepend // Content precedes the section
	// SectionPreserve keeps a section that a group's removal would take
	// (keep SectionTone while removing SectionIdentity).
	SectionPreserve SectionAction = protocol.SectionPreserve
)

// SectionOverride changes one section of the CLI's system prompt, with
// SystemMode SystemCustomize. Set Action (and Content), or Transform.
type SectionOverride struct {
	Action  SectionAction
	Content string
	// Transform rewrites the section from its current text, which the CLI
	// offers when it builds the prompt (a systemMessage.transform request
	// the session answers); an error keeps the text as it was.
	Transform func(ctx context.Context, section, content string) (string, error)
}

// validateSystemPrompt checks SystemMode, SystemMessage and SystemSections.
func (cfg SessionConfig) validateSystemPrompt() error {
	switch cfg.SystemMode {
	case "", SystemAppend, SystemCustomize:
	case SystemReplace:
		if cfg.SystemMessage == "" {
			return invalid(ErrInvalidSessionConfig, "SystemMessage is empty with SystemMode %q; it would be the whole system prompt", cfg.SystemMode)
		}
	default:
		return invalid(ErrInvalidSessionConfig, "SystemMode %q is not one of %q, %q, %q", cfg.SystemMode, SystemAppend, SystemReplace, SystemCustomize)
	}
	if len(cfg.SystemSections) > 0 && cfg.SystemMode != SystemCustomize {
		return invalid(ErrInvalidSessionConfig, "SystemSections is set but SystemMode is %q; sections are changed with %q", cfg.SystemMode, SystemCustomize)
	}
	transforms := false
	for _, id := range slices.Sorted(maps.Keys(cfg.SystemSections)) {
		o := cfg.SystemSections[id]
		switch {
		case id == "":
			return invalid(ErrInvalidSessionConfig, "SystemSections has an empty section id")
		case o.Transform != nil && o.Action != "":
			return invalid(ErrInvalidSessionConfig, "SystemSections[%q] has both Action and Transform; set one", id)
		case o.Transform == nil && !slices.Contains([]SectionAction{SectionReplace, SectionRemove, SectionAppend, SectionPrepend, SectionPreserve}, o.Action):
			return invalid(ErrInvalidSessionConfig, "SystemSections[%q].Action %q is not replace, remove, append, prepend or preserve (or set Transform)", id, o.Action)
		}
		transforms = transforms || o.Transform != nil
	}
	if transforms && cfg.Handlers.SystemMessageTransform != nil {
		return invalid(ErrInvalidSessionConfig, "SystemSections has a Transform and Handlers.SystemMessageTransform is set; both would answer systemMessage.transform")
	}
	return nil
}

// systemMessage is session.create's systemMessage for cfg, nil for the
// CLI's prompt unchanged.
func (cfg SessionConfig) systemMessage() *protocol.SystemMessageConfig {
	if cfg.SystemMessage == "" && cfg.SystemMode != SystemCustomize {
		return nil
	}
	m := &protocol.SystemMessageConfig{Mode: string(cfg.SystemMode), Content: cfg.SystemMessage}
	if m.Mode == "" {
		m.Mode = protocol.SystemMessageAppend
	}
	for id, o := range cfg.SystemSections {
		if m.Sections == nil {
			m.Sections = map[string]protocol.SectionOverride{}
		}
		if o.Transform != nil {
			m.Sections[id] = protocol.SectionOverride{Action: protocol.SectionTransform}
			continue
		}
		m.Sections[id] = protocol.SectionOverride{Action: string(o.Action), Content: o.Content}
	}
	return m
}

// sectionTransformer answers systemMessage.transform with the Transforms of
// sections; nil when no section has one. A section without a Transform,
// or whose Transform fails or panics, keeps its text.
func sectionTransformer(sections map[string]SectionOverride, s *Session) func(context.Context, *protocol.SystemMessageTransformParams) (*protocol.SystemMessageTransformResult, error) {
	transforms := false
	for _, o := range sections {
		transforms = transforms || o.Transform != nil
	}
	if !transforms {
		return nil
	}
	return func(ctx context.Context, p *protocol.SystemMessageTransformParams) (*protocol.SystemMessageTransformResult, error) {
		out := &protocol.SystemMessageTransformResult{Sections: make(map[string]protocol.SystemMessageSection, len(p.Sections))}
		for id, sec := range p.Sections {
			out.Sections[id] = sec
			fn := sections[id].Transform
			if fn == nil {
				continue
			}
			text, err := transformSafely(ctx, fn, id, sec.Content)
			if err != nil {
				s.log.Warn().Err(err).Str("section", id).Msg("a system prompt section's Transform failed; the section is kept as it was")
				continue
			}
			out.Sections[id] = protocol.SystemMessageSection{Content: text}
		}
		return out, nil
	}
}

// transformSafely runs one section's Transform; its panic is its error.
func transformSafely(ctx context.Context, fn func(context.Context, string, string) (string, error), id, content string) (text string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the Transform of section %q panicked: %v", id, p)
		}
	}()
	return fn(ctx, id, content)
}
