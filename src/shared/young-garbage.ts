import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/*
 * Bytes that pass through the process in buffers that die at once (an upload's request body: node's
 * HTTP parser copies every piece it reads into a new buffer; a download's chunks as the driver
 * returns them) are freed only by a collection of the young generation. V8 starts one by the count
 * of small objects allocated, not by the bytes those buffers hold, so a 10 MB upload leaves 10 MB of
 * dead buffers in the process until some later request allocates enough, and V8 only steps in by
 * itself at twice the semi-space size of buffers (32 MB with node's defaults, 64 MB with the 32 MB
 * semi-spaces the server runs with on PostgreSQL). The file routes count what they pass through
 * and ask for a young-generation collection (a scavenge: it copies the live young objects only, a
 * millisecond or so) every `scavengeEveryBytes`, so a transfer's garbage stays bounded whatever its size.
 */

/** Bytes of short-lived buffers between two scavenges: a bound on the garbage transfers leave. */
const scavengeEveryBytes = 2 * 1024 * 1024;

type Collect = (options: { type: 'minor' | 'major'; execution?: 'sync' | 'async' }) => void;
let collect: Collect | null | undefined;

/**
 * V8's `gc`, without `--expose-gc` on the operator's command line: the flag is set for the time it
 * takes to create one context that has it, so the process's own global object never gets `gc`.
 */
function collector(): Collect | null {
  if (collect !== undefined) return collect;
  const exposed = (globalThis as { gc?: unknown }).gc;
  try {
    if (typeof exposed === 'function') collect = exposed as Collect;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as Collect;
      setFlagsFromString('--no-expose-gc');
    }
  } catch {
    collect = null;
  }
  return collect;
}

/**
 * Scavenges between two full collections. A buffer still in use when a scavenge runs (the driver's
 * buffer of a message half received, a piece in the socket's queue) is moved to the old generation
 * on the next, and there only a full collection frees it, which V8 starts by itself once 64 MB of
 * such memory have piled up: on PostgreSQL, a 10 MB download left about 10 MB of them. Every
 * eighth time (16 MiB of transfers), an incremental full collection instead, marked in small steps
 * between requests rather than in one pause.
 */
const scavengesPerFullCollection = 8;

let pending = 0;
let scavenges = 0;

/** Counts `bytes` of buffers that are garbage once handled; every `scavengeEveryBytes` of them (all transfers together), a collection. */
export function passedThrough(bytes: number): void {
  pending += bytes;
  if (pending < scavengeEveryBytes) return;
  pending = 0;
  const collect = collector();
  if (!collect) return;
  if (++scavenges % scavengesPerFullCollection === 0) collect({ type: 'major', execution: 'async' });
  else collect({ type: 'minor' });
}
