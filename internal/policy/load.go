package policy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"

	"github.com/open-policy-agent/opa/v1/bundle"
	"github.com/open-policy-agent/opa/v1/keys"
)

// Stages a bundle can be refused at, as the load-failure metric labels them.
const (
	stageDownload = "download"
	stageRead     = "read"
	stageCompile  = "compile"
)

// stageError is a refused bundle and the stage it was refused at.
type stageError struct {
	stage string
	err   error
}

func (e *stageError) Error() string { return e.err.Error() }
func (e *stageError) Unwrap() error { return e.err }

func refuse(stage string, err error) error { return &stageError{stage: stage, err: err} }

func stageOf(err error) string {
	if se := (*stageError)(nil); errors.As(err, &se) {
		return se.stage
	}
	return stageRead
}

// verificationConfig returns how bundles are verified: nil (not at all)
// without a signing key, else with the key in o.SigningKeyFile.
func verificationConfig(o Options) (*bundle.VerificationConfig, error) {
	if o.SigningKeyFile == "" {
		return nil, nil
	}
	key, err := os.ReadFile(o.SigningKeyFile)
	if err != nil {
		return nil, fmt.Errorf("failed to read the bundle signing key (signingKeyFile %q): %w", o.SigningKeyFile, err)
	}
	kc, err := keys.NewKeyConfig(string(key), o.SigningAlgorithm, "")
	if err != nil {
		return nil, fmt.Errorf("bundle signing key %q is not a valid %s key: %w", o.SigningKeyFile, o.SigningAlgorithm, err)
	}
	return bundle.NewVerificationConfig(map[string]*bundle.KeyConfig{o.SigningKeyID: kc}, o.SigningKeyID, "", nil), nil
}

// readBundle reads a bundle through loader and, when vc is set, verifies its
// signature: a bundle without .signatures.json, signed with another key or
// whose files do not match their signed digests is refused.
func readBundle(loader bundle.DirectoryLoader, vc *bundle.VerificationConfig, source string) (*bundle.Bundle, error) {
	r := bundle.NewCustomReader(loader).WithSkipBundleVerification(vc == nil)
	if vc != nil {
		r = r.WithBundleVerificationConfig(vc)
	}
	b, err := r.Read()
	if err != nil {
		return nil, refuse(stageRead, fmt.Errorf("failed to read bundle from %s: %w", source, err))
	}
	return &b, nil
}

// readFS reads a bundle laid out in a file system (the embedded default).
func readFS(fsys fs.FS, vc *bundle.VerificationConfig, source string) (*bundle.Bundle, error) {
	loader, err := bundle.NewFSLoader(fsys)
	if err != nil {
		return nil, refuse(stageRead, fmt.Errorf("failed to open bundle %s: %w", source, err))
	}
	return readBundle(loader, vc, source)
}

// readDir reads a bundle laid out in a folder.
func readDir(dir string, vc *bundle.VerificationConfig) (*bundle.Bundle, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, refuse(stageRead, fmt.Errorf("failed to read bundle folder %q: %w", dir, err))
	}
	return readBundle(bundle.NewDirectoryLoader(dir), vc, dir)
}

// download fetches a bundle.tar.gz from url. etag is the ETag of the bundle
// the engine holds; when the server answers 304 Not Modified, download
// returns a nil bundle.
func download(ctx context.Context, client *http.Client, url, etag string, vc *bundle.VerificationConfig) (*bundle.Bundle, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", refuse(stageDownload, fmt.Errorf("failed to build the request for bundle %s: %w", url, err))
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", refuse(stageDownload, fmt.Errorf("failed to download bundle %s: %w", url, err))
	}
	defer func() { _ = resp.Body.Close() }()
	switch resp.StatusCode {
	case http.StatusNotModified:
		return nil, etag, nil
	case http.StatusOK:
	default:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, "", refuse(stageDownload, fmt.Errorf("failed to download bundle %s: server answered %s", url, resp.Status))
	}
	b, err := readBundle(bundle.NewTarballLoaderWithBaseURL(resp.Body, url), vc, url)
	if err != nil {
		return nil, "", err
	}
	return b, resp.Header.Get("ETag"), nil
}
