import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadRequest, LoadResult } from './load-client.js';
import { pinned } from './server.js';
import { projectRoot } from './util.js';

const client = fileURLToPath(new URL('./load-client.ts', import.meta.url));

/** Runs autocannon in a child process pinned to core 1 (the server has core 0); returns each measured run. */
export function runLoad(request: LoadRequest): Promise<LoadResult[]> {
  const command = pinned(1, [process.execPath, '--import', 'tsx', client, JSON.stringify(request)]);
  return new Promise((resolve, reject) => {
    const child = spawn(command[0] as string, command.slice(1), { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) return reject(new Error(`load generator failed (${code}): ${stderr.trim()}`));
      try {
        resolve(JSON.parse(stdout) as LoadResult[]);
      } catch {
        reject(new Error(`load generator printed no result: ${stdout.slice(0, 200)} ${stderr.slice(0, 500)}`));
      }
    });
  });
}
