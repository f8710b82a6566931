// Package iostreams answers what the command's streams are: whether a
// writer or a reader is a terminal, and a terminal's width. The command's
// packages ask it before choosing the live view or plain lines, and before
// asking a person a question.
//
// It holds no state: every call asks the file descriptor, so a resized
// terminal is seen at the next call. Safe for concurrent use.
package iostreams
