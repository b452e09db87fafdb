// METRICS_PORT through a real `serve` process: /metrics on its own port only, and a real Prometheus
// (Debian's `prometheus` package) scraping it and answering a query through its HTTP API.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, type ServerProcess, startServerProcess } from '../http/server-processes.js';
import { installed, promtoolCheck, sample } from '../metrics/metrics-kit.js';

const dir = mkdtempSync(join(tmpdir(), 'community-admin-metrics-'));
const token = 'metrics-port-token-0123456789';

/** Polls until `check` answers a value (not undefined), or fails after `ms`. */
async function eventually<T>(what: string, ms: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: nothing after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('METRICS_PORT', () => {
  let server: ServerProcess;
  let metricsPort = 0;
  let key = '';
  const metricsUrl = () => `http://127.0.0.1:${metricsPort}/metrics`;

  before(async () => {
    metricsPort = await freePort();
    server = await startServerProcess({
      DATABASE_URL: `sqlite:${join(dir, 'metrics.sqlite')}`,
      METRICS_PORT: String(metricsPort),
      METRICS_TOKEN: token,
    });
    key = await eventually('the first-start key', 5000, async () => /\b(ca_[A-Za-z0-9_-]{20,})/.exec(server.output())?.[1]);
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves /metrics on its own port only, with the token', async () => {
    assert.equal((await fetch(`${server.baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status, 404);
    assert.equal((await fetch(metricsUrl())).status, 401);
    assert.equal(
      (await fetch(`http://127.0.0.1:${metricsPort}/admin/v0/calendar_events`, { headers: { authorization: `Bearer ${key}` } })).status,
      404,
    );
    const events = await fetch(`${server.baseUrl}/admin/v0/calendar_events`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(events.status, 200);
    const answer = await fetch(metricsUrl(), { headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.status, 200);
    const text = await answer.text();
    const labels = { route: '/admin/v0/calendar_events', method: 'GET', status_class: '2xx' };
    assert.equal(sample(text, 'community_admin_http_request_duration_seconds_count', labels), 1);
    assert.ok(sample(text, 'nodejs_heap_size_used_bytes'));
    assert.equal(sample(text, 'community_admin_webhook_backlog'), 0);
    const problem = promtoolCheck(text);
    assert.ok(problem === null || problem === '', problem ?? '');
  });

  it('is scraped by a real Prometheus, which answers a query for it', async (t) => {
    if (!installed('prometheus')) return t.skip('prometheus is not installed: apt-get install prometheus (.ci/run does) to run this test');
    const webPort = await freePort();
    const config = join(dir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'scrape_configs:',
        '  - job_name: community-admin',
        `    authorization: { credentials: ${JSON.stringify(token)} }`,
        `    static_configs: [{ targets: ["127.0.0.1:${metricsPort}"] }]`,
        '',
      ].join('\n'),
    );
    const prometheus: ChildProcess = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${webPort}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    prometheus.stderr?.on('data', (chunk) => {
      log += chunk;
    });
    const exited = new Promise<void>((resolve) => prometheus.once('exit', () => resolve()));
    try {
      for (let i = 0; i < 3; i++)
        await fetch(`${server.baseUrl}/admin/v0/calendar_events`, { headers: { authorization: `Bearer ${key}` } });
      const query = 'sum(community_admin_http_request_duration_seconds_count{route="/admin/v0/calendar_events",method="GET"})';
      const value = await eventually(`Prometheus's answer (its log: ${log})`, 30_000, async () => {
        const answer = await fetch(`http://127.0.0.1:${webPort}/api/v1/query?query=${encodeURIComponent(query)}`);
        const body = (await answer.json()) as { status: string; data: { result: { value: [number, string] }[] } };
        const found = body.data.result[0]?.value[1];
        return found !== undefined && Number(found) >= 4 ? Number(found) : undefined;
      });
      assert.ok(value >= 4, String(value));
      const targets = (await (await fetch(`http://127.0.0.1:${webPort}/api/v1/targets`)).json()) as {
        data: { activeTargets: { health: string; lastError: string }[] };
      };
      assert.deepEqual(
        targets.data.activeTargets.map((target) => [target.health, target.lastError]),
        [['up', '']],
      );
    } finally {
      prometheus.kill('SIGTERM');
      await exited;
    }
  });

  it("stops gracefully and at once though a scraper's keep-alive connection is open", async () => {
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve, reject) => {
      get(metricsUrl(), { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
        response.resume();
        response.on('end', () => resolve());
      }).on('error', reject);
    });
    const started = Date.now();
    await server.stop();
    agent.destroy();
    assert.equal(server.child.exitCode, 0, server.output());
    assert.ok(Date.now() - started < 5000, `the stop took ${Date.now() - started} ms`);
  });
});
