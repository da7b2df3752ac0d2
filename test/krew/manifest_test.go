// Package krew checks the plugin's krew manifest against krew's rules for plugin manifests,
// and that `make dist` produces archives that match it.
package krew

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

// manifest is the part of krew's Plugin type (krew.googlecontainertools.github.com/v1alpha2)
// that the rules speak of.
type manifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string     `json:"version"`
		Homepage         string     `json:"homepage"`
		ShortDescription string     `json:"shortDescription"`
		Description      string     `json:"description"`
		Caveats          string     `json:"caveats"`
		Platforms        []platform `json:"platforms"`
	} `json:"spec"`
}

type platform struct {
	Selector struct {
		MatchLabels map[string]string `json:"matchLabels"`
	} `json:"selector"`
	URI    string `json:"uri"`
	SHA256 string `json:"sha256"`
	Bin    string `json:"bin"`
	Files  []struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"files"`
}

var (
	semver = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)
	sha    = regexp.MustCompile(`^[0-9a-f]{64}$`)
)

func load(t *testing.T, path string) manifest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.UnmarshalStrict(data, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// checkRules applies krew's manifest rules.
func checkRules(t *testing.T, m manifest) {
	t.Helper()
	if m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Kind != "Plugin" {
		t.Errorf("apiVersion/kind = %s/%s", m.APIVersion, m.Kind)
	}
	// The name is what follows "kubectl-" in the binary's name, so "kubectl kairos" finds it.
	if m.Metadata.Name != "kairos" {
		t.Errorf("metadata.name = %q, want kairos", m.Metadata.Name)
	}
	if !semver.MatchString(m.Spec.Version) {
		t.Errorf("spec.version %q is not a semantic version with a leading v", m.Spec.Version)
	}
	if !strings.HasPrefix(m.Spec.Homepage, "https://") {
		t.Errorf("spec.homepage %q", m.Spec.Homepage)
	}
	if n := len(m.Spec.ShortDescription); n == 0 || n > 50 {
		t.Errorf("spec.shortDescription has %d characters; krew wants a short one-liner", n)
	}
	if m.Spec.Description == "" || !strings.Contains(m.Spec.Caveats, "kubectl_complete-kairos") {
		t.Error("spec.description missing, or spec.caveats do not name the completion shim")
	}
	if len(m.Spec.Platforms) == 0 {
		t.Fatal("no platforms")
	}
	covered := map[string]int{}
	for i, p := range m.Spec.Platforms {
		os, arch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		if os == "" || arch == "" {
			t.Errorf("platform %d: selector must name os and arch", i)
		}
		covered[os+"/"+arch]++
		if !strings.HasPrefix(p.URI, "https://") || !(strings.HasSuffix(p.URI, ".tar.gz") || strings.HasSuffix(p.URI, ".zip")) {
			t.Errorf("platform %s/%s: uri %q", os, arch, p.URI)
		}
		if !sha.MatchString(p.SHA256) {
			t.Errorf("platform %s/%s: sha256 %q", os, arch, p.SHA256)
		}
		wantBin := "kubectl-kairos"
		if os == "windows" {
			wantBin += ".exe"
		}
		if p.Bin != wantBin {
			t.Errorf("platform %s/%s: bin %q, want %q", os, arch, p.Bin, wantBin)
		}
		froms := map[string]bool{}
		for _, f := range p.Files {
			froms[f.From] = true
		}
		for _, need := range []string{p.Bin, "LICENSE", "kubectl_complete-kairos"} {
			if !froms[need] {
				t.Errorf("platform %s/%s: files do not install %s", os, arch, need)
			}
		}
	}
	for platform, n := range covered {
		if n > 1 {
			t.Errorf("%d platforms' selectors match %s; krew needs exactly one", n, platform)
		}
	}
	for _, want := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64"} {
		if covered[want] == 0 {
			t.Errorf("no platform for %s", want)
		}
	}
}

func TestCheckedInManifestFollowsKrewRules(t *testing.T) {
	checkRules(t, load(t, filepath.Join(testenv.RepoRoot(), "krew-manifest.yaml")))
}

// TestDistArchivesMatchTheManifest runs the dist builder for this machine's platform and checks
// the archive against the manifest it wrote: checksum, contents, and a binary that runs.
func TestDistArchivesMatchTheManifest(t *testing.T) {
	m, out := runDist(t)
	if m.Spec.Version != "v9.9.9" || len(m.Spec.Platforms) != 1 {
		t.Fatalf("manifest version %s, %d platforms", m.Spec.Version, len(m.Spec.Platforms))
	}
	p := m.Spec.Platforms[0]
	archive := filepath.Join(out, filepath.Base(p.URI))
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != p.SHA256 {
		t.Errorf("sha256 in the manifest does not match %s", filepath.Base(archive))
	}

	unpacked := t.TempDir()
	names := untar(t, archive, unpacked)
	for _, want := range []string{p.Bin, "LICENSE", "kubectl_complete-kairos"} {
		if !names[want] {
			t.Errorf("archive lacks %s (has %v)", want, names)
		}
	}
	version, err := exec.Command(filepath.Join(unpacked, p.Bin), "version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(version)) != "kubectl-kairos v9.9.9" {
		t.Errorf("packaged binary: %q, %v", version, err)
	}
}

// TestDistIsReproducible builds the same archive twice: the checksums must agree.
func TestDistIsReproducible(t *testing.T) {
	var sums []string
	for range 2 {
		m, _ := runDist(t)
		sums = append(sums, m.Spec.Platforms[0].SHA256)
	}
	if sums[0] != sums[1] {
		t.Errorf("two builds of the same tree gave %s and %s", sums[0], sums[1])
	}
}

// runDist builds version v9.9.9 for this machine's platform into a temporary directory and
// returns the manifest it wrote and the directory.
func runDist(t *testing.T) (manifest, string) {
	t.Helper()
	out := t.TempDir()
	manifestPath := filepath.Join(out, "krew-manifest.yaml")
	cmd := exec.Command("go", "run", "./hack/dist", "-version", "v9.9.9", "-out", out,
		"-manifest", manifestPath, "-platforms", runtime.GOOS+"/"+runtime.GOARCH)
	cmd.Dir = testenv.RepoRoot()
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/dist: %v\n%s", err, output)
	}
	return load(t, manifestPath), out
}

func untar(t *testing.T, archive, dir string) map[string]bool {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	names := map[string]bool{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names[hdr.Name] = true
		out, err := os.OpenFile(filepath.Join(dir, filepath.Base(hdr.Name)), os.O_CREATE|os.O_WRONLY, os.FileMode(hdr.Mode))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, tr); err != nil {
			t.Fatal(err)
		}
		out.Close()
	}
}
