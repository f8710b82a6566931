package readme

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's first command is one that works from a clone, where the
// module may not be published (go install …@latest answers 403 there):
// git clone, then go install ./cmd/quorum; @latest comes second. Nothing
// between the install and the first commands speaks of Node.js or of the
// real CLI's download, which only quorum's own tests need: that is in a
// section of its own, later.
func TestReadmeLeadsWithWhatWorksFromAClone(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the check needs the go command: %v", err)
	}
	root, module := mainModule(t, goBin)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "## On a fresh machine")
	end := strings.Index(readme, "## The `quorum` command")
	if start < 0 || end < start {
		t.Fatal(`README.md has no "## On a fresh machine" section before "## The ` + "`quorum`" + ` command"`)
	}
	fresh := readme[start:end]
	block := fresh[strings.Index(fresh, "```sh\n")+len("```sh\n"):]
	first, _, _ := strings.Cut(block, "\n")
	if want := "git clone https://" + module + " && cd quorum && go install ./cmd/quorum"; first != want {
		t.Errorf("the first command is %q, want %q", first, want)
	}
	clone, latest := strings.Index(fresh, "git clone"), strings.Index(fresh, "go install "+module+"/cmd/quorum@latest")
	if latest < 0 || latest < clone {
		t.Errorf("go install …@latest is not the second way to install, after the clone")
	}
	for _, word := range []string{"Node.js", "npm", "129 MB", ".ci/test.sh"} {
		if strings.Contains(fresh, word) {
			t.Errorf("the first section speaks of %q, which only quorum's own tests need", word)
		}
	}
	tests := strings.Index(readme, "## Running the tests")
	if tests < end || !strings.Contains(readme[tests:], "bash .ci/test.sh") || !strings.Contains(readme[tests:], "Node.js") {
		t.Errorf(`the tests' needs are not in a "## Running the tests" section after the command's`)
	}
}
