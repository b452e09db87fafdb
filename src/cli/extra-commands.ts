import type { Command } from 'commander';
import { registerChatCommands } from './chat.commands.js';
import { registerSeedCommands } from './seed.commands.js';

/** Commands contributed by resource modules (`chat connect`, `seed`), registered after the core ones. */
export const extraCommands: ((program: Command) => void)[] = [registerChatCommands, registerSeedCommands];
