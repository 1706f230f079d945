// Command kube-scheduler is Kubernetes's scheduler with Meridian's learned
// Score plugin (package learned) registered as "MeridianLearned"; a
// KubeSchedulerConfiguration enables it (see scheduler-config.yaml).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"

	"github.com/meridian-dev/meridian/hack/k8s/scheduler/learned"
)

func main() {
	cmd := app.NewSchedulerCommand(app.WithPlugin(learned.Name, learned.New))
	os.Exit(cli.Run(cmd))
}
