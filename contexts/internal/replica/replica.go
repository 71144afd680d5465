// Package replica is what the loopback replicas of remote services
// (e2b/e2btest, daytona/daytonatest) share: the call log and the fault
// injection every test can switch on — latency, an error status with the
// service's own JSON error body, or a proxy's plain (non-JSON) answer.
package replica

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Fault makes the next Times requests matching Method ("" is any) and
// Path (a prefix) fail with Status: the service's JSON error carrying
// Body (or the status text), or with Plain the Body as it is, as a
// proxy in front of the service would answer.
type Fault struct {
	Method, Path string
	Status       int
	Body         string
	Plain        bool
	Times        int
}

// Faults is a replica's faults and call log.
type Faults struct {
	mu      sync.Mutex
	faults  []*Fault
	latency time.Duration
	calls   []string
}

// Inject adds a fault (Times 0 means once).
func (f *Faults) Inject(fault Fault) {
	if fault.Times == 0 {
		fault.Times = 1
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, &fault)
}

// SetLatency delays every request by d.
func (f *Faults) SetLatency(d time.Duration) { f.mu.Lock(); f.latency = d; f.mu.Unlock() }

// Calls lists "METHOD path" of every request so far.
func (f *Faults) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// Wrap logs each request, applies the latency and the first matching
// fault; jsonErr writes the service's error body.
func (f *Faults) Wrap(next http.Handler, jsonErr func(w http.ResponseWriter, status int, msg string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.calls = append(f.calls, r.Method+" "+r.URL.Path)
		lat := f.latency
		var hit *Fault
		for _, ft := range f.faults {
			if ft.Times > 0 && (ft.Method == "" || ft.Method == r.Method) && strings.HasPrefix(r.URL.Path, ft.Path) {
				ft.Times--
				hit = ft
				break
			}
		}
		f.mu.Unlock()
		if lat > 0 {
			select {
			case <-time.After(lat):
			case <-r.Context().Done():
				return
			}
		}
		if hit == nil {
			next.ServeHTTP(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		if hit.Plain {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(hit.Status)
			io.WriteString(w, hit.Body)
			return
		}
		msg := hit.Body
		if msg == "" {
			msg = http.StatusText(hit.Status)
		}
		jsonErr(w, hit.Status, msg)
	})
}

// WriteJSON writes v with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
