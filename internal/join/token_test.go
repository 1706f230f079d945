package join_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	multiclusterv1alpha1 "github.com/meridian-dev/meridian/api/multicluster/v1alpha1"
	"github.com/meridian-dev/meridian/internal/controller"
	"github.com/meridian-dev/meridian/internal/join"
	"github.com/meridian-dev/meridian/internal/testenv"
)

// secretToken returns the token of the joined member's kubeconfig Secret
// and when it was issued.
func secretToken(t *testing.T, c client.Client, name string) (string, string) {
	t.Helper()
	s := &corev1.Secret{}
	if err := c.Get(t.Context(), client.ObjectKey{Namespace: join.DefaultNamespace, Name: join.SecretName(name)}, s); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.Load(s.Data[join.KubeconfigKey])
	if err != nil {
		t.Fatal(err)
	}
	return cfg.AuthInfos[cfg.Contexts[cfg.CurrentContext].AuthInfo].Token, s.Annotations[multiclusterv1alpha1.AnnotationTokenIssued]
}

// TestTokenRenewedWhileMemberStaysReady joins a member with the shortest
// token an API server issues and a controller that renews it two seconds
// after each issue: the member is renewed twice, each time with a new
// token that its own ServiceAccount asked for, and never stops being
// Ready.
func TestTokenRenewedWhileMemberStaysReady(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	member := env.Members[0]
	member.AddNode(t, "edge-node", "4", "16Gi")
	joinEdge(t, env, member.Config, join.Options{Name: "edge", TokenTTL: 10 * time.Minute})
	startController(t, env, controller.Options{TokenRenewBefore: 10*time.Minute - 2*time.Second})
	eventually(t, "the joined member Ready", func() string { return clusterReady(t, env.Management.Client, "edge") })

	first, _ := secretToken(t, env.Management.Client, "edge")
	tokens := []string{first}
	eventually(t, "two renewals", func() string {
		if msg := clusterReady(t, env.Management.Client, "edge"); msg != "" {
			t.Fatalf("the member stopped being Ready after %d renewals: %s", len(tokens)-1, msg)
		}
		if token, _ := secretToken(t, env.Management.Client, "edge"); token != tokens[len(tokens)-1] {
			tokens = append(tokens, token)
		}
		if len(tokens) < 3 {
			return fmt.Sprintf("%d renewals", len(tokens)-1)
		}
		return ""
	})
	// Ready after the second renewal too, with a heartbeat sent with the
	// new token.
	renewed := time.Now()
	eventually(t, "a heartbeat after the second renewal", func() string {
		c := &multiclusterv1alpha1.Cluster{}
		if err := env.Management.Client.Get(t.Context(), client.ObjectKey{Name: "edge"}, c); err != nil {
			return err.Error()
		}
		if msg := clusterReady(t, env.Management.Client, "edge"); msg != "" {
			t.Fatal(msg)
		}
		if c.Status.LastHeartbeatTime == nil || c.Status.LastHeartbeatTime.Time.Before(renewed.Truncate(time.Second)) {
			return "no heartbeat since"
		}
		return ""
	})
	events := &corev1.EventList{}
	if err := env.Management.Client.List(t.Context(), events); err != nil {
		t.Fatal(err)
	}
	renewals := 0
	for _, e := range events.Items {
		if e.Reason == "TokenRenewed" && strings.Contains(e.Message, "meridian-system/meridian-controller") {
			renewals++
		}
	}
	if renewals < 2 {
		t.Errorf("%d TokenRenewed events, want at least 2", renewals)
	}
}

// TestExpiredTokenSaysWhatToDo shows a member whose token expired (a
// controller stopped for longer than the rest of its lifetime) turns not
// Ready with the command that issues a new one, and that the join does.
func TestExpiredTokenSaysWhatToDo(t *testing.T) {
	env := testenv.Start(t, testenv.Options{Members: 1})
	member := env.Members[0]
	joinEdge(t, env, member.Config, join.Options{Name: "edge"})
	s := &corev1.Secret{}
	if err := env.Management.Client.Get(t.Context(), client.ObjectKey{Namespace: join.DefaultNamespace, Name: join.SecretName("edge")}, s); err != nil {
		t.Fatal(err)
	}
	s.Annotations[multiclusterv1alpha1.AnnotationTokenIssued] = time.Now().Add(-25 * time.Hour).UTC().Format(time.RFC3339)
	s.Annotations[multiclusterv1alpha1.AnnotationTokenExpires] = time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	if err := env.Management.Client.Update(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	startController(t, env, controller.Options{})
	eventually(t, "Ready False, CredentialsExpired", func() string {
		c := &multiclusterv1alpha1.Cluster{}
		if err := env.Management.Client.Get(t.Context(), client.ObjectKey{Name: "edge"}, c); err != nil {
			return err.Error()
		}
		cond := meta.FindStatusCondition(c.Status.Conditions, multiclusterv1alpha1.ClusterReady)
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != "CredentialsExpired" || !strings.Contains(cond.Message, "run meridian join edge again") {
			return fmt.Sprintf("Ready = %+v", cond)
		}
		return ""
	})
	joinEdge(t, env, member.Config, join.Options{Name: "edge"})
	eventually(t, "Ready again after a new join", func() string { return clusterReady(t, env.Management.Client, "edge") })
}
