package testenv

import (
	"fmt"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/meridian-dev/meridian/config"
)

// ComponentConfig returns a configuration that reaches c as component
// (controller, agent or broker) with only the rights `make manifests`
// generated for it from its RBAC markers (config/rbac/COMPONENT/role.yaml),
// as the Helm chart grants them, so that a test fails with Forbidden when a
// component uses an API its markers do not name. The user is
// "meridian:COMPONENT"; the ClusterRole and its binding are created once per
// cluster.
func (c *Cluster) ComponentConfig(t testing.TB, component string) *rest.Config {
	t.Helper()
	cfg, err := c.componentConfig(t, component)
	if err != nil {
		t.Fatalf("failed to reach %s as the %s: %v", c.Name, component, err)
	}
	return cfg
}

func (c *Cluster) componentConfig(t testing.TB, component string) (*rest.Config, error) {
	role, err := config.ComponentRole(component)
	if err != nil {
		return nil, err
	}
	user := "meridian:" + component
	binding := &rbacv1.ClusterRoleBinding{
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
	}
	binding.Name = role.Name
	for _, obj := range []client.Object{role, binding} {
		if err := c.Client.Create(t.Context(), obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("failed to create %s: %w", obj.GetName(), err)
		}
	}
	u, err := c.env.AddUser(envtest.User{Name: user}, c.Config)
	if err != nil {
		return nil, fmt.Errorf("failed to add user %s: %w", user, err)
	}
	return u.Config(), nil
}

// AddUser returns a configuration that reaches c as user, with whatever
// rights the test binds to that user.
func (c *Cluster) AddUser(user envtest.User) (*rest.Config, error) {
	u, err := c.env.AddUser(user, c.Config)
	if err != nil {
		return nil, fmt.Errorf("failed to add user %s: %w", user.Name, err)
	}
	return u.Config(), nil
}
