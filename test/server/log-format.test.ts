// LOG_FORMAT through a real `serve` process: JSON into a pipe, pino-pretty on a terminal (a
// pseudo-terminal made by `script`, as an operator's shell would be), and the start-up warning of a
// Node.js line past its end of life, once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { nodeEndOfLifeWarning } from '../../src/shared/node-support.js';
import { epochMillis } from '../../src/shared/time.js';
import { freePort } from '../http/server-processes.js';
import { installed } from '../metrics/metrics-kit.js';
import { binPath, projectRoot } from '../support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'community-admin-logs-'));
let databases = 0;

/** Runs `serve` (in a pseudo-terminal when asked) until it logs that it listens; answers everything it wrote. */
async function serveOnce(env: Record<string, string>, terminal: boolean): Promise<string> {
  const port = await freePort();
  const fullEnv = {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: `sqlite:${join(dir, `db-${databases++}.sqlite`)}`,
    LOG_LEVEL: 'info',
    ...env,
  };
  const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
  // `script` runs the command in a new pseudo-terminal: the server's stdout is a TTY, as in a shell.
  const [command, args] = terminal
    ? ['script', ['-q', '-e', '-c', `exec ${quote(process.execPath)} ${quote(binPath)} serve`, '/dev/null']]
    : [process.execPath, [binPath, 'serve']];
  const child = spawn(command as string, args as string[], {
    cwd: projectRoot,
    env: fullEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  while (!/Server listening/.test(output) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  // The whole group: `script` and the server it started.
  if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
  await exited;
  return output;
}

const endOfLife = nodeEndOfLifeWarning(process.version, epochMillis(Date.now()));

describe('LOG_FORMAT', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('auto writes JSON lines into a pipe, and warns once when this Node.js line is past its end of life', async () => {
    const output = await serveOnce({}, false);
    const lines = output.split('\n').filter((line) => line.startsWith('{'));
    const listening = lines
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .find((line) => /Server listening/.test(line.msg));
    assert.equal(listening?.level, 30, output);
    const warnings = lines.filter((line) => line.includes('past its end of life'));
    assert.equal(warnings.length, endOfLife ? 1 : 0, `on ${process.version}: ${output}`);
    if (endOfLife) assert.match(warnings[0] as string, /"level":40/);
  });

  it('pretty writes pino-pretty lines into a pipe, and json writes JSON on a terminal', async (t) => {
    const pretty = await serveOnce({ LOG_FORMAT: 'pretty' }, false);
    assert.match(pretty, /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO: Server listening at http:\/\/127\.0\.0\.1:\d+$/m);
    assert.doesNotMatch(pretty, /\{"level":/);
    if (!installed('script')) return t.skip('`script` (util-linux) is not installed: apt-get install util-linux to run the terminal half');
    const json = await serveOnce({ LOG_FORMAT: 'json' }, true);
    assert.match(json, /\{"level":30,.*"msg":"Server listening at/);
  });

  it('auto writes pino-pretty, in colour, on a terminal', async (t) => {
    if (!installed('script')) return t.skip('`script` (util-linux) is not installed: apt-get install util-linux to run this test');
    const output = await serveOnce({}, true);
    // Colour codes around the level and the message, as pino-pretty writes them to a TTY.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what is asserted.
    assert.match(output, /\] \u001b\[32mINFO\u001b\[39m: \u001b\[36mServer listening at http:\/\/127\.0\.0\.1:\d+/);
    assert.doesNotMatch(output, /\{"level":/);
    if (endOfLife) assert.equal(output.split('past its end of life').length - 1, 1, 'the warning, once');
  });
});
