package chaos_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
)

// minSecretLen is the shortest secret value looked for in logs: shorter
// values (a "true", a port) would match by chance.
const minSecretLen = 16

// assertNoSecretsLogged fails t if any log names a credential held in a
// Secret of the management cluster: a value, its base64 form, and for a
// kubeconfig its token, password, client key and any line of a PEM block,
// so that a partial dump is caught too. Errors name the Secret, key and
// log file, never the value.
func assertNoSecretsLogged(t *testing.T, w *world, logs ...string) {
	t.Helper()
	var secrets corev1.SecretList
	if err := w.mgmt.List(t.Context(), &secrets); err != nil {
		t.Fatalf("failed to list the management cluster's Secrets: %v", err)
	}
	needles := map[string]string{} // fragment -> where it comes from
	for _, s := range secrets.Items {
		for key, value := range s.Data {
			where := fmt.Sprintf("Secret %s/%s key %q", s.Namespace, s.Name, key)
			for _, f := range credentialFragments(value) {
				needles[f] = where
			}
		}
	}
	if len(needles) == 0 {
		t.Fatal("no credential found in the management cluster's Secrets: the check would prove nothing")
	}
	for _, path := range logs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("failed to read log %s: %v", path, err)
		}
		if len(data) == 0 {
			t.Fatalf("log %s is empty: the check would prove nothing", path)
		}
		for f, where := range needles {
			if bytes.Contains(data, []byte(f)) {
				t.Errorf("log %s contains a credential of %s", path, where)
			}
		}
	}
	t.Logf("no credential of %d Secrets (%d fragments) in %d logs", len(secrets.Items), len(needles), len(logs))
}

// credentialFragments are the strings whose presence in a log would leak
// value: value itself and its base64 form, and, when value is a
// kubeconfig, its users' tokens, passwords and keys with their PEM lines.
func credentialFragments(value []byte) []string {
	var out []string
	add := func(b []byte) {
		if s := strings.TrimSpace(string(b)); len(s) >= minSecretLen {
			// base64 of the value as stored (a PEM ends in a newline) and
			// trimmed: one is not a substring of the other in general.
			out = append(out, s, base64.StdEncoding.EncodeToString([]byte(s)), base64.StdEncoding.EncodeToString(b))
		}
	}
	cfg, err := clientcmd.Load(value)
	if err != nil || len(cfg.AuthInfos) == 0 {
		add(value)
		return out
	}
	for _, u := range cfg.AuthInfos {
		add([]byte(u.Token))
		add([]byte(u.Password))
		add(u.ClientKeyData)
		for line := range strings.SplitSeq(string(u.ClientKeyData), "\n") {
			if !strings.HasPrefix(line, "-----") && len(line) >= minSecretLen {
				out = append(out, line)
			}
		}
	}
	return out
}

// The check can fail: a kubeconfig's token, its client key's base64 form
// and a single line of the key's PEM block are each found.
func TestCredentialFragments(t *testing.T) {
	key := "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIIrYSSNQFaA2Hwf1duRSxKtLYX5CB04fiyQ8XGx1bbrToAoGCCqGSM49\nAwEHoUQDQgAEWVlJQnpZKp3hkmSLIAi9TJ1tVpFa5cXRy04Gd1nCcbVCB52kLlW9\n-----END EC PRIVATE KEY-----\n"
	kubeconfig := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:6443'}}]\n" +
		"users: [{name: u, user: {token: s3cr3t-token-of-the-member, client-key-data: " + base64.StdEncoding.EncodeToString([]byte(key)) + "}}]\n" +
		"contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n"
	fragments := credentialFragments([]byte(kubeconfig))
	for _, log := range []string{
		"level=error msg=\"failed\" token=s3cr3t-token-of-the-member",
		"dump: client-key-data: " + base64.StdEncoding.EncodeToString([]byte(key)),
		"part: AwEHoUQDQgAEWVlJQnpZKp3hkmSLIAi9TJ1tVpFa5cXRy04Gd1nCcbVCB52kLlW9",
	} {
		found := false
		for _, f := range fragments {
			found = found || strings.Contains(log, f)
		}
		if !found {
			t.Errorf("no fragment of the kubeconfig found in %q", log)
		}
	}
	for _, f := range fragments {
		if strings.Contains("connecting to https://127.0.0.1:6443 as user u", f) {
			t.Errorf("fragment %q is not a secret", f)
		}
	}
}
