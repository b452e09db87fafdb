import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildReferences,
  emptyReferences,
  type Mentions,
  type ReferenceLookup,
  renderOptionsFromReferences,
} from '../../src/rich-text/index.js';

const lookup: ReferenceLookup = {
  profilesByChatUserId: new Map([
    ['U1', { profile_id: '11111111-1111-4111-8111-111111111111', preferred_name: 'Ann', chat_user_id: 'U1' }],
    ['U2', { profile_id: '22222222-2222-4222-8222-222222222222', preferred_name: 'Bo', chat_user_id: 'U2' }],
  ]),
  feedsByChannelId: new Map([
    [
      'C1',
      { id: 'f1f1f1f1-0000-4000-8000-000000000001', label: 'General', slug: 'general', public_id: 'pub1', chat_channel_name: 'general' },
    ],
  ]),
};

const mentions: Mentions = {
  userIds: ['U2', 'UNKNOWN', 'U1'],
  channelIds: ['CNOFEED', 'C1'],
  customEmojis: [{ alias: 'blob', name: 'blob', url: 'https://e.example/blob.png' }],
  urls: [{ order_seen: 0, is_embedded_media: true, is_image: true, is_video: false, url: 'https://x.example/a.png' }],
};

describe('buildReferences', () => {
  it('resolves users to profiles in mention order and leaves out users without a profile', () => {
    assert.deepEqual(buildReferences(mentions, lookup).mentioned_chat_users, [
      { profile_id: '22222222-2222-4222-8222-222222222222', preferred_name: 'Bo', chat_user_id: 'U2' },
      { profile_id: '11111111-1111-4111-8111-111111111111', preferred_name: 'Ann', chat_user_id: 'U1' },
    ]);
  });

  it('resolves channels to their feed and leaves out channels without a feed', () => {
    assert.deepEqual(buildReferences(mentions, lookup).mentioned_chat_channels, [
      {
        chat_channel: { id: 'C1', name: 'general' },
        feed: {
          id: 'f1f1f1f1-0000-4000-8000-000000000001',
          label: 'General',
          slug: 'general',
          public_id: 'pub1',
          chat_channel: { name: 'general' },
        },
      },
    ]);
  });

  it('passes custom emojis and urls through as copies', () => {
    const references = buildReferences(mentions, lookup);
    assert.deepEqual(references.custom_emojis, mentions.customEmojis);
    assert.deepEqual(references.urls, mentions.urls);
    assert.notEqual(references.custom_emojis[0], mentions.customEmojis[0]);
    assert.notEqual(references.urls[0], mentions.urls[0]);
  });

  it('copies only the documented fields from the lookup values', () => {
    const withExtras: ReferenceLookup = {
      profilesByChatUserId: new Map([['U1', { profile_id: 'p', preferred_name: 'Ann', chat_user_id: 'U1', email: 'secret@example.com' }]]),
      feedsByChannelId: new Map(),
    };
    const [user] = buildReferences({ ...mentions, userIds: ['U1'] }, withExtras).mentioned_chat_users;
    assert.deepEqual(Object.keys(user ?? {}).sort(), ['chat_user_id', 'preferred_name', 'profile_id']);
  });

  it('gives empty references for no mentions', () => {
    assert.deepEqual(buildReferences({ userIds: [], channelIds: [], customEmojis: [], urls: [] }, lookup), emptyReferences());
  });
});

describe('emptyReferences', () => {
  it('has all four lists, empty, and a fresh object each time', () => {
    const first = emptyReferences();
    // Compare a copy: deepEqual would narrow `first` to the literal's never[] lists.
    assert.deepEqual({ ...first }, { mentioned_chat_users: [], mentioned_chat_channels: [], custom_emojis: [], urls: [] });
    first.urls.push({ order_seen: 0, is_embedded_media: false, is_image: false, is_video: false, url: 'x' });
    assert.deepEqual(emptyReferences().urls, []);
  });
});

describe('renderOptionsFromReferences', () => {
  it('maps chat user ids to preferred names and channel ids to channel names', () => {
    const options = renderOptionsFromReferences(buildReferences(mentions, lookup));
    assert.deepEqual(
      [...(options.userNames ?? [])],
      [
        ['U2', 'Bo'],
        ['U1', 'Ann'],
      ],
    );
    assert.deepEqual([...(options.channelNames ?? [])], [['C1', 'general']]);
  });
});
