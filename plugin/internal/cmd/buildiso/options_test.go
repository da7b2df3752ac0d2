package buildiso_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kairosv1alpha2 "github.com/kairos-io/kubectl-kairos/api/v1alpha2"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/buildiso"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/cmd/cmdtest"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/fetch/fetchtest"
	"github.com/kairos-io/kubectl-kairos/plugin/internal/plugintest"
	"github.com/kairos-io/kubectl-kairos/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunTests(m, &env))
}

const image = "quay.io/kairos/opensuse:leap-15.6-core-amd64-generic-v3.6.0"

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func getArtifact(t *testing.T, ns, name string) *kairosv1alpha2.OSArtifact {
	t.Helper()
	a := &kairosv1alpha2.OSArtifact{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, a); err != nil {
		t.Fatal(err)
	}
	return a
}

func getSecret(t *testing.T, ns, name string) *corev1.Secret {
	t.Helper()
	s := &corev1.Secret{}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestImageBuildWithCloudConfig(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	cc := writeFile(t, "cc.yaml", "#cloud-config\nusers:\n- name: kairos\n")
	out, err := cmdtest.Run(t, kubeconfig, "-n", ns, "build-iso", "--name", "edge", "--image", image,
		"--formats", "iso,raw,netboot", "--cloud-config", cc, "--pull-secret", "regcred")
	if err != nil {
		t.Fatal(err)
	}
	if want := "secret/edge-cloud-config created\nosartifact.build.kairos.io/edge created\n"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	a := getArtifact(t, ns, "edge")
	s := a.Spec
	if s.ImageName != image || !s.ISO || !s.CloudImage || !s.Netboot || s.AzureImage || s.GCEImage || len(s.ImagePullSecrets) != 1 {
		t.Errorf("spec %+v", s)
	}
	if s.CloudConfigRef == nil || s.CloudConfigRef.Name != "edge-cloud-config" || s.CloudConfigRef.Key != "cloud-config.yaml" {
		t.Fatalf("cloudConfigRef %+v", s.CloudConfigRef)
	}
	sec := getSecret(t, ns, "edge-cloud-config")
	if !strings.HasPrefix(string(sec.Data["cloud-config.yaml"]), "#cloud-config\nusers:") || !metav1.IsControlledBy(sec, a) {
		t.Errorf("secret data %q owners %v: want the file, owned by the OSArtifact", sec.Data, sec.OwnerReferences)
	}
}

func TestDockerfileBuild(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	df := writeFile(t, "Dockerfile", "FROM {{ .BASE_IMAGE }}\nRUN echo {{ .VERSION }}\n")
	out, err := cmdtest.Run(t, kubeconfig, "-n", ns, "build-iso", "--dockerfile", df, "--set", "BASE_IMAGE=ubuntu:24.04",
		"--set", "VERSION=v3.6.0=final", "--values-from", "build-values", "-o", "name")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(out)
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "osartifact.build.kairos.io/build-") {
		t.Fatalf("output %q", out)
	}
	name := strings.TrimPrefix(lines[1], "osartifact.build.kairos.io/")
	s := getArtifact(t, ns, name).Spec
	if s.BaseImageDockerfile == nil || s.BaseImageDockerfile.Name != name+"-dockerfile" || s.BaseImageDockerfile.Key != "Dockerfile" {
		t.Fatalf("baseImageDockerfile %+v", s.BaseImageDockerfile)
	}
	if s.DockerfileTemplateValues["VERSION"] != "v3.6.0=final" || s.DockerfileTemplateValues["BASE_IMAGE"] != "ubuntu:24.04" ||
		s.DockerfileTemplateValuesFrom == nil || s.DockerfileTemplateValuesFrom.Name != "build-values" || !s.ISO {
		t.Errorf("spec %+v", s)
	}
	if got := string(getSecret(t, ns, name+"-dockerfile").Data["Dockerfile"]); !strings.HasPrefix(got, "FROM {{ .BASE_IMAGE }}") {
		t.Errorf("Dockerfile secret %q", got)
	}
}

func TestDryRunPrintsObjectsThatParseBack(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	cc := writeFile(t, "cc.yaml", "#cloud-config\n")
	out, err := cmdtest.Run(t, kubeconfig, "-n", ns, "build-iso", "--name", "look", "--base-image", "ubuntu:24.04", "--cloud-config", cc, "--dry-run=client", "-o", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("want a Secret and an OSArtifact, got:\n%s", out)
	}
	var a kairosv1alpha2.OSArtifact
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &a); err != nil {
		t.Fatalf("OSArtifact does not parse back: %v\n%s", err, docs[1])
	}
	if a.Kind != "OSArtifact" || a.Name != "look" || a.Spec.BaseImageName != "ubuntu:24.04" || a.Spec.CloudConfigRef == nil {
		t.Errorf("printed %+v", a)
	}
	var list kairosv1alpha2.OSArtifactList
	if err := env.Client.List(context.Background(), &list, client.InNamespace(ns)); err != nil || len(list.Items) != 0 {
		t.Errorf("--dry-run=client created %d OSArtifacts (%v)", len(list.Items), err)
	}
}

