package cli

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/meridian-dev/meridian/internal/dashboard"
)

type dashboardOptions struct {
	addr                string
	kubeconfig, context string
	viewerToken         bool
}

func newDashboardCommand() *cobra.Command {
	o := &dashboardOptions{}
	cmd := &cobra.Command{
		Use:   "dashboard",
		Short: "Serve the web dashboard: members, workloads and their placement, pending replicas, cloud clusters, sharing, carbon and advice, live",
		Long: `Serve Meridian's web UI over a management cluster's API server: members with
their capacity and health; every MultiClusterDeployment and MultiClusterJob
with its placement per cluster and the explanation (the reason, score and
plugin scores of every cluster considered); pending replicas; cloud clusters
with their node pools and a timeline of bursts and pull-backs; peers,
advertisements, reservations and virtual nodes; CloudVM decisions and jobs
with their emissions against starting at once; and the optimizer's and the
learned scorer's advice. Pages follow watches: they change as the objects
change, without reloading.

It only reads (list and watch), with your own credentials: the kubeconfig's
(--kubeconfig, --context), or with --viewer-token the bearer token each
viewer pastes into the page, so that RBAC decides what each viewer sees. It
listens on loopback unless --addr says otherwise.

  meridian dashboard            # then open http://127.0.0.1:8090`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadKubeconfig(o.kubeconfig, o.context)
			if err != nil {
				return fmt.Errorf("failed to load the management cluster's kubeconfig: %w", err)
			}
			srv, err := dashboard.New(dashboard.Options{Config: cfg, ViewerToken: o.viewerToken})
			if err != nil {
				return err
			}
			ln, err := net.Listen("tcp", o.addr)
			if err != nil {
				return fmt.Errorf("--addr: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Meridian dashboard of %s on http://%s\n", cfg.Host, ln.Addr())
			return serveUntilDone(cmd.Context(), &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}, ln)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", "127.0.0.1:8090", "address to listen on")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of the management cluster (default: $KUBECONFIG, ~/.kube/config or in-cluster)")
	f.StringVar(&o.context, "context", "", "kubeconfig context of the management cluster")
	f.BoolVar(&o.viewerToken, "viewer-token", false, "read with the bearer token each viewer gives, not with the kubeconfig's credentials")
	return cmd
}
