//go:build linux

package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// Attack: a proxy (or a service's error page) in front of the API that
// echoes the request — its URL and headers — in a failure's body: the
// providers quoted that body in their error, and so printed the API key.
// Real HTTP, zctx's own stderr checked; the key is in neither context's
// error, whatever header it was sent in.
func TestAPIKeyNotEchoedFromAnErrorBody(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		fmt.Fprintf(w, "bad gateway for %s %s; headers:", r.Method, r.URL)
		for k, v := range r.Header {
			fmt.Fprintf(w, " %s=%q", k, v)
		}
	}))
	defer echo.Close()
	for _, c := range []struct{ context, keyVar, key string }{
		{"e2b", "E2B_API_KEY", "e2b_echoed_secret_00112233445566778899"},
		{"daytona", "DAYTONA_API_KEY", "dtn_echoed_secret_00112233445566778899"},
	} {
		setup(t)
		t.Setenv(c.keyVar, c.key)
		t.Setenv("E2B_API_URL", echo.URL)
		t.Setenv("E2B_SANDBOX_URL", echo.URL)
		t.Setenv("DAYTONA_API_URL", echo.URL+"/api")
		code, out, errs := zctx(t, "", "run", "--context", c.context, "--", "true")
		if code == 0 || !strings.Contains(errs, "zctx: error:") || !strings.Contains(errs, "502") {
			t.Errorf("%s: %d %q; want a failure naming the 502", c.context, code, errs)
		}
		for _, text := range []string{out, errs} {
			if strings.Contains(text, c.key) || strings.Contains(text, url.QueryEscape(c.key)) {
				t.Errorf("%s: the API key was printed: %q", c.context, text)
			}
		}
	}
}

// Attack: the API (or a proxy in front of it) answers with a redirect to
// another host. Go's client drops only Authorization and cookies on a
// redirect to another domain: E2B's X-API-Key (and envd's access token)
// went along to the other host. Real HTTP; the other host records what
// it got.
func TestAPIKeyNotSentPastARedirect(t *testing.T) {
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, v := range r.Header {
			got = append(got, v...)
		}
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer other.Close()
	// A different host for the client: localhost, not 127.0.0.1.
	otherURL := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, otherURL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer api.Close()
	for _, c := range []struct{ context, keyVar, key string }{
		{"e2b", "E2B_API_KEY", "e2b_redirected_secret_00112233445566778899"},
		{"daytona", "DAYTONA_API_KEY", "dtn_redirected_secret_00112233445566778899"},
	} {
		setup(t)
		got = nil
		t.Setenv(c.keyVar, c.key)
		t.Setenv("E2B_API_URL", api.URL)
		t.Setenv("E2B_SANDBOX_URL", api.URL)
		t.Setenv("DAYTONA_API_URL", api.URL+"/api")
		code, _, errs := zctx(t, "", "run", "--context", c.context, "--", "true")
		if code == 0 || strings.Contains(errs, c.key) {
			t.Errorf("%s: %d %q; want a failure without the key", c.context, code, errs)
		}
		if c.context == "e2b" && !strings.Contains(errs, "is not followed") {
			t.Errorf("e2b: %q; want the refused redirect named", errs)
		}
		if strings.Contains(strings.Join(got, " "), c.key) {
			t.Errorf("%s: the host redirected to got the key: %q", c.context, got)
		}
	}
}
