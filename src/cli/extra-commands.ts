import type { Command } from 'commander';
import { registerActivityCommands } from './activity.commands.js';
import { registerAwardCommands } from './award.commands.js';
import { registerCalendarFeedCommands } from './calendar-feed.commands.js';
import { registerChatCommands } from './chat.commands.js';
import { registerChatSyncCommands, registerFeedCommands } from './chat-sync.cli.js';
import { registerConsoleCommands } from './console.commands.js';
import { registerExportCommands } from './export.commands.js';
import { registerSearchCommands } from './search.commands.js';
import { registerSeedCommands } from './seed.commands.js';
import { registerWebhookCommands } from './webhook.commands.js';

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
