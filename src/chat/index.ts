export {
  ChatUnavailableError,
  type ChatConnection,
  type ChatInviteResult,
  type ChatUser,
  type ChatWorkspace,
  type ChatWorkspaceFactory,
} from './chat-workspace.js';
export { ChatNotConfiguredError, noChatWorkspace } from './none-workspace.js';
export { createSlackWorkspace, verifySlackToken, type SlackWorkspaceOptions, type VerifySlackTokenResult } from './slack-workspace.js';
export { createSlackWorkspaceFactory } from './slack-workspace-factory.js';
