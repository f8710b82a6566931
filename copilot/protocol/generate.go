package protocol

// The version here and VERSION in .ci/install-copilot.sh name the same CLI
// (TestPinnedVersionsAgree); CI regenerates and fails on any difference.
//go:generate go run ../../internal/protogen -version 1.0.102
