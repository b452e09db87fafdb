import type { Command } from 'commander';
import { registerActivityCommands } from './activity.cli.js';
import { registerAwardCommands } from './award.cli.js';
import { registerCalendarFeedCommands } from './calendar-feed.cli.js';
import { registerChatCommands } from './chat.cli.js';
import { registerChatSyncCommands, registerFeedCommands } from './chat-sync.cli.js';
import { registerConsoleCommands } from './console.cli.js';
import { registerExportCommands } from './export.cli.js';
import { registerSearchCommands } from './search.cli.js';
import { registerSeedCommands } from './seed.cli.js';
import { registerWebhookCommands } from './webhook.cli.js';

/**
 * The commands registered after the core ones (`chat ...`, `feed ...`, `seed`, `export`, `webhook ...`, `search ...`, `award ...`, `console link`,
 * `calendar-feed ...`, `activity ...`). A list of its
 * own, so that a new command group is one line here rather than an edit of index.ts.
 */
export const extraCommands: ((program: Command) => void)[] = [
  registerChatCommands,
  registerChatSyncCommands,
  registerFeedCommands,
  registerSeedCommands,
  registerExportCommands,
  registerWebhookCommands,
  registerSearchCommands,
  registerAwardCommands,
  registerConsoleCommands,
  registerCalendarFeedCommands,
  registerActivityCommands,
];
