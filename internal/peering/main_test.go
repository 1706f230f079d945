package peering_test

import (
	"os"
	"testing"

	"github.com/meridian-dev/meridian/internal/testenv"
)

// The package's tests share their API servers (testenv.Main).
func TestMain(m *testing.M) { os.Exit(testenv.Main(m)) }
