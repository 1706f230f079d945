package traffic

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
	"testing"
)

// FuzzDecodeResponse reads answers of Prometheus' query API, as the
// traffic source does: decodeResponse and sumByCluster must not panic, an
// error answer is an *APIError with its status, and what is accepted is
// a finite, non-negative rate for each named cluster.
func FuzzDecodeResponse(f *testing.F) {
	// Answers as Prometheus 2 and 3 give them (see docs/traffic.md).
	f.Add(200, []byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"cluster":"edge-a"},"value":[1700000000.123,"12.5"]},{"metric":{"cluster":"edge-b"},"value":[1700000000.123,"0"]}]}}`))
	f.Add(200, []byte(`{"status":"success","data":{"resultType":"vector","result":[]}}`))
	f.Add(200, []byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"cluster":"a"},"values":[[1,"1"]]}]}}`))
	f.Add(400, []byte(`{"status":"error","errorType":"bad_data","error":"invalid parameter \"query\": 1:5: parse error"}`))
	f.Add(503, []byte("Service Unavailable"))
	f.Add(200, []byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"NaN"]}]}}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 599 {
			status = 200
		}
		data, err := decodeResponse(&http.Response{StatusCode: status, Body: io.NopCloser(bytes.NewReader(body))})
		if err != nil {
			var api *APIError
			if errors.As(err, &api) && api.StatusCode != status {
				t.Fatalf("APIError with status %d for an answer of %d", api.StatusCode, status)
			}
			if status < 200 || status > 299 {
				if api == nil {
					t.Fatalf("an answer of %d is not an *APIError: %v", status, err)
				}
			}
			return
		}
		if status < 200 || status > 299 {
			t.Fatalf("accepted an answer of HTTP %d", status)
		}
		traffic, err := sumByCluster(data, "cluster")
		if err != nil {
			return
		}
		for cluster, rate := range traffic {
			if cluster == "" || math.IsNaN(rate) || math.IsInf(rate, 0) || rate < 0 {
				t.Errorf("accepted rate %g for cluster %q", rate, cluster)
			}
		}
	})
}
