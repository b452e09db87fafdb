import type { ChatInviteResult, ChatPostResult, ChatUser, ChatWorkspace } from './chat-workspace.js';

/** Raised when a community without a chat admin connection is asked to use the workspace. */
export class ChatNotConfiguredError extends Error {
  /** Same code as the API error the service answers with (400 chat_admin_not_configured). */
  readonly code = 'chat_admin_not_configured';

  constructor() {
    super('This community has no chat admin connection.');
    this.name = 'ChatNotConfiguredError';
  }
}

/**
 * The workspace of a community with no chat connection. Services are expected to check for a
 * connection before inviting; reaching these methods is a bug upstream, so they reject loudly
 * instead of pretending an invitation failed.
 */
export const noChatWorkspace: ChatWorkspace = {
  async inviteUser(): Promise<ChatInviteResult> {
    throw new ChatNotConfiguredError();
  },
  async lookupUserByEmail(): Promise<ChatUser | null> {
    throw new ChatNotConfiguredError();
  },
  async postMessage(): Promise<ChatPostResult> {
    throw new ChatNotConfiguredError();
  },
  async getPermalink(): Promise<string> {
    throw new ChatNotConfiguredError();
  },
};
