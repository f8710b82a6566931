package runquorum

import (
	"errors"
	"io/fs"
	"os"
)

// CreatePrivate creates (or truncates) a file only its owner can read:
// a transcript holds every prompt and answer of a run. An existing file
// is narrowed to 0600 too.
func CreatePrivate(path string) (*os.File, error) {
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

// CheckWritable checks that path ("": none) can be written, leaving
// the file as it was: an existing file is opened for writing and left
// untouched, a new one is created and removed.
func CheckWritable(path string) error {
	if path == "" {
		return nil
	}
	_, statErr := os.Stat(path)
	existed := !errors.Is(statErr, fs.ErrNotExist)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	if !existed {
		return os.Remove(path)
	}
	return nil
}
