#!/usr/bin/env node
// The operator's entry point; runs the compiled CLI (built by `npm install`).
import { runCli } from '../dist/cli/index.js';

await runCli(process.argv);
