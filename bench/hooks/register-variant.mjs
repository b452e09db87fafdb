// Bench only: `node --import ./bench/hooks/register-variant.mjs bin/community-admin.js serve` runs
// the real built server with one part switched off (BENCH_VARIANT), so that the suite can measure
// what that part costs without a switch in the product. See variant-hooks.mjs.
import { register } from 'node:module';

register('./variant-hooks.mjs', import.meta.url);
