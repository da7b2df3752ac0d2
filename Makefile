# kubectl-kairos and the Kairos operator.
#
# `make test` is the whole suite (unit + API tier); it builds what it needs.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

GO ?= go
BIN_DIR ?= $(CURDIR)/bin

# Pinned versions of the test control plane. They are built from the Go module proxy, since
# nothing here can download release binaries.
KUBE_VERSION ?= v1.36.3
ETCD_VERSION ?= v3.6.7
KWOK_VERSION ?= v0.8.0
CONTROLLER_TOOLS_VERSION ?= v0.23.0

# Built binaries live outside the work tree so that every clone on a machine reuses them. The
# directories are named after the content of the files that pin them (not their mtime, which is
# new in every clone), so a version bump builds afresh and nothing else does.
CACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kubectl-kairos
pin_hash = $(shell cat $(1) | sha256sum | cut -c1-12)
TESTBIN ?= $(CACHE_DIR)/testbin/k8s-$(KUBE_VERSION)-$(call pin_hash,test/testbin/*/go.mod test/testbin/*/go.sum)
CONTROLLER_GEN ?= $(CACHE_DIR)/tools/controller-gen-$(CONTROLLER_TOOLS_VERSION)-$(call pin_hash,hack/tools/go.mod hack/tools/go.sum)

KUBE_LDFLAGS := -s -w \
	-X k8s.io/component-base/version.gitVersion=$(KUBE_VERSION) \
	-X k8s.io/component-base/version.gitMajor=$(word 1,$(subst ., ,$(KUBE_VERSION:v%=%))) \
	-X k8s.io/component-base/version.gitMinor=$(word 2,$(subst ., ,$(KUBE_VERSION:v%=%))) \
	-X k8s.io/component-base/version.gitTreeState=clean \
	-X k8s.io/client-go/pkg/version.gitVersion=$(KUBE_VERSION) \
	-X k8s.io/client-go/pkg/version.gitMajor=$(word 1,$(subst ., ,$(KUBE_VERSION:v%=%))) \
	-X k8s.io/client-go/pkg/version.gitMinor=$(word 2,$(subst ., ,$(KUBE_VERSION:v%=%)))

KUBE_BINS := kube-apiserver kube-controller-manager kube-scheduler kubectl

export KUBEBUILDER_ASSETS := $(TESTBIN)
export KAIROS_TESTBIN := $(TESTBIN)

.PHONY: all
all: build

##@ Build

.PHONY: build
build: ## Build the operator, the node labeler and the plugin into bin/.
	$(GO) build -o $(BIN_DIR)/ ./operator/cmd/... ./plugin/cmd/...

.PHONY: fmt
fmt: ## Format the code.
	gofmt -w $$(git ls-files --cached --others --exclude-standard '*.go')

VERSION ?= v0.1.0

.PHONY: dist
dist: ## Build the plugin's release archives into dist/ and write their sha256 into krew-manifest.yaml.
	$(GO) run ./hack/dist -version $(VERSION) -out dist -manifest krew-manifest.yaml

##@ Generate

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Regenerate deepcopy code, CRDs and the operator's ClusterRole.
	CONTROLLER_GEN=$(CONTROLLER_GEN) GO=$(GO) hack/generate.sh

$(CONTROLLER_GEN):
	mkdir -p $(dir $@)
	$(GO) -C hack/tools build -o $@ sigs.k8s.io/controller-tools/cmd/controller-gen

##@ Test

.PHONY: test
test: lint testbin $(CONTROLLER_GEN) ## Run every test: unit, API tier (real kube-apiserver + etcd), generated files.
	CONTROLLER_GEN=$(CONTROLLER_GEN) $(GO) test ./... -count=1 -timeout 30m

.PHONY: lint
lint: ## Fail on unformatted code and go vet findings.
	@unformatted=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt wants to change: $$unformatted (run make fmt)"; exit 1; fi
	$(GO) vet ./...

.PHONY: bench
bench: testbin ## Measure: a 200-node NodeOp rollout with the real Job controller (prints figures).
	$(GO) test ./test/bench/ -run '^$$' -bench . -benchtime 1x -timeout 20m -v

.PHONY: testbin
testbin: $(TESTBIN)/etcd $(addprefix $(TESTBIN)/,$(KUBE_BINS)) $(TESTBIN)/kwok ## Build the test control plane (cached).
	@echo "test control plane in $(TESTBIN)"

$(TESTBIN)/etcd:
	mkdir -p $(TESTBIN)
	cd test/testbin/etcd && $(GO) build -buildvcs=false -trimpath -ldflags '-s -w' -o $@ go.etcd.io/etcd/server/v3

# One go build for all Kubernetes binaries: they share most of their packages.
$(addprefix $(TESTBIN)/,$(KUBE_BINS)) &:
	mkdir -p $(TESTBIN)
	cd test/testbin/kube && $(GO) build -buildvcs=false -trimpath -ldflags '$(KUBE_LDFLAGS)' -o $(TESTBIN)/ \
		$(addprefix k8s.io/kubernetes/cmd/,$(KUBE_BINS))
	touch $(addprefix $(TESTBIN)/,$(KUBE_BINS))

$(TESTBIN)/kwok:
	mkdir -p $(TESTBIN)
	cd test/testbin/kwok && $(GO) build -buildvcs=false -trimpath -ldflags '-s -w' -o $@ sigs.k8s.io/kwok/cmd/kwok

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*##/ {printf "  %-14s %s\n", $$1, $$2} /^##@/ {printf "\n%s\n", substr($$0, 5)}' $(MAKEFILE_LIST)
