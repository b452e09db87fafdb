import { searchCorpus } from './search-dataset.js';
import { Log } from './util.js';

const total = Number(process.argv[2]);
const engines = (process.argv[3] ?? 'sqlite').split(',') as ('sqlite' | 'postgres')[];
const only = process.argv[4] === undefined ? undefined : Number(process.argv[4]);
const log = new Log();
for (const engine of engines) {
  const c = await searchCorpus(engine, total, 'postgres://postgres@127.0.0.1:5432/bench', log, only);
  log.line(JSON.stringify(c));
}
