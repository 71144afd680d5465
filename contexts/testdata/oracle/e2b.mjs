// The scenarios the official E2B SDK (pinned in package.json) runs
// against the replica; contexts/e2b's oracle test runs the same ones with
// the Go provider and compares the outcomes field by field. The SDK finds
// the replica through E2B_API_URL, E2B_SANDBOX_URL and E2B_API_KEY.
import { Sandbox, CommandExitError } from 'e2b'

async function run(sbx, cmd, opts = {}) {
  try {
    const r = await sbx.commands.run(cmd, opts)
    return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }
  } catch (e) {
    if (e instanceof CommandExitError) return { exitCode: e.exitCode, stdout: e.stdout, stderr: e.stderr }
    throw e
  }
}

const out = {}
const sbx = await Sandbox.create({ metadata: { suite: 'oracle' }, envs: { FROM_CREATE: 'c1' }, timeoutMs: 120000 })
out.exit = await run(sbx, 'echo out; echo err >&2; exit 3')
out.env = await run(sbx, 'printf %s "$FROM_CREATE"; printf %s "$PER_CMD"', { envs: { PER_CMD: '-p1' } })
out.pwd = await run(sbx, 'pwd')
out.cwd = await run(sbx, 'mkdir -p sub && cd sub && pwd')
out.big = await run(sbx, 'head -c 300000 /dev/zero | tr "\\0" x | wc -c; head -c 200000 /dev/zero | tr "\\0" y >&2')
out.big.stderrLength = out.big.stderr.length
delete out.big.stderr
await sbx.files.write('/home/user/dir/a b.txt', 'hello\n')
await sbx.files.write('/home/user/dir/second', 'two')
out.read = await sbx.files.read('/home/user/dir/a b.txt')
out.list = (await sbx.files.list('/home/user/dir')).map((e) => `${e.name}:${e.type}`).sort()
const bg = await sbx.commands.run('echo bg-start; sleep 0.3; echo bg-end', { background: true })
out.background = await bg.wait().then((r) => ({ exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr }))
let up
const seen = new Promise((resolve) => { up = resolve })
const long = await sbx.commands.run('echo up; while :; do sleep 0.1; done', { background: true, onStdout: () => up() })
await seen
await long.kill()
out.killed = await long.wait().then((r) => ({ exitCode: r.exitCode }), (e) => ({ exitCode: e.exitCode }))
out.missing = await sbx.files.read('/home/user/nope').then(() => 'found', (e) => e.constructor.name)
out.listed = (await Sandbox.list({ query: { metadata: { suite: 'oracle' }, state: ['running', 'paused'] } }).nextItems())
  .map((s) => `${s.sandboxId === sbx.sandboxId ? 'self' : 'other'}:${s.state}`)
const dec = new TextDecoder()
const enc = new TextEncoder()
let ptyText = ''
let onPty = () => {}
const until = (want) => new Promise((resolve) => { onPty = () => { if (ptyText.includes(want)) resolve() }; onPty() })
const term = await sbx.pty.create({ cols: 100, rows: 30, onData: (d) => { ptyText += dec.decode(d); onPty() } })
await sbx.pty.sendInput(term.pid, enc.encode('stty size; echo $((6*7))x\n'))
await until('42x')
await sbx.pty.resize(term.pid, { cols: 120, rows: 40 })
await sbx.pty.sendInput(term.pid, enc.encode('stty size; echo $((5*11))y\n'))
await until('55y')
await sbx.pty.sendInput(term.pid, enc.encode('exit 3\n'))
out.pty = { sizes: ptyText.match(/^\d+ \d+(?=\r?$)/gm), exitCode: await term.wait().then((r) => r.exitCode, (e) => e.exitCode) }
const t2 = await sbx.pty.create({ cols: 80, rows: 24, onData: () => {} })
out.ptyKilled = { killed: await sbx.pty.kill(t2.pid), exitCode: await t2.wait().then((r) => r.exitCode, (e) => e.exitCode) }
await sbx.files.write('/home/user/kept', 'state')
await sbx.pause()
out.paused = (await sbx.getInfo()).state
const again = await Sandbox.connect(sbx.sandboxId)
out.resumed = await again.files.read('/home/user/kept')
await sbx.kill()
const idle = await Sandbox.create({ lifecycle: { onTimeout: 'pause', autoResume: true }, timeoutMs: 60000 })
out.lifecycle = (await idle.getInfo()).lifecycle
await idle.kill()
console.log(JSON.stringify(out))
