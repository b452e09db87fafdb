// The long fuzz run (`npm run fuzz`): the CI suite with many more cases per operation. FUZZ_RUNS and
// FUZZ_SEED override the size and the seed (e.g. FUZZ_SEED=$RANDOM npm run fuzz to explore).
import { defineFuzzSuite, fuzzOptionsFromEnv } from './support/fuzz-run.js';

await defineFuzzSuite('fuzz (long)', fuzzOptionsFromEnv(20_000, 3_600_000));
