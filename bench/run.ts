// `npm run bench [-- --quick] [--scenario NAME[,NAME]] [--sizes 10k,100k,1m,multi] [--engine sqlite|postgres]
//   [--no-build] [--no-import] [--build-only]`
// The method and the datasets are described in docs/performance.md.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Engine } from '../src/db/database.js';
import type { CapturedResponse } from './ceiling-server.js';
import { createBenchKey, publishedEventId, removeBenchWrites, verifyVariants } from './context.js';
import { type BenchDataset, type DatasetName, datasetNames, ensureDataset } from './datasets.js';
import { type ImportMeasurement, measureImport } from './import-timing.js';
import { loadGeneratorName } from './load.js';
import { type Durations, type Measurement, measureGroup } from './measure.js';
import { type BenchResults, evaluateTargets, markdownReport, startupRows } from './report.js';
import { groupScenarios, selectScenarios } from './scenarios.js';
import { hasTaskset } from './server.js';
import { Log, projectRoot, resultsDir } from './util.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    scenario: { type: 'string' },
    sizes: { type: 'string' },
    engine: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'no-import': { type: 'boolean', default: false },
    'build-only': { type: 'boolean', default: false },
  },
});

const log = new Log();
const quick = values.quick === true;
const postgresUrl = process.env.BENCH_DATABASE_URL ?? '';
const durations: Durations = quick
  ? { warmupSeconds: 1, durationSeconds: 2, runs: 1, connections: 50 }
  : { warmupSeconds: 3, durationSeconds: 10, runs: 3, connections: 50 };

function engines(): Engine[] {
  if (values.engine === 'sqlite') return ['sqlite'];
  if (values.engine === 'postgres') {
    if (!postgresUrl) throw new Error('--engine postgres needs BENCH_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/bench)');
    return ['postgres'];
  }
  if (values.engine !== undefined) throw new Error('--engine is sqlite or postgres');
  return postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];
}

function sizes(): DatasetName[] {
  const list = values.sizes?.split(',').map((s) => s.trim()) ?? (quick ? ['10k'] : [...datasetNames]);
  for (const size of list)
    if (!(datasetNames as readonly string[]).includes(size)) throw new Error(`--sizes: "${size}" is not one of ${datasetNames.join(', ')}`);
  return list as DatasetName[];
}

/** The bench measures the built server: compile src first (type errors of work in progress elsewhere only warn). */
function build(): void {
  if (values['no-build']) return;
  log.line('building dist (npm run build)');
  try {
    execFileSync(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: projectRoot,
      stdio: 'pipe',
    });
  } catch (error) {
    log.line(
      `warning: tsc reported errors; measuring the dist it emitted:\n${String((error as { stdout?: Buffer }).stdout ?? '').slice(0, 2000)}`,
    );
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadAverageStart = loadavg();
  const loadGenerator = loadGeneratorName();
  const scenarioList = selectScenarios(values.scenario ? values.scenario.split(',') : null);
  build();
  const datasets: BenchDataset[] = [];
  const measurements: Measurement[] = [];
  const imports: ImportMeasurement[] = [];
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  mkdirSync(resultsDir, { recursive: true });
  const save = (final: boolean) => {
    const startup = startupRows(measurements);
    const results: BenchResults = {
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      mode: quick ? 'quick' : 'full',
      machine: {
        cpus: cpus().length,
        model: cpus()[0]?.model ?? '',
        node: process.version,
        loadAverageStart,
        loadAverageEnd: loadavg(),
        pinned: hasTaskset,
        loadGenerator,
      },
      method: durations,
      datasets,
      measurements,
      startup,
      imports,
      targets: evaluateTargets(measurements, imports, startup, datasets),
    };
    const markdown = markdownReport(results);
    writeFileSync(join(resultsDir, `${stamp}.json`), `${JSON.stringify(results, null, 2)}\n`);
    writeFileSync(join(resultsDir, `${stamp}.md`), markdown);
    if (final) {
      writeFileSync(join(resultsDir, 'latest.md'), markdown);
      process.stdout.write(markdown);
    }
  };

  for (const engine of engines()) {
    let variantsChecked = false;
    for (const name of sizes()) {
      const dataset = await ensureDataset(engine, name, postgresUrl, log);
      datasets.push(dataset);
      if (values['build-only']) continue;
      const selected = scenarioList.filter((s) => s.datasets.includes(name));
      if (selected.length === 0) continue;
      if (!variantsChecked && selected.some((s) => s.variant)) {
        await verifyVariants(dataset);
        variantsChecked = true;
      }
      const context = { dataset, key: await createBenchKey(dataset), eventId: await publishedEventId(dataset) };
      const captures = new Map<string, CapturedResponse>();
      for (const group of groupScenarios(selected)) {
        log.line(`${engine} ${name} ${group.map((s) => s.name).join(' + ')}`);
        for (const m of await measureGroup(group, context, durations, captures)) {
          measurements.push(m);
          if (m.error) log.line(`  ${m.scenario} failed: ${m.error}`);
          else
            log.line(
              `  ${m.scenario}: ${m.rps} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms (ceiling ${m.ceilingP99} ms), ceiling ${m.ceilingRps} req/s (${Math.round(m.ceilingRatio * 100)}%), ` +
                `CPU ${Math.round(m.cpuUserUs + m.cpuSysUs)} µs/req (ceiling ${Math.round(m.ceilingCpuUserUs + m.ceilingCpuSysUs)}), peak RSS ${m.peakRssMb} MB`,
            );
        }
        if (group.some((s) => s.mutates)) await removeBenchWrites(dataset);
        save(false);
      }
    }
    if (!values['no-import'] && !values['build-only']) {
      const events = quick ? 10_000 : 100_000;
      log.line(`${engine}: timing the import of ${events} events from a file`);
      imports.push(await measureImport(engine, events, postgresUrl, log));
      save(false);
    }
  }
  if (values['build-only']) return;
  save(true);
  log.line(`results: bench/results/${stamp}.md (and .json, latest.md)`);
}

await main();
