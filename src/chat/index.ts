export {
  type ChatConnection,
  type ChatInviteResult,
  type ChatPostResult,
  ChatUnavailableError,
  type ChatUser,
  type ChatWorkspace,
  type ChatWorkspaceFactory,
} from './chat-workspace.js';
export { ChatNotConfiguredError, noChatWorkspace } from './none-workspace.js';
export { createSlackWorkspace, type SlackWorkspaceOptions, type VerifySlackTokenResult, verifySlackToken } from './slack-workspace.js';
export { createSlackWorkspaceFactory } from './slack-workspace-factory.js';
