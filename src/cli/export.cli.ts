import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { UserInputError } from '../errors.js';
import { type ExportSink, exportCommunity } from '../export/export-community.js';
import { requireCommunity } from '../modules/communities/communities.reads.js';
import { withDatabase } from './context.js';
import { asOperatorErrors } from './output.js';

/** A sink over a stream that waits for 'drain' when the stream's buffer is full (an 'error' rejects). */
function streamSink(stream: Writable): ExportSink {
  return {
    write: async (text) => {
      if (!stream.write(text)) await once(stream, 'drain');
    },
  };
}

const closed = (stream: WriteStream) =>
  new Promise<void>((resolve, reject) => {
    stream.once('error', reject);
    stream.end(() => resolve());
  });

/** `export`: writes a community as an import file (stdout, or a file written whole or not at all). */
export function registerExportCommands(program: Command): void {
  program
    .command('export')
    .description('write a community in the import format (stdout, or --out FILE); progress on stderr')
    .requiredOption('--community <id>', 'community id')
    .option('--out <file>', 'file to write (replaced only once the export is complete)')
    .action(async (options: { community: string; out?: string }) => {
      const progress = (line: string) => process.stderr.write(`${line}\n`);
      await withDatabase(async (database) => {
        await asOperatorErrors(() => requireCommunity({ database }, options.community));
        if (options.out === undefined) {
          const counts = await exportCommunity(database, options.community, streamSink(process.stdout), { progress });
          progress(`Exported ${summary(counts)}.`);
          return;
        }
        // A partial file must never pass for an export: write beside it, then rename.
        const partial = `${options.out}.partial`;
        const file = createWriteStream(partial, { flags: 'w' });
        const opened = new Promise<void>((resolve, reject) => {
          file.once('open', () => resolve());
          file.once('error', (error) => reject(new UserInputError(`Cannot write ${options.out}: ${error.message}`)));
        });
        await opened;
        try {
          const counts = await exportCommunity(database, options.community, streamSink(file), { progress });
          await closed(file);
          await rename(partial, options.out);
          progress(`Exported ${summary(counts)} to ${options.out}.`);
        } catch (error) {
          file.destroy();
          await rm(partial, { force: true });
          throw error;
        }
      });
    });
}

const summary = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([section, n]) => `${section}: ${n}`)
    .join(', ');
