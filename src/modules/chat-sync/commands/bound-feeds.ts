import { createSlackReader } from '../../../chat/slack-reader.js';
import { asImportRecord } from '../../../import/import-section.js';
import { refuseSentence } from '../../../shared/failures.js';
import { newUuid } from '../../../shared/ids.js';
import type { DurationMs } from '../../../shared/time.js';
import type { CommandContext } from '../../../write-path/command-context.js';
import { writeCommunityData } from '../../../write-path/write-community-data.js';
import { requireCommunity } from '../../communities/communities.reads.js';
import { writeFeedRecord } from '../../feeds/feeds.commands.js';
import { feedsImportSection } from '../../feeds/feeds.import.js';
import { type FeedRow, selectFeedRow, selectFeedsOfChannel } from '../../feeds/feeds.queries.js';
import { selectSyncConnection } from '../reads/connections.js';
import { type BoundFeedSummary, summaryOf } from '../records/bound-feeds.js';
import { channelFields, type SlackObject } from '../rules/slack-records.js';
import type { SecretsContext } from './connections.js';

export interface AddFeedInput {
  channelId: string;
  label: string | undefined;
  syncAll: boolean;
  apiUrl: string;
  timeoutMs: DurationMs;
}

/**
 * Creates a feed bound to a channel. With a bot connection the channel is read first
 * (conversations.info): its name is the label when none is given, and its fields fill the feed.
 */
export async function addFeed(ctx: CommandContext<SecretsContext>, input: AddFeedInput): Promise<BoundFeedSummary> {
  const { database, communityId } = ctx;
  if (!/^[CG][A-Z0-9]{2,31}$/.test(input.channelId))
    throw refuseSentence(['channel_id'], 'format', '--channel must be a Slack channel id such as C0123ABCD (not its name).');
  await requireCommunity({ database }, communityId);
  const taken = await selectFeedsOfChannel(database.db, communityId, input.channelId);
  if (taken[0]) throw refuseSentence(['channel_id'], 'taken', `Channel ${input.channelId} is already bound to feed ${taken[0].id}.`);
  const connection = await selectSyncConnection(database.db, ctx.box, communityId);
  let channel: SlackObject = {};
  if (connection) {
    const reader = createSlackReader({ token: connection.botToken, apiUrl: input.apiUrl, timeoutMs: input.timeoutMs });
    try {
      channel = (await reader.call('conversations.info', { channel: input.channelId, include_num_members: true })).channel as SlackObject;
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : 'chat_error';
      throw refuseSentence(
        ['channel_id'],
        'unreadable',
        `Could not read channel ${input.channelId} (${code}); is the app's bot in the channel?`,
      );
    }
  }
  const label = (input.label ?? (typeof channel.name === 'string' ? channel.name : '')).trim();
  if (label === '')
    throw refuseSentence(['label'], 'required', "Give --label: the community has no bot connection to read the channel's name from.");
  const record = {
    id: newUuid(),
    label,
    chat_channel_id: input.channelId,
    sync_all_incoming_messages: input.syncAll,
    stores_new_messages: input.syncAll,
    ...channelFields(channel),
  };
  // Checked as the import checks its record, and refused as it prints it (`feeds[0].<field>: ...`).
  const parsed = asImportRecord(feedsImportSection, record);
  await writeCommunityData(ctx, communityId, async (w) => {
    await writeFeedRecord(w, parsed);
    w.record({
      action: 'feed.created',
      target: { type: 'feed', id: record.id, name: label },
      metadata: { chat_channel_id: input.channelId },
    });
  });
  const row = await selectFeedRow(database.db, communityId, record.id);
  return summaryOf(row as FeedRow);
}
