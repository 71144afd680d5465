module github.com/zsandbox/zsandbox/contexts

go 1.26.8

replace github.com/zsandbox/zsandbox => ../

require (
	github.com/creack/pty v1.1.24
	github.com/zsandbox/zsandbox v0.0.0-00010101000000-000000000000
	golang.org/x/sys v0.50.0
)
