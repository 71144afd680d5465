// Package denymsg recognises sandbox denials in a command's output and explains
// them in one line each.
//
// zsandbox exec passes the command's stdout and stderr through unchanged and
// feeds the same bytes to a Recognizer on the side, one Stream per pipe. When
// the command fails, Hints turns what was seen into "zsandbox: hint: …" lines:
// a write refused outside the writable roots, a protected path, a hidden path,
// the network being off, a kill by the system-call filter. Each line names the
// setting that widens the sandbox.
//
// The package is pure: it sees bytes and facts (Facts, Exit) and returns lines.
// Classify decides about one line; Hint renders findings; a Recognizer ties
// them to the streams.
//
// Scanning is built for throughput. A multi-pattern prefilter (Wu–Manber over
// two-byte blocks) jumps over ordinary output and only a line that carries a
// denial signature ("Read-only file system", "Permission denied", "Could not
// resolve host", …) is parsed. Memory is bounded: a line is analysed up to
// MaxLine bytes, the rest of it is skipped, and findings are deduplicated and
// capped.
//
// A hint never prints text read from a hidden path: for hidden and protected
// paths it names the Facts entry, not what followed it in the output. Every
// path a hint prints is shortened and quoted if it holds control characters,
// so a hint is always one printable line.
package denymsg
