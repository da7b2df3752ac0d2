// Command dist builds the kubectl-kairos release archives for krew and writes their checksums
// into the krew manifest.
//
// Usage: go run ./hack/dist -version v0.1.0 [-out dist] [-manifest krew-manifest.yaml]
// [-platforms linux/amd64,...] [-base-url URL]
//
// Each archive (tar.gz) holds the plugin binary, LICENSE and the kubectl_complete-kairos shim.
package main

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
	"time"
)

// archiveTime stamps every archived file (reproducible archives).
var archiveTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

var defaultPlatforms = "linux/amd64,linux/arm64,darwin/amd64,darwin/arm64,windows/amd64"

type platform struct {
	OS, Arch, Bin, Archive, URI, SHA256 string
}

func main() {
	version := flag.String("version", "", "Release version, e.g. v0.1.0 (required).")
	out := flag.String("out", "dist", "Directory for the archives.")
	manifest := flag.String("manifest", "krew-manifest.yaml", "Krew manifest to write.")
	platforms := flag.String("platforms", defaultPlatforms, "Comma-separated GOOS/GOARCH list.")
	baseURL := flag.String("base-url", "https://github.com/kairos-io/kubectl-kairos/releases/download", "Where the archives are published; the version is appended.")
	flag.Parse()
	if err := run(*version, *out, *manifest, *platforms, *baseURL); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(version, out, manifest, platformList, baseURL string) error {
	if !strings.HasPrefix(version, "v") || strings.Count(version, ".") != 2 {
		return fmt.Errorf("-version %q: give a semantic version such as v0.1.0", version)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var built []platform
	for _, p := range strings.Split(platformList, ",") {
		goos, goarch, ok := strings.Cut(strings.TrimSpace(p), "/")
		if !ok {
			return fmt.Errorf("platform %q: use GOOS/GOARCH", p)
		}
		pl, err := buildArchive(version, out, baseURL, goos, goarch)
		if err != nil {
			return err
		}
		fmt.Printf("%s  %s\n", pl.SHA256, pl.Archive)
		built = append(built, pl)
	}
	return writeManifest(manifest, version, built)
}

func buildArchive(version, out, baseURL, goos, goarch string) (platform, error) {
	bin := "kubectl-kairos"
	if goos == "windows" {
		bin += ".exe"
	}
	tmp, err := os.MkdirTemp("", "kairos-dist")
	if err != nil {
		return platform{}, err
	}
	defer os.RemoveAll(tmp)
	build := exec.Command("go", "build", "-trimpath", "-o", filepath.Join(tmp, bin),
		"-ldflags", "-s -w -X github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/version.Version="+version,
		"./plugin/cmd/kubectl-kairos")
	build.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
	if output, err := build.CombinedOutput(); err != nil {
		return platform{}, fmt.Errorf("build %s/%s: %v\n%s", goos, goarch, err, output)
	}
	name := fmt.Sprintf("kubectl-kairos_%s_%s_%s.tar.gz", version, goos, goarch)
	files := []struct{ src, dst string }{
		{filepath.Join(tmp, bin), bin},
		{"LICENSE", "LICENSE"},
		{filepath.Join("plugin", "kubectl_complete-kairos"), "kubectl_complete-kairos"},
	}
	sum, err := writeTarGz(filepath.Join(out, name), files)
	if err != nil {
		return platform{}, err
	}
	return platform{OS: goos, Arch: goarch, Bin: bin, Archive: name,
		URI: strings.TrimRight(baseURL, "/") + "/" + version + "/" + name, SHA256: sum}, nil
}

// writeTarGz writes the files into a gzipped tar and returns its sha256.
func writeTarGz(path string, files []struct{ src, dst string }) (string, error) {
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	gz := gzip.NewWriter(io.MultiWriter(f, h))
	tw := tar.NewWriter(gz)
	for _, file := range files {
		info, err := os.Stat(file.src)
		if err != nil {
			return "", err
		}
		hdr, err := tar.FileInfoHeader(info, "")
		if err != nil {
			return "", err
		}
		// Fixed times, owners and modes: the same commit gives the same archive, whatever the
		// checkout, so the checksums in the manifest can be reproduced.
		hdr.Name, hdr.ModTime = file.dst, archiveTime
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		hdr.Mode = 0o644
		if info.Mode()&0o111 != 0 {
			hdr.Mode = 0o755
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return "", err
		}
		src, err := os.Open(file.src)
		if err != nil {
			return "", err
		}
		_, err = io.Copy(tw, src)
		src.Close()
		if err != nil {
			return "", err
		}
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := gz.Close(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), f.Close()
}

var manifestTemplate = template.Must(template.New("manifest").Parse(`# Krew plugin manifest, written by ` + "`make dist`" + ` (hack/dist); do not edit the checksums by hand.
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: kairos
spec:
  version: {{ .Version }}
  homepage: https://github.com/kairos-io/kubectl-kairos
  shortDescription: Upgrade and operate Kairos nodes
  description: |
    Day-2 operations for Kubernetes clusters running Kairos, through the Kairos operator:
    upgrade nodes a few at a time with cordon, drain and verified reboots, run commands on
    selected nodes, build ISO and disk images in the cluster, and follow all of it live
    (status, node-prefixed logs).
  caveats: |
    The Kairos operator must be installed in the cluster:
      kubectl apply -k config/default   (from the operator's repository)

    For "kubectl kairos <TAB>" completion (kubectl 1.26+), copy kubectl_complete-kairos
    from the plugin's directory (~/.krew/store/kairos/{{ .Version }}/) onto your PATH.
  platforms:
{{- range .Platforms }}
  - selector:
      matchLabels:
        os: {{ .OS }}
        arch: {{ .Arch }}
    uri: {{ .URI }}
    sha256: {{ .SHA256 }}
    bin: {{ .Bin }}
    files:
    - from: {{ .Bin }}
      to: .
    - from: LICENSE
      to: .
    - from: kubectl_complete-kairos
      to: .
{{- end }}
`))

func writeManifest(path, version string, platforms []platform) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := manifestTemplate.Execute(f, struct {
		Version   string
		Platforms []platform
	}{version, platforms}); err != nil {
		return err
	}
	return f.Close()
}
