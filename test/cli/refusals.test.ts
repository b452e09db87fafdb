/**
 * The exact text of every refusal of the operator commands (communities, API keys, chat
 * connections, feeds, chat sync, invitations), of the import's members, groups and profiles
 * sections, and of the member routes' code-only errors. Each is what a person reads: the CLI's
 * stderr line (exit 1, nothing on stdout, also with --json), the import's
 * `<section>[<i>].<field>: <message>` line, the API's envelope. Written before these refusals
 * became data (issue 29), so that the conversion provably changed no byte of them.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runImport } from '../../src/import/run-import.js';
import { createApiKey, revokeApiKey } from '../../src/modules/api-keys/api-keys.commands.js';
import { createCommunity } from '../../src/modules/communities/communities.commands.js';
import { durationMs } from '../../src/shared/time.js';
import { runCli } from '../support/cli.js';
import { type FakeChatServer, startFakeChatServer } from '../support/fake-chat-server.js';
import { createTestDatabase, describeEachEngine, engines, TestClock, type TestDatabase } from '../support/harness.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const missingId = uuid(999);
const leapSecond = '2026-06-30T23:59:60Z';

/** What the cases are built from: ids made in `before`. */
interface Made {
  community: string;
  other: string;
  revokedKey: string;
  expiredKey: string;
  boundFeed: string;
  dir: string;
}

/** [what, the command's arguments, its stderr line]: every one exits 1 and prints nothing on stdout. */
type Case = [string, (m: Made) => string[], (m: Made) => string];

const importFile = (m: Made, name: string, document: unknown): string => {
  const path = join(m.dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(document));
  return path;
};

/** `import <file> --community <the community>` of a document. */
const importing =
  (name: string, document: unknown) =>
  (m: Made): string[] => ['import', importFile(m, name, document), '--community', m.community];

const timestampText = 'must be a date-time with a zone, years 1700 to 2250, such as 2026-11-21T18:00:00Z or 2025-05-14 19:16:38.630803+00';

