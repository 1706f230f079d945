package multiclusterhpa

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
)

// FuzzDecodeValue reads answers of Prometheus' query API, as the optimizer
// mode does for each of its queries: decodeValue must not panic, must
// refuse an error status, and a value it accepts is finite.
func FuzzDecodeValue(f *testing.F) {
	f.Add(200, []byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000.5,"105.25"]}]}}`))
	f.Add(200, []byte(`{"status":"success","data":{"resultType":"scalar","result":[1700000000.5,"3"]}}`))
	f.Add(200, []byte(`{"status":"success","data":{"resultType":"vector","result":[{"metric":{"pod":"a"},"value":[1,"1"]},{"metric":{"pod":"b"},"value":[1,"2"]}]}}`))
	f.Add(200, []byte(`{"status":"success","data":{"resultType":"string","result":[1,"x"]}}`))
	f.Add(422, []byte(`{"status":"error","errorType":"execution","error":"query timed out"}`))
	f.Add(200, []byte(`{"status":"success","data":{"resultType":"scalar","result":[1,"+Inf"]}}`))
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		if status < 100 || status > 599 {
			status = 200
		}
		v, err := decodeValue(&http.Response{StatusCode: status, Body: io.NopCloser(bytes.NewReader(body))})
		if err != nil {
			if !strings.Contains(err.Error(), "prometheus") && !strings.Contains(err.Error(), "the answer") &&
				!strings.Contains(err.Error(), "result") && !strings.Contains(err.Error(), "value") &&
				!strings.Contains(err.Error(), "sample") && !strings.Contains(err.Error(), "series") {
				t.Fatalf("error does not say what was wrong: %v", err)
			}
			return
		}
		if status < 200 || status > 299 {
			t.Fatalf("accepted %g from an answer of HTTP %d", v, status)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("accepted %g", v)
		}
	})
}
