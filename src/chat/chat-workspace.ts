/**
 * The chat platform port: what the domain needs from the team-chat workspace (Slack), and nothing
 * of how it is reached. Adapters: slack-workspace.ts (the Web API) and none-workspace.ts.
 */

/** Outcome of one invitation, shaped as the API's `chat_invite` object. */
export interface ChatInviteResult {
  status: 'invited' | 'already_in_workspace' | 'failed';
  /** `ok` when sent; otherwise the chat platform's error code or one of ours (see docs/chat.md). */
  code: string;
  channel_ids: string[];
  /** One human sentence; never contains a credential. */
  detail: string;
}

/** A workspace user as the profile fields of the API need it. */
export interface ChatUser {
  id: string;
  email: string;
  real_name: string;
  first_name: string;
  last_name: string;
  is_admin: boolean;
  is_bot: boolean;
  image_72: string;
  image_original: string;
}

/** Outcome of posting one message: its timestamp, or why the channel could not be posted to. */
export type ChatPostResult =
  | { ok: true; channelId: string; ts: string }
  | { ok: false; channelId: string; code: string /** One human sentence; never a credential. */; detail: string };

export interface ChatWorkspace {
  /** Posts a message in a channel (chat.postMessage). Never throws: failures come back with the platform's code. */
  postMessage(input: { channelId: string; text: string; blocks?: unknown[] }): Promise<ChatPostResult>;
  /** The permalink of a posted message (chat.getPermalink). Throws ChatUnavailableError when it cannot be had. */
  getPermalink(channelId: string, ts: string): Promise<string>;
  /** Invites an email to the workspace (and channels). Never throws: failures come back as status 'failed' with a code. */
  inviteUser(input: { email: string; channelIds: string[]; fullName?: string }): Promise<ChatInviteResult>;
  /** Finds a workspace user by email; null when there is none. Throws ChatUnavailableError on transport failure/timeout/rate limit. */
  lookupUserByEmail(email: string): Promise<ChatUser | null>;
}

/** A stored chat admin connection, as the factory needs it. */
export interface ChatConnection {
  token: string;
  teamId: string | null;
}

/** Builds the workspace of one community from its stored connection. */
export type ChatWorkspaceFactory = (connection: ChatConnection) => ChatWorkspace;

/**
 * The chat platform could not answer usefully (unreachable, timed out, rate limited, or it refused
 * the credentials). `code` is stable and safe to show; the message never contains the token.
 */
export class ChatUnavailableError extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = 'ChatUnavailableError';
    this.code = code;
  }
}
