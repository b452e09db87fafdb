// Schema-driven fuzzing of every operation (CI size). FUZZ_RUNS scales it; `npm run fuzz` is the long run.
import { defineFuzzSuite, fuzzOptionsFromEnv } from './support/fuzz-run.js';

await defineFuzzSuite('fuzz (CI)', fuzzOptionsFromEnv(300, 120_000));
