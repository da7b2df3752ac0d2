// Package plugintest has what the plugin commands' tests share: kubectl flags for the test API
// server and an output buffer that a running command writes while the test reads it.
package plugintest

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/utils/ptr"
)

// Flags are kubectl's connection flags pointing at kubeconfig and namespace.
func Flags(kubeconfig, namespace string) *genericclioptions.ConfigFlags {
	flags := genericclioptions.NewConfigFlags(true)
	flags.KubeConfig, flags.Namespace = ptr.To(kubeconfig), ptr.To(namespace)
	return flags
}

// Buffer is an output buffer safe to write from a command's goroutines and read from the test.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Reset empties the buffer.
func (b *Buffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// WaitFor waits (generously) until the output contains text.
func (b *Buffer) WaitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(b.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("output never showed %q:\n%s", text, b.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
