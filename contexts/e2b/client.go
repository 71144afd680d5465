package e2b

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"

	"connectrpc.com/connect"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/e2b/internal/wire"
	"github.com/zsandbox/zsandbox/contexts/internal/remote"
)

// api is the control plane: REST with the X-API-Key header. The key is
// only ever put in that header: no error, log line or State carries it.
type api struct {
	base string
	key  string
	http *http.Client
}

// retryable statuses get two more tries, spaced out, within the caller's
// context: a rate limit or a proxy hiccup is not yet a failure.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusBadGateway || status == http.StatusServiceUnavailable
}

// call sends a request and decodes a 2xx answer into out (nil: ignore).
func (a *api) call(ctx context.Context, method, path string, in, out any) (int, error) {
	var body []byte
	if in != nil {
		body, _ = json.Marshal(in)
	}
	var status int
	var err error
	for try := 0; try < 3; try++ {
		if try > 0 {
			select {
			case <-time.After(time.Duration(try) * 300 * time.Millisecond):
			case <-ctx.Done():
				return 0, contexts.Errorf(contexts.ErrUnavailable, "e2b: %s %s: %v", method, path, ctx.Err())
			}
		}
		status, err = a.once(ctx, method, path, body, out)
		if err == nil || !retryable(status) {
			return status, err
		}
	}
	return status, err
}

func (a *api) once(ctx context.Context, method, path string, body []byte, out any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, contexts.Errorf(contexts.ErrUsage, "e2b: bad API URL: %v", err)
	}
	req.Header.Set(wire.HeaderAPIKey, a.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := a.http.Do(req)
	if err != nil {
		return 0, contexts.Errorf(contexts.ErrUnavailable, "e2b: %s %s: %v", method, path, scrub(err))
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode/100 != 2 {
		return res.StatusCode, apiErr(method, path, res.StatusCode, b, a.key)
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return res.StatusCode, contexts.Errorf(contexts.ErrUnavailable, "e2b: %s %s: answer is not the expected JSON: %v", method, path, err)
		}
	}
	return res.StatusCode, nil
}

// scrub drops the URL from a transport error (it would repeat the
// host, never a secret, but keep messages short).
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// apiErr maps a control-plane error to a sentinel with a fix; the
// secrets sent with the request are redacted from the body it quotes.
func apiErr(method, path string, status int, body []byte, secrets ...string) error {
	var e wire.APIError
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		msg = e.Message
	}
	msg = remote.Redact(msg, secrets...)
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	what := fmt.Sprintf("e2b: %s %s: %d %s: %s", method, path, status, http.StatusText(status), msg)
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return contexts.Errorf(contexts.ErrUnavailable, "%s", what).WithHint("set E2B_API_KEY to a valid key (it is never printed)")
	case http.StatusNotFound:
		return contexts.Errorf(contexts.ErrNotFound, "%s", what)
	case http.StatusTooManyRequests:
		return contexts.Errorf(contexts.ErrUnavailable, "%s", what).WithHint("E2B's rate limit: wait, or lower the number of concurrent sandboxes")
	case http.StatusBadRequest:
		return contexts.Errorf(contexts.ErrUsage, "%s", what)
	}
	return contexts.Errorf(contexts.ErrUnavailable, "%s", what)
}

// envd is one sandbox's daemon: Connect RPC (JSON codec) and /files.
type envd struct {
	base, sandboxID, token string
	http                   *http.Client
}

func (e *envd) headers(h http.Header) {
	h.Set(wire.HeaderSandboxID, e.sandboxID)
	h.Set(wire.HeaderSandboxPort, wire.EnvdPort)
	if e.token != "" {
		h.Set(wire.HeaderAccessToken, e.token)
	}
}

func client[Req, Res any](e *envd, procedure string) *connect.Client[Req, Res] {
	return connect.NewClient[Req, Res](e.http, e.base+procedure, connect.WithCodec(wire.JSONCodec{}))
}

func unary[Req, Res any](ctx context.Context, e *envd, procedure string, msg *Req) (*Res, error) {
	req := connect.NewRequest(msg)
	e.headers(req.Header())
	res, err := client[Req, Res](e, procedure).CallUnary(ctx, req)
	if err != nil {
		return nil, e.rpcErr(procedure, err)
	}
	return res.Msg, nil
}

func (e *envd) stream(ctx context.Context, procedure string, msg any) (*connect.ServerStreamForClient[wire.EventResponse], error) {
	var s *connect.ServerStreamForClient[wire.EventResponse]
	var err error
	switch m := msg.(type) {
	case *wire.StartRequest:
		req := connect.NewRequest(m)
		e.headers(req.Header())
		s, err = client[wire.StartRequest, wire.EventResponse](e, procedure).CallServerStream(ctx, req)
	case *wire.ConnectRequest:
		req := connect.NewRequest(m)
		e.headers(req.Header())
		s, err = client[wire.ConnectRequest, wire.EventResponse](e, procedure).CallServerStream(ctx, req)
	}
	if err != nil {
		return nil, e.rpcErr(procedure, err)
	}
	return s, nil
}

// rpcErr maps a Connect error (or a proxy's plain HTTP error, which
// connect reports by its status) to a sentinel.
func (e *envd) rpcErr(procedure string, err error) error {
	what := fmt.Sprintf("e2b: envd of sandbox %s: %s: %v", e.sandboxID, procedure, err)
	switch connect.CodeOf(err) {
	case connect.CodeNotFound:
		return contexts.Errorf(contexts.ErrNotFound, "%s", what)
	case connect.CodeInvalidArgument:
		return contexts.Errorf(contexts.ErrUsage, "%s", what)
	case connect.CodeDeadlineExceeded, connect.CodeCanceled:
		return contexts.Errorf(contexts.ErrUnavailable, "%s", what)
	}
	return contexts.Errorf(contexts.ErrUnavailable, "%s", what).
		WithHint("the sandbox may be paused, gone or past its timeout; zctx spawn --sandbox ID reconnects (and resumes) it")
}

func (e *envd) filesURL(p string) string {
	return e.base + "/files?" + url.Values{"path": {p}}.Encode()
}

func (e *envd) httpDo(req *http.Request) (*http.Response, []byte, error) {
	e.headers(req.Header)
	res, err := e.http.Do(req)
	if err != nil {
		return nil, nil, contexts.Errorf(contexts.ErrUnavailable, "e2b: envd of sandbox %s: %s /files: %v", e.sandboxID, req.Method, scrub(err))
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, nil, contexts.Errorf(contexts.ErrUnavailable, "e2b: envd of sandbox %s: /files broke off: %v", e.sandboxID, err)
	}
	if res.StatusCode/100 != 2 {
		return res, nil, apiErr(req.Method, "/files (envd of "+e.sandboxID+")", res.StatusCode, b, e.token)
	}
	return res, b, nil
}

func (e *envd) read(ctx context.Context, p string) ([]byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.filesURL(p), nil)
	_, b, err := e.httpDo(req)
	return b, err
}

// write uploads as multipart (field "file"), which every envd takes.
func (e *envd) write(ctx context.Context, p string, data []byte) error {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "file")
	fw.Write(data)
	mw.Close()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.filesURL(p), &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	_, _, err := e.httpDo(req)
	return err
}

// healthy asks envd's /health once.
func (e *envd) healthy(ctx context.Context) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.base+"/health", nil)
	_, _, err := e.httpDo(req)
	return err
}