const cases: Case[] = [
  [
    'community create, unknown plan',
    () => ['community', 'create', '--name', 'X', '--plan', 'gold'],
    () => 'Unknown plan "gold": use one of free, growth, momentum, enterprise.',
  ],
  [
    'community create, blank name',
    () => ['community', 'create', '--name', '   ', '--plan', 'free'],
    () => 'The community name must be 1-200 characters.',
  ],
  [
    'community create, long name',
    () => ['community', 'create', '--name', 'n'.repeat(201), '--plan', 'free'],
    () => 'The community name must be 1-200 characters.',
  ],
  [
    'community set-plan, unknown community',
    () => ['community', 'set-plan', missingId, 'free'],
    () => `No community with id "${missingId}".`,
  ],
  [
    'community set-plan, unknown plan',
    (m) => ['community', 'set-plan', m.community, 'gold'],
    () => 'Unknown plan "gold": use one of free, growth, momentum, enterprise.',
  ],
  ['key create, unknown community', () => ['key', 'create', '--community', missingId], () => `No community with id "${missingId}".`],
  [
    'key create, long label',
    (m) => ['key', 'create', '--community', m.community, '--label', 'l'.repeat(201)],
    () => 'The key label must be at most 200 characters.',
  ],
  ['key list, unknown community', () => ['key', 'list', '--community', missingId], () => `No community with id "${missingId}".`],
  ['key revoke, unknown key', () => ['key', 'revoke', missingId], () => `No API key with id "${missingId}".`],
  ['key rotate, unknown key', () => ['key', 'rotate', missingId], () => `No API key with id "${missingId}".`],
  [
    'key rotate, revoked key',
    (m) => ['key', 'rotate', m.revokedKey],
    (m) => `API key "${m.revokedKey}" is revoked; create a new key instead.`,
  ],
  [
    'key rotate, expired key',
    (m) => ['key', 'rotate', m.expiredKey],
    (m) => `API key "${m.expiredKey}" has expired; create a new key instead.`,
  ],
  [
    'key set-permissions, unknown key',
    () => ['key', 'set-permissions', missingId, '--permissions', 'all'],
    () => `No API key with id "${missingId}".`,
  ],
  [
    'chat cancel-invitation, blank email',
    (m) => ['chat', 'cancel-invitation', '--community', m.community, '--email', '  '],
    () => 'The email must be 1-254 characters.',
  ],
  [
    'chat cancel-invitation, unknown community',
    () => ['chat', 'cancel-invitation', '--community', missingId, '--email', 'a@b.org'],
    () => `No community with id "${missingId}".`,
  ],
  [
    'chat connect, unknown community',
    () => ['chat', 'connect', '--community', missingId, '--token', 'xoxp-1'],
    () => `No community with id "${missingId}".`,
  ],
  [
    'chat connect, admin token of two words',
    (m) => ['chat', 'connect', '--community', m.community, '--token', 'xoxp 1'],
    () => 'The chat admin token must be a single word of at most 1024 characters.',
  ],
  [
    'chat connect, admin token rejected',
    (m) => ['chat', 'connect', '--community', m.community, '--token', 'xoxp-wrong'],
    () => 'The chat platform rejected the chat admin token (invalid_auth). Nothing was stored; check the token and try again.',
  ],
  [
    'chat connect, bot token of two words',
    (m) => ['chat', 'connect', '--community', m.community, '--bot-token', 'xoxb 1', '--signing-secret', 's'],
    () => 'The bot token must be a single word of at most 1024 characters.',
  ],
  [
    'chat connect, blank signing secret',
    (m) => ['chat', 'connect', '--community', m.community, '--bot-token', 'xoxb-1', '--signing-secret', ' '],
    () => 'The signing secret must be a single word of at most 1024 characters.',
  ],
  [
    'chat connect, signing secret without a bot token',
    (m) => ['chat', 'connect', '--community', m.community, '--signing-secret', 's'],
    () => 'Give --bot-token (xoxb-...) with --signing-secret: the community has no bot connection yet.',
  ],
  [
    'chat connect, bot token without a signing secret',
    (m) => ['chat', 'connect', '--community', m.community, '--bot-token', 'xoxb-1'],
    () => 'Give --signing-secret with --bot-token (the Slack app\'s "Signing Secret", Basic Information page).',
  ],
  [
    'chat connect, malformed app id',
    (m) => ['chat', 'connect', '--community', m.community, '--bot-token', 'xoxb-1', '--signing-secret', 's', '--app-id', 'app'],
    () => '--app-id must be a Slack app id such as A0123ABCD.',
  ],
  [
    'chat connect, bot token rejected',
    (m) => ['chat', 'connect', '--community', m.community, '--bot-token', 'xoxb-wrong', '--signing-secret', 's'],
    () => 'The chat platform did not accept the bot token (invalid_auth). Nothing was stored; check the token and try again.',
  ],
  [
    'chat sync, no bot connection',
    (m) => ['chat', 'sync', '--community', m.community],
    (m) =>
      `Community ${m.community} has no chat bot connection: run community-admin chat connect --community ${m.community} --bot-token xoxb-... --signing-secret ...`,
  ],
  ['chat sync, unknown community', () => ['chat', 'sync', '--community', missingId], () => `No community with id "${missingId}".`],
  [
    'chat sync, malformed --since',
    (m) => ['chat', 'sync', '--community', m.community, '--since', 'soon'],
    () => '--since must be a date such as 2025-01-31 or 2025-01-31T12:00:00Z.',
  ],
  [
    'chat reseal-secrets without SECRETS_KEY',
    () => ['chat', 'reseal-secrets'],
    () => 'Set SECRETS_KEY (and SECRETS_KEY_PREVIOUS to the old key) first.',
  ],
  [
    'feed add, a channel name',
    (m) => ['feed', 'add', '--community', m.community, '--channel', '#general'],
    () => '--channel must be a Slack channel id such as C0123ABCD (not its name).',
  ],
  [
    'feed add, unknown community',
    () => ['feed', 'add', '--community', missingId, '--channel', 'C0NEW'],
    () => `No community with id "${missingId}".`,
  ],
  [
    'feed add, a bound channel',
    (m) => ['feed', 'add', '--community', m.community, '--channel', 'C0BOUND', '--label', 'x'],
    (m) => `Channel C0BOUND is already bound to feed ${m.boundFeed}.`,
  ],
  [
    'feed add, no label and no bot connection',
    (m) => ['feed', 'add', '--community', m.community, '--channel', 'C0NEW'],
    () => "Give --label: the community has no bot connection to read the channel's name from.",
  ],
  [
    'feed add, a channel the bot cannot read',
    (m) => ['feed', 'add', '--community', m.other, '--channel', 'C0UNKNOWN'],
    () => "Could not read channel C0UNKNOWN (channel_not_found); is the app's bot in the channel?",
  ],
  ['feed list, unknown community', () => ['feed', 'list', '--community', missingId], () => `No community with id "${missingId}".`],
  [
    'import, unknown community',
    (m) => ['import', importFile(m, 'empty', {}), '--community', missingId],
    () => `No community with id "${missingId}".`,
  ],
  [
    'import, a profile created at a leap second',
    importing('profile-leap', { profiles: [{ profile_id: uuid(1), created_at: leapSecond }] }),
    () => `profiles[0].created_at: ${timestampText}`,
  ],
  [
    'import, a member updated at a leap second',
    importing('member-leap', { members: [{ id: uuid(11), email: 'a@b.org', full_name: 'A', updated_at: leapSecond }] }),
    () => `members[0].updated_at: ${timestampText}`,
  ],
  [
    'import, two members of the file with one email',
    importing('member-twice', {
      members: [
        { id: uuid(11), email: 'a@b.org', full_name: 'A' },
        { id: uuid(12), email: 'A@B.org', full_name: 'B' },
      ],
    }),
    () => 'members[1].email: "A@B.org" is given to another member of this file',
  ],
  [
    'import, a member of an unknown profile',
    importing('member-profile', { members: [{ id: uuid(11), email: 'a@b.org', full_name: 'A', chat_profile_id: missingId }] }),
    () => `members[0].chat_profile_id: no profile "${missingId}" in this community or this file`,
  ],
  [
    'import, a member taking the email of another',
    importing('member-taken', { members: [{ id: uuid(13), email: 'held@b.org', full_name: 'C' }] }),
    () => `members[0].email: "held@b.org" is already held by member "${uuid(21)}"`,
  ],
  [
    'import, members exchanging emails',
    importing('member-swap', {
      members: [
        { id: uuid(21), email: 'other@b.org', full_name: 'Holder' },
        { id: uuid(22), email: 'held@b.org', full_name: 'Other' },
      ],
    }),
    () => 'members.email: members of this file exchange emails with each other; import the change in two steps',
  ],
  [
    'import, a group of an unknown profile',
    importing('group-profile', { groups: [{ id: 'g1', name: 'G', member_profile_ids: [uuid(31), missingId] }] }),
    () => `groups[0].member_profile_ids[1]: no profile "${missingId}" in this community or this file`,
  ],
  [
    'import, a group created at a leap second',
    importing('group-leap', { groups: [{ id: 'g1', name: 'G', created_at: leapSecond }] }),
    () => `groups[0].created_at: ${timestampText}`,
  ],
];

