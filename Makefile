# Meridian's build. `make help` lists the targets.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
.DEFAULT_GOAL := help

BIN            := $(CURDIR)/bin
TOOLS          := $(BIN)/tools
CONTROLLER_GEN_VERSION := v0.21.0
CONTROLLER_GEN := $(TOOLS)/controller-gen-$(CONTROLLER_GEN_VERSION)
# golangci-lint with kube-api-linter built in, from the module hack/lint,
# whose go.mod pins both; the binary's name carries their versions.
GOLANGCI_LINT_VERSION   := $(shell awk '$$1=="github.com/golangci/golangci-lint/v2"{print $$2}' hack/lint/go.mod)
KUBE_API_LINTER_VERSION := $(shell awk '$$1=="sigs.k8s.io/kube-api-linter"{print $$2}' hack/lint/go.mod)
GOLANGCI_LINT_KAL := $(TOOLS)/golangci-lint-kal-$(GOLANGCI_LINT_VERSION)-$(lastword $(subst -, ,$(KUBE_API_LINTER_VERSION)))
VERSION        ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
GO_TEST_FLAGS  ?=
# Components with their own ClusterRole: name=packages whose +kubebuilder:rbac
# markers make it (+ between packages).
RBAC_COMPONENTS := controller=./internal/controller/... member=./internal/join/... probe=./internal/probe/... agent=./internal/sharing/agent/...+./internal/virtualnode/...+./internal/kubeletproxy/... broker=./internal/sharing/broker/...

##@ General

.PHONY: help
help: ## Show this list of targets.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} \
	  /^[a-zA-Z0-9_-]+:.*?##/ { printf "  %-14s %s\n", $$1, $$2 } \
	  /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Build

.PHONY: build
build: ## Build the meridian binary into bin/meridian.
	go build -ldflags "-X github.com/meridian-dev/meridian/internal/cli.version=$(VERSION)" -o $(BIN)/meridian ./cmd/meridian

.PHONY: sim
sim: ## Run the simulator on seed 001's VI-B scenario and print the comparison.
	go run ./cmd/meridian sim

.PHONY: k8s-bin
k8s-bin: ## Build kube-apiserver, controller-manager, scheduler, kubectl, etcd, kwok, metrics-server once into bin/k8s/<version>.
	@hack/k8s-bin.sh >/dev/null

.PHONY: scheduler-bin
scheduler-bin: k8s-bin ## Build kube-scheduler with Meridian's learned Score plugin (hack/k8s/scheduler) beside the other binaries, as kube-scheduler-meridian.
	@hack/scheduler-bin.sh >/dev/null

.PHONY: helm-bin
helm-bin: ## Build the helm binary the chart tests run (hack/helm-bin.sh, about a minute the first time) into bin/helm/.
	@hack/helm-bin.sh >/dev/null

.PHONY: chromium
chromium: ## Install Debian's Chromium, which the dashboard's browser test drives, when it is missing.
	@hack/debian-bin.sh chromium chromium MERIDIAN_CHROMIUM >/dev/null

.PHONY: prometheus
prometheus: ## Install Debian's Prometheus server, which tests query, when it is missing.
	@hack/prometheus.sh >/dev/null

