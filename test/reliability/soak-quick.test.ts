// The CI-length soak (`bench/soak.ts --quick`, 10 s): many keys held at the per-key limit, one key
// over it, server memory sampled. The full run is `npm run soak` (see docs/security.md).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { it } from 'node:test';
import { ensureBuilt } from '../http/server-processes.js';
import { projectRoot } from '../support/cli.js';

interface SoakResult {
  passed: boolean;
  reasons: string[];
  held: { ok: number; refused: number; skipped: number; errors: Record<string, number> };
  overLimit: { ok: number; refused: number; errors: Record<string, number> };
  memory: { growthMb: number; samples: number };
}

function runSoak(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/soak.ts', ...args], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

it(
  'holds 8 keys at their rate limit for 10 s with no error, refuses the excess of an over-limit key, memory flat',
  {
    timeout: 120_000,
  },
  async (t) => {
    ensureBuilt();
    const run = await runSoak(['--quick', '--json']);
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as SoakResult;
    t.diagnostic(run.stdout.trim());
    assert.deepEqual(result.reasons, [], run.stderr);
    assert.equal(result.passed, true);
    assert.equal(run.code, 0);
    assert.equal(result.held.refused, 0);
    assert.deepEqual(result.held.errors, {});
    assert.ok(result.held.ok > 0);
    assert.ok(result.overLimit.refused > 0, 'the over-limit key was never refused');
    assert.ok(result.memory.samples >= 8, `${result.memory.samples} memory samples`);
  },
);