for (const { engine, skip } of engines) {
  describe(`refusals of the operator commands and the import [${engine}]`, { skip }, () => {
    let fake: FakeChatServer;
    let testDb: TestDatabase;
    let env: Record<string, string>;
    let made: Made;

    before(async () => {
      fake = await startFakeChatServer();
      fake.addChannel({ id: 'C0BOUND', name: 'bound' });
      testDb = await createTestDatabase(engine);
      env = { ...testDb.env, CHAT_API_URL: fake.url, CHAT_TIMEOUT_MS: '2000' };
      const clock = new TestClock();
      const deps = { database: testDb.database, clock };
      const community = (await createCommunity(deps, { name: 'Refusals', plan: 'enterprise' })).id;
      const other = (await createCommunity(deps, { name: 'Connected', plan: 'enterprise' })).id;
      const revokedKey = (await createApiKey({ ...deps, communityId: community }, { label: 'revoked' })).id;
      await revokeApiKey(deps, revokedKey);
      const expiredKey = (await createApiKey({ ...deps, communityId: community }, { label: 'expired', expiresInMs: durationMs(1000) })).id;
      await runImport(
        { database: testDb.database, clock, communityId: community },
        {
          profiles: [{ profile_id: uuid(31) }],
          members: [
            { id: uuid(21), email: 'held@b.org', full_name: 'Holder' },
            { id: uuid(22), email: 'other@b.org', full_name: 'Other' },
          ],
        },
      );
      const dir = mkdtempSync(join(tmpdir(), 'refusals-'));
      const connected = await runCli(
        ['chat', 'connect', '--community', other, '--bot-token', fake.botToken, '--signing-secret', `s-${randomBytes(4).toString('hex')}`],
        env,
      );
      assert.equal(connected.code, 0, connected.stderr);
      const bound = await runCli(['feed', 'add', '--community', community, '--channel', 'C0BOUND', '--label', 'Bound', '--json'], env);
      assert.equal(bound.code, 0, bound.stderr);
      made = { community, other, revokedKey, expiredKey, boundFeed: (JSON.parse(bound.stdout) as { id: string }).id, dir };
    });
    after(async () => {
      await fake?.close();
      await testDb?.drop();
      if (made) rmSync(made.dir, { recursive: true, force: true });
    });

    for (const [what, args, text] of cases) {
      it(`${what}: exits 1 saying so`, async () => {
        const run = await runCli(args(made), env);
        assert.deepEqual({ code: run.code, stdout: run.stdout, stderr: run.stderr }, { code: 1, stdout: '', stderr: `${text(made)}\n` });
      });
    }

    it('--json changes nothing of a refusal', async () => {
      const run = await runCli(['key', 'rotate', missingId, '--json'], env);
      assert.deepEqual(
        { code: run.code, stdout: run.stdout, stderr: run.stderr },
        { code: 1, stdout: '', stderr: `No API key with id "${missingId}".\n` },
      );
    });

    it('a workspace connected to another community: exits 1 naming it', async () => {
      const run = await runCli(
        ['chat', 'connect', '--community', made.community, '--bot-token', fake.botToken, '--signing-secret', 's'],
        env,
      );
      assert.deepEqual(
        { code: run.code, stdout: run.stdout, stderr: run.stderr },
        {
          code: 1,
          stdout: '',
          stderr: `Workspace ${fake.teamId} is already connected to community ${made.other}; events are routed by workspace.\n`,
        },
      );
    });
  });
}

