// Package generated fails when files derived from Go markers (deepcopy code, CRDs, the
// operator's ClusterRole) are out of date: it runs hack/generate.sh on a copy of the tree and
// compares. `make generate` brings them up to date.
package generated

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

// Inputs of hack/generate.sh, copied to the scratch tree (test/testenv: operator test helpers
// import it, and controller-gen loads every package under operator/).
var inputs = []string{"go.mod", "go.sum", "api", "operator", "hack", "config", "test/testenv"}

// Outputs compared after generation (globs, relative to the repo root).
var outputs = []string{
	"api/*/zz_generated.deepcopy.go",
	"config/crd/bases/*.yaml",
	"config/rbac/role.yaml",
}

func TestGeneratedFilesAreUpToDate(t *testing.T) {
	root := testenv.RepoRoot()
	scratch := t.TempDir()
	for _, in := range inputs {
		if err := copyTree(filepath.Join(root, in), filepath.Join(scratch, in)); err != nil {
			t.Fatalf("copy %s: %v", in, err)
		}
	}

	cmd := exec.Command(filepath.Join(scratch, "hack", "generate.sh"))
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "CONTROLLER_GEN="+controllerGen(t, root))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/generate.sh: %v\n%s", err, out)
	}

	compared := 0
	for _, glob := range outputs {
		generated, err := filepath.Glob(filepath.Join(scratch, glob))
		if err != nil {
			t.Fatal(err)
		}
		committed, _ := filepath.Glob(filepath.Join(root, glob))
		if len(generated) != len(committed) {
			t.Errorf("%s: generation gives %d files, the tree has %d; run `make generate`", glob, len(generated), len(committed))
		}
		for _, gen := range generated {
			rel, _ := filepath.Rel(scratch, gen)
			want, err := os.ReadFile(gen)
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil {
				t.Errorf("%s is missing; run `make generate`", rel)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s is stale; run `make generate`", rel)
			}
			compared++
		}
	}
	if compared < 6 {
		t.Fatalf("compared only %d generated files; the output globs no longer match the tree", compared)
	}
}

// controllerGen returns the pinned controller-gen: the one `make test` built, or a fresh build
// from hack/tools when the test runs on its own.
func controllerGen(t *testing.T, root string) string {
	if bin := os.Getenv("CONTROLLER_GEN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "controller-gen")
	cmd := exec.Command("go", "build", "-o", bin, "sigs.k8s.io/controller-tools/cmd/controller-gen")
	cmd.Dir = filepath.Join(root, "hack", "tools")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build controller-gen: %v\n%s", err, out)
	}
	return bin
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil // tests do not feed generation
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}