##@ Generate

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy code from the API types.
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./internal/clusterinventory/...

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate CRDs, each component's RBAC and the webhook configuration into config/ from markers, and copy them (and the Grafana dashboards) into the Helm chart.
	$(CONTROLLER_GEN) crd:generateEmbeddedObjectMeta=true paths=./api/... output:crd:artifacts:config=config/crd/bases
	@# One ClusterRole per component, from the markers of the packages it runs.
	@set -e; for c in $(RBAC_COMPONENTS); do \
	  name=$${c%%=*}; paths=$$(echo "$${c#*=}" | tr + ";"); \
	  $(CONTROLLER_GEN) rbac:roleName=meridian-$$name paths="$$paths" output:rbac:artifacts:config=config/rbac/$$name; \
	done
	$(CONTROLLER_GEN) webhook paths=./internal/webhook/... output:webhook:artifacts:config=config/webhook
	@rm -rf charts/meridian/crds charts/meridian/files && mkdir -p charts/meridian/crds charts/meridian/files/rbac
	cp config/crd/bases/*.yaml charts/meridian/crds/
	cp config/webhook/manifests.yaml charts/meridian/files/webhook.yaml
	@for d in config/rbac/*/; do cp $$d/role.yaml charts/meridian/files/rbac/$$(basename $$d).yaml; done
	@mkdir -p charts/meridian/files/grafana && cp config/grafana/*.json charts/meridian/files/grafana/

##@ Test

.PHONY: test
test: lint k8s-bin scheduler-bin helm-bin prometheus chromium ## Lint (make lint), build what is missing, then run every test (unit, envtest, end-to-end, the Helm chart, the dashboard in Chromium, the learned scheduler plugin's module) with a summary.
	@hack/test.sh ./...

.PHONY: test-unit
test-unit: helm-bin prometheus ## Run the tests that need no API server.
	MERIDIAN_HELM="$${MERIDIAN_HELM:-$$(hack/helm-bin.sh)}" MERIDIAN_PROMETHEUS="$${MERIDIAN_PROMETHEUS:-$$(hack/prometheus.sh)}" go test $(GO_TEST_FLAGS) -short ./...

.PHONY: test-e2e
test-e2e: k8s-bin prometheus ## Run the end-to-end tests on a local testbed (seed 001 VI-B and VI-D at reduced scale, sharing, the dashboard, the optimizer).
	@hack/test.sh ./test/e2e/...

.PHONY: test-chaos
KILLS ?= 5
test-chaos: k8s-bin ## SIGKILL the controller KILLS times (default 5; 100 for the full run), two replicas, while MultiClusterDeployments and MultiClusterJobs are created, scaled, moved and deleted; cut a member off and kill its API server; checks nothing is duplicated, lost or orphaned and no credential is logged (docs/chaos.md).
	MERIDIAN_CHAOS_KILLS=$(KILLS) hack/test.sh ./test/chaos/...

.PHONY: fuzz
fuzz: ## Fuzz every parser of outside input for FUZZTIME each (default 10s; FUZZTIME=1m for the longer run of docs/fuzzing.md).
	hack/fuzz.sh

.PHONY: testbed-stress
testbed-stress: k8s-bin build ## Start and stop the seed001 testbed RUNS times (default 20) with the disk busy; print how many starts passed.
	hack/testbed-stress.sh -n $(or $(RUNS),20) -p $(or $(PROFILE),seed001)

.PHONY: bench-e2e
bench-e2e: k8s-bin build ## Measure, on a testbed, the time from creating a MultiClusterDeployment to its pods Running.
	$(BIN)/meridian bench e2e

.PHONY: bench-load
bench-load: k8s-bin build ## Create 1,000 MultiClusterDeployments at once on a seed001 testbed, then start and restart the controller over 30,000 (meridian bench load; docs/load.md).
	$(BIN)/meridian bench load

.PHONY: bench-sharing
bench-sharing: k8s-bin build ## Time, on a sharing testbed, 100 advertisements to 100 Ready virtual nodes and an offloaded pod to Running (meridian bench sharing), beside seed 002's figures.
	$(BIN)/meridian bench sharing

.PHONY: bench-propagation
bench-propagation: k8s-bin build ## Run Karmada's performance workload (1,000 Deployments of 10 replicas, their ConfigMaps and 1,000 PropagationPolicies at 5 per second over 10 members of 10 nodes) and print time to placed, to Running, and the controller's CPU and memory (docs/karmada.md).
	$(BIN)/meridian bench propagation

.PHONY: carbon-eval
carbon-eval: ## Replay a recorded year of grid intensities against 2,000 jobs (seeds 1-8) and compare carbon policies with an oracle; writes bin/carbon-eval/index.html.
	go run ./cmd/meridian sim carbon --seed 1,2,3,4,5,6,7,8 --out bin/carbon-eval

.PHONY: learn-eval
learn-eval: ## Train the learned node scorer (EL-RL, about 35 s quiet) and compare it with kube-scheduler's scoring at 10, 100 and 1,000 nodes on held-out seeds 7, 8 and 9; writes bin/learn-eval.html (seed 7).
	@mkdir -p bin
	go run ./cmd/meridian learn train --reward EL-RL --out bin/EL-RL.json
	go run ./cmd/meridian learn eval --model bin/EL-RL.json --nodes 10,100,1000 --seed 7 --html bin/learn-eval.html
	go run ./cmd/meridian learn eval --model bin/EL-RL.json --nodes 10,100,1000 --seed 8
	go run ./cmd/meridian learn eval --model bin/EL-RL.json --nodes 10,100,1000 --seed 9

.PHONY: learn-clusters
learn-clusters: ## Train the learned cluster scorer (about 2 min) and compare it with WorstFit and BestFit in meridian sim (VI-B, heavy-tail, seed 7); writes bin/learn-clusters.html.
	@mkdir -p $(BIN)
	go run ./cmd/meridian learn train --level cluster --out $(BIN)/clusters.json
	go run ./cmd/meridian learn eval --level cluster --model $(BIN)/clusters.json --seed 7 --html $(BIN)/learn-clusters.html

.PHONY: advisor-eval
advisor-eval: ## Compare the price/performance optimizer with seed 004's rule, the CPU HPA and an oracle on a simulated web application; writes bin/advisor-eval.html.
	@mkdir -p bin
	go run ./cmd/meridian advisor eval --html bin/advisor-eval.html

.PHONY: bench
bench: ## Run the placement benchmarks on one core.
	go test -run '^$$' -bench . -benchmem -cpu 1 ./internal/placement/...

.PHONY: lint
lint: $(GOLANGCI_LINT_KAL) ## Run golangci-lint, with kube-api-linter built in for api/..., with .golangci.yml.
	@# With the tests' build flags (hack/test.sh), so that the packages it
	@# compiles to type-check serve the tests too.
	CGO_ENABLED=0 GOFLAGS=-trimpath $(GOLANGCI_LINT_KAL) run ./...

.PHONY: verify
verify: generate manifests ## Fail if generated code or manifests are stale, or go.mod is untidy.
	go mod tidy
	@if [ -n "$$(git status --porcelain -- api config charts/meridian go.mod go.sum)" ]; then \
	  echo "generated files are stale; run 'make generate manifests' and 'go mod tidy' and commit:"; \
	  git status --porcelain -- api config charts/meridian go.mod go.sum; git --no-pager diff --stat -- api config go.mod go.sum; exit 1; fi
	@echo "generated files are up to date"

##@ Tools

$(CONTROLLER_GEN):
	@mkdir -p $(TOOLS)
	@echo "installing controller-gen $(CONTROLLER_GEN_VERSION)"
	GOBIN=$(TOOLS) go install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	mv $(TOOLS)/controller-gen $@

$(GOLANGCI_LINT_KAL): hack/lint/go.mod hack/lint/go.sum hack/lint/main.go
	@mkdir -p $(TOOLS)
	@echo "building golangci-lint $(GOLANGCI_LINT_VERSION) with kube-api-linter (hack/lint; a few minutes the first time)"
	cd hack/lint && go build -trimpath -o $@ .

.PHONY: clean
clean: ## Remove build output (keeps the cached Kubernetes binaries).
	rm -f $(BIN)/meridian
