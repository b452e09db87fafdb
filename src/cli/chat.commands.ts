import type { Command } from 'commander';
import { connectChat } from '../modules/chat-connections/chat-connections.service.js';
import { cancelChatInvitations } from '../modules/members/chat-invitations.service.js';
import { systemClock } from '../shared/clock.js';
import { withDatabase } from './context.js';
import { printResult } from './output.js';

/** `chat connect` (the chat admin connection used for invitations) and `chat cancel-invitation`. */
export function registerChatCommands(program: Command): void {
  const chat = program.command('chat').description('the chat workspace connection');
  chat
    .command('connect')
    .description('verify a chat admin token and store it as the community connection used for invitations')
    .requiredOption('--community <id>', 'community id')
    .requiredOption('--token <token>', 'admin user token of the chat workspace (never printed)')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; token: string; json?: boolean }) => {
      const connected = await withDatabase((database, config) =>
        connectChat(database, systemClock, {
          communityId: options.community,
          token: options.token,
          apiUrl: config.chatApiUrl,
          timeoutMs: config.chatTimeoutMs,
        }),
      );
      printResult({ json: Boolean(options.json) }, connected, `Community ${connected.community_id} is connected to its chat workspace.`);
    });
  chat
    .command('cancel-invitation')
    .description('record that the pending chat invitation of an email was revoked, so that POST /members can invite again')
    .requiredOption('--community <id>', 'community id')
    .requiredOption('--email <email>', 'email of the invitee')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; email: string; json?: boolean }) => {
      const result = await withDatabase((database) => cancelChatInvitations(database, systemClock, options.community, options.email));
      const text =
        result.cancelled > 0
          ? `Cancelled ${result.cancelled} pending invitation(s) of ${result.email}.`
          : `No pending invitation of ${result.email}.`;
      printResult({ json: Boolean(options.json) }, result, text);
    });
}
