/**
 * Helpers shared by the members tests: data in through the real import and the API, the chat
 * connection stored through the chat-connections service, bodies in both encodings.
 */
import { createSlackWorkspaceFactory } from '../../../src/chat/index.js';
import { runImport } from '../../../src/import/run-import.js';
import { connectChat } from '../../../src/modules/chat-connections/chat-connections.commands.js';
import { selectMemberById } from '../../../src/modules/members/members.queries.js';
import { durationMs } from '../../../src/shared/time.js';
import type { FakeChatServer } from '../../support/fake-chat-server.js';
import type { HarnessOptions, TestApp } from '../../support/harness.js';

/** Options that point the app's chat factory at the fake (invitations time out after 500 ms). */
export function fakeChatOptions(fake: FakeChatServer): HarnessOptions {
  return { services: { chat: createSlackWorkspaceFactory({ apiUrl: fake.url, timeoutMs: durationMs(500) }) } };
}

/** Stores the fake workspace as the community's chat connection (verifies the token with the fake). */
export async function connectToFake(t: TestApp, fake: FakeChatServer, communityId: string): Promise<void> {
  await connectChat(
    { database: t.database, clock: t.clock, secrets: t.app.services.secrets },
    { communityId, token: fake.validToken, apiUrl: fake.url, timeoutMs: durationMs(2000) },
  );
}

/** Loads an import document into a community. */
export function importInto(t: TestApp, communityId: string, document: Record<string, unknown>) {
  return runImport({ database: t.database, clock: t.clock, communityId }, document);
}

/** A form-encoded body: arrays as repeated keys. */
export function formBody(fields: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, item);
  }
  return params.toString();
}

export interface MemberBody {
  id: string;
  email: string;
  full_name: string;
  preferred_name: string;
  avatar_url_original: string | null;
  chat_profile_id: string | null;
}

export interface ChatInviteBody {
  status: string;
  code: string;
  channel_ids: string[];
  detail: string;
}

export interface AddMemberResponse {
  success: boolean;
  message: string;
  data: { member: MemberBody; chat_invite?: ChatInviteBody };
}

export interface ErrorResponse {
  success: false;
  error: { code: string; message: string; hint: string };
}

/** POST /admin/v0/members with a JSON body. */
export function postMember(t: TestApp, auth: { authorization: string }, body: unknown, headers: Record<string, string> = {}) {
  return t.request({
    method: 'POST',
    url: '/admin/v0/members',
    headers: { ...auth, ...headers },
    payload: body as Record<string, unknown>,
  });
}

/** POST /admin/v0/members with a form-encoded body. */
export function postMemberForm(t: TestApp, auth: { authorization: string }, fields: Record<string, string | string[]>) {
  return t.request({
    method: 'POST',
    url: '/admin/v0/members',
    headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
    payload: formBody(fields),
  });
}

/** POST /admin/v0/members/check. */
export async function checkMember(t: TestApp, auth: { authorization: string }, email: string) {
  const res = await t.request({ method: 'POST', url: '/admin/v0/members/check', headers: auth, payload: { email } });
  if (res.statusCode !== 200) throw new Error(`check answered ${res.statusCode}: ${res.body}`);
  return res.json<{ success: boolean; data: { is_member: boolean; is_deactivated: boolean; is_forgotten: boolean } }>().data;
}

/** The stored state of a member (read-only look at the row, for assertions). */
export async function storedMember(t: TestApp, communityId: string, id: string) {
  return selectMemberById(t.database.db, communityId, id);
}

let counter = 0;
/** A fresh email for one test. */
export function uniqueEmail(prefix = 'person'): string {
  counter += 1;
  return `${prefix}.${counter}.${Date.now().toString(36)}@example.com`;
}

/** A fresh UUID v4-shaped id (deterministic per run order is not needed). */
export { randomUUID as newId } from 'node:crypto';
