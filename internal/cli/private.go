package cli

import "os"

// createPrivate creates (or truncates) a file only its owner can read:
// a transcript holds every prompt and answer of a run. An existing file
// is narrowed to 0600 too.
func createPrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