func TestRefusedArtifactLeavesNoSecretBehind(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	cc := writeFile(t, "cc.yaml", "#cloud-config\n")
	// Someone else's OSArtifact holds the name: the API server refuses ours after our Secret
	// was written.
	art := &kairosv1alpha2.OSArtifact{ObjectMeta: metav1.ObjectMeta{Name: "taken", Namespace: ns}}
	art.Spec.ImageName, art.Spec.ISO = image, true
	if err := env.Client.Create(context.Background(), art); err != nil {
		t.Fatal(err)
	}
	_, err := cmdtest.Run(t, kubeconfig, "-n", ns, "build-iso", "--name", "taken", "--image", image, "--cloud-config", cc)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("got %v, want the name clash reported", err)
	}
	if err := env.Client.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "taken-cloud-config"}, &corev1.Secret{}); err == nil {
		t.Error("the Secret of the refused OSArtifact was left behind")
	}
}

func TestBadInputIsRefusedBeforeAnyAPICall(t *testing.T) {
	df := writeFile(t, "Dockerfile", "FROM scratch\n")
	notCC := writeFile(t, "cc.yaml", "users: []\n")
	aFile := writeFile(t, "file", "x")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"no source", []string{"build-iso"}, "exactly one source"},
		{"two sources", []string{"build-iso", "--image", image, "--base-image", "ubuntu"}, "exactly one source"},
		{"set without dockerfile", []string{"build-iso", "--image", image, "--set", "A=b"}, "need --dockerfile"},
		{"set without =", []string{"build-iso", "--dockerfile", df, "--set", "VERSION"}, `--set "VERSION": use KEY=VALUE`},
		{"unreadable dockerfile", []string{"build-iso", "--dockerfile", "/nonexistent/Dockerfile"}, "--dockerfile: open /nonexistent/Dockerfile"},
		{"unreadable cloud-config", []string{"build-iso", "--image", image, "--cloud-config", "/nonexistent.yaml"}, "--cloud-config: open"},
		{"not a cloud-config", []string{"build-iso", "--image", image, "--cloud-config", notCC}, "does not start with #cloud-config"},
		{"unknown format", []string{"build-iso", "--image", image, "--formats", "iso,qcow2"}, `unknown format "qcow2"`},
		{"netboot alone", []string{"build-iso", "--image", image, "--formats", "netboot"}, "use --formats iso,netboot"},
		{"output with dry run", []string{"build-iso", "--image", image, "--dry-run=client", "--output-dir", "dist"}, "there is no build with --dry-run"},
		{"output is a file", []string{"build-iso", "--image", image, "--output-dir", aFile}, "is a file"},
		{"bad values secret", []string{"build-iso", "--dockerfile", df, "--values-from", "Not_A_Name"}, "--values-from"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { cmdtest.RefusedOffline(t, tc.want, tc.args...) })
	}
}

// TestOutputDirWaitsForTheBuildAndCopiesIt plays the operator (status, volume) and the kubelet.
func TestOutputDirWaitsForTheBuildAndCopiesIt(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	built := t.TempDir()
	if err := os.WriteFile(filepath.Join(built, "kairos.iso"), []byte("an ISO"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := &plugintest.Buffer{}
	o := buildiso.NewOptions(plugintest.Flags(kubeconfig, ns), genericiooptions.IOStreams{Out: out, ErrOut: out})
	o.Name, o.Image, o.Output, o.Streamer = "iso", image, filepath.Join(t.TempDir(), "dist"), &fetchtest.LocalStreamer{Dir: built}
	if err := o.Complete(); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- o.Run(context.Background()) }()
	out.WaitFor(t, "osartifact/iso Pending")
	env.RunPods(t, ns) // the kubelet: the fetch pod runs

	ctx := context.Background()
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "iso-artifacts", Namespace: ns, Labels: map[string]string{kairosv1alpha2.LabelArtifact: "iso"}},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}},
	}
	if err := env.Client.Create(ctx, pvc); err != nil {
		t.Fatal(err)
	}
	a := getArtifact(t, ns, "iso")
	a.Status.Phase, a.Status.Message = kairosv1alpha2.ArtifactReady, "Built kairos.iso"
	if err := env.Client.Status().Update(ctx, a); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("build-iso --output-dir did not finish:\n%s", out)
	}
	if got, err := os.ReadFile(filepath.Join(o.Output, "kairos.iso")); err != nil || string(got) != "an ISO" {
		t.Errorf("copied ISO %q (%v)", got, err)
	}
	if !strings.Contains(out.String(), "Copied 1 files into") || !strings.Contains(out.String(), "100%") {
		t.Errorf("output:\n%s", out)
	}
}

func TestFlagCompletion(t *testing.T) {
	kubeconfig, ns := cmdtest.Setup(t, env)
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "regcred", Namespace: ns}}
	if err := env.Client.Create(context.Background(), sec); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"build-iso", "--formats", "iso,r"}, "iso,raw\n"},
		{[]string{"build-iso", "--formats", "iso,"}, "iso,raw\niso,vhd\niso,gce\niso,netboot\n"},
		{[]string{"build-iso", "--pull-secret", "reg"}, "regcred\n"},
		{[]string{"upgrade", "--pull-secret", ""}, "regcred\n"},
	} {
		out, err := cmdtest.Run(t, kubeconfig, append([]string{"-n", ns, "__complete"}, tc.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, tc.want+":") {
			t.Errorf("completing %q:\n%s\nwant %q first", tc.args, out, tc.want)
		}
	}
}