describeEachEngine('refusals of the member routes', (ctx) => {
  const linkedMember = uuid(41);
  let auth: { authorization: string };

  before(async () => {
    const t = ctx();
    const community = await t.community();
    auth = community.auth;
    await runImport(
      { database: t.database, clock: t.clock, communityId: community.id },
      {
        profiles: [{ profile_id: uuid(42), email: 'linked@b.org', chat_user_id: 'U0LINKED' }],
        members: [{ id: linkedMember, email: 'linked@b.org', full_name: 'Linked', chat_profile_id: uuid(42) }],
      },
    );
  });

  const cases: [string, string, Record<string, unknown>, number, Record<string, unknown>][] = [
    [
      'chat_channel_ids without an invitation',
      '/admin/v0/members',
      { email: 'a@b.org', full_name: 'A', chat_channel_ids: ['C0GENERAL'] },
      400,
      {
        success: false,
        error: {
          code: 'validation_failed',
          message: 'body.chat_channel_ids: is only allowed with invite_to_chat: true',
          hint: 'Correct the named field and retry.',
        },
      },
    ],
    [
      'an invitation without a chat connection',
      '/admin/v0/members',
      { email: 'a@b.org', full_name: 'A', invite_to_chat: true },
      400,
      {
        success: false,
        error: {
          code: 'chat_admin_not_configured',
          message: 'This community has no chat admin connection.',
          hint: 'Connect the chat workspace (community-admin chat connect) or omit invite_to_chat.',
        },
      },
    ],
    [
      'deactivating a member linked to a chat profile',
      `/admin/v0/members/${linkedMember}/deactivate`,
      {},
      409,
      {
        success: false,
        error: {
          code: 'member_has_chat_profile',
          message: 'This member is linked to a chat profile and cannot be deactivated here.',
          hint: 'Deactivate the user in the chat workspace instead.',
        },
      },
    ],
  ];

  for (const [what, url, payload, status, body] of cases) {
    it(`${what}: ${status} with the envelope`, async () => {
      const res = await ctx().request({ method: 'POST', url, headers: auth, payload });
      assert.equal(res.statusCode, status, res.body);
      assert.equal(res.body, JSON.stringify(body));
    });
  }
});
