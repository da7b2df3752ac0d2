#!/usr/bin/env bash
# Regenerates everything derived from Go markers, in the tree of the current directory:
# deepcopy code, the CRDs (trimmed, see hack/crdtrim) and the operator's ClusterRole.
# `make generate` runs it on the work tree; test/generated runs it on a copy to find stale files.
set -euo pipefail
: "${CONTROLLER_GEN:?set CONTROLLER_GEN to the controller-gen binary (make generate does)}"
GO=${GO:-go}

"$CONTROLLER_GEN" object:headerFile=hack/boilerplate.go.txt paths=./api/...
"$CONTROLLER_GEN" crd paths=./api/... output:crd:artifacts:config=config/crd/bases
"$GO" run ./hack/crdtrim config/crd/bases/build.kairos.io_osartifacts.yaml spec.exporters spec.volume
"$CONTROLLER_GEN" rbac:roleName=manager paths=./operator/... output:rbac:artifacts:config=config/rbac
