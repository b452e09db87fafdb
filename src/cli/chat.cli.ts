import type { Command } from 'commander';
import { cancelChatInvitations } from '../modules/members/members.commands.js';
import { systemClock } from '../shared/clock.js';
import { connectChatWorkspace } from './chat-sync.cli.js';
import { cliActor, withDatabase } from './context.js';
import { asOperatorErrors, printResult } from './output.js';

/** `chat connect` (the chat admin connection used for invitations) and `chat cancel-invitation`. */
export function registerChatCommands(program: Command): void {
  const chat = program.command('chat').description('the chat workspace connection');
  chat
    .command('connect')
    .description(
      'connect the community to its Slack workspace: the admin token for invitations (--token), the bot token and signing secret for sync and events, or both',
    )
    .requiredOption('--community <id>', 'community id')
    .option('--token <token>', 'admin user token of the chat workspace, for invitations (never printed)')
    .option('--bot-token <token>', 'bot token (xoxb-...) of the Slack app, for chat sync (never printed)')
    .option('--signing-secret <secret>', "the Slack app's signing secret, to verify POST /chat/events (never printed)")
    .option('--app-id <id>', "the Slack app's id (A...); events of other apps are then refused")
    .option('--json', 'print JSON')
    .action(
      async (
        options: { community: string; token?: string; botToken?: string; signingSecret?: string; appId?: string; json?: boolean },
        command: Command,
      ) => {
        if (options.token === undefined && options.botToken === undefined && options.signingSecret === undefined) {
          // A usage error (exit 2), as a missing required option was before --token became optional.
          command.error('error: give --token (invitations), --bot-token with --signing-secret (sync and events), or both', {
            exitCode: 2,
            code: 'commander.missingMandatoryOptionValue',
          });
        }
        const result = await asOperatorErrors(() => withDatabase((database, config) => connectChatWorkspace(database, config, options)));
        const text = [
          `Community ${result.community_id} is connected to its chat workspace`,
          result.team_id ? ` ${result.team_id}` : '',
          result.sync ? ': run community-admin chat sync to load it.' : '.',
        ].join('');
        printResult({ json: Boolean(options.json) }, result, text);
      },
    );
  chat
    .command('cancel-invitation')
    .description('record that the pending chat invitation of an email was revoked, so that POST /members can invite again')
    .requiredOption('--community <id>', 'community id')
    .requiredOption('--email <email>', 'email of the invitee')
    .option('--json', 'print JSON')
    .action(async (options: { community: string; email: string; json?: boolean }) => {
      const result = await asOperatorErrors(() =>
        withDatabase((database) =>
          cancelChatInvitations({ database, clock: systemClock, actor: cliActor(), communityId: options.community }, options.email),
        ),
      );
      const text =
        result.cancelled > 0
          ? `Cancelled ${result.cancelled} pending invitation(s) of ${result.email}.`
          : `No pending invitation of ${result.email}.`;
      printResult({ json: Boolean(options.json) }, result, text);
    });
}
