// The scenarios the official Daytona SDK (pinned in package.json) runs
// against the daytona replica; contexts/daytona's oracle test runs the
// same ones with the Go provider and compares the outcomes. The SDK finds
// the replica through DAYTONA_API_URL and DAYTONA_API_KEY.
import { Daytona } from '@daytonaio/sdk'

const home = '/home/daytona'
const daytona = new Daytona({ apiKey: process.env.DAYTONA_API_KEY, apiUrl: process.env.DAYTONA_API_URL, target: 'us' })
const res = (r) => ({ exitCode: r.exitCode, output: r.result })
const out = {}
const sbx = await daytona.create({ envVars: { FROM_CREATE: 'c1' }, labels: { suite: 'oracle' } })
// The SDK does not wait for the toolbox (it lags behind started): this is
// the seeds' waitForDaytonaReady, probing a trivial command.
for (let i = 0; ; i++) {
  const ok = await sbx.process.executeCommand('true', undefined, undefined, 5).then((r) => r.exitCode === 0, () => false)
  if (ok) break
  if (i > 50) throw new Error('toolbox never became ready')
  await new Promise((r) => setTimeout(r, 100))
}
out.exit = res(await sbx.process.executeCommand('sh -c "echo out; echo err >&2; exit 3"'))
out.env = res(await sbx.process.executeCommand('sh -c \'printf %s "$FROM_CREATE"; printf %s "$PER_CMD"\'', undefined, { PER_CMD: '-p1' }))
out.pwd = res(await sbx.process.executeCommand('pwd'))
await sbx.process.executeCommand(`mkdir -p ${home}/sub`)
out.cwd = res(await sbx.process.executeCommand('pwd', `${home}/sub`))
out.big = res(await sbx.process.executeCommand('sh -c "head -c 300000 /dev/zero | tr \\"\\\\0\\" x | wc -c"'))
await sbx.fs.uploadFile(Buffer.from('hello\n'), `${home}/dir/a b.txt`)
await sbx.fs.uploadFile(Buffer.from('two'), `${home}/dir/second`)
out.read = (await sbx.fs.downloadFile(`${home}/dir/a b.txt`)).toString()
out.list = (await sbx.fs.listFiles(`${home}/dir`)).map((f) => `${f.name}:${f.isDir ? 'dir' : 'file'}:${f.size}`).sort()
out.missing = await sbx.fs.downloadFile(`${home}/nope`).then(() => 'found', (e) => (e.statusCode ?? e.constructor.name) + '')
out.listed = []
for await (const s of daytona.list({ labels: { suite: 'oracle' } })) out.listed.push(s.id === sbx.id ? 'self' : 'other')
await sbx.stop()
out.stopped = (await daytona.get(sbx.id)).state
await sbx.delete()
const idle = await daytona.create({ autoStopInterval: 15, autoArchiveInterval: 60, autoDeleteInterval: -1, labels: { suite: 'idle' } })
out.idle = []
for await (const s of daytona.list({ labels: { suite: 'idle' } })) out.idle.push([s.autoStopInterval, s.autoArchiveInterval, s.autoDeleteInterval])
await idle.delete()
// The SDK keeps retrying its socket.io event channel (the replica has
// none; polling is its fallback): exit once the answer is written.
process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0))
