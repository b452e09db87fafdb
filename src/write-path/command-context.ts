import type { CommunityWrite, WriteDeps } from './write-community-data.js';

/*
 * The one signature of a command (issue 37): `command(ctx, input)`. `ctx` says where and by whom
 * the change is made, the same for every writer (API route, CLI, import, seed, chat sync, workers);
 * `input` says what changes (one value: a body, a record list, `{ id, ... }`). Two kinds of ctx:
 *
 *   - CommandContext: a command that opens its own write (`writeCommunityData(ctx, ctx.communityId,
 *     ...)`): the services it uses, the community, the clock, who acts and the request it serves.
 *     Routes build it with `commandContext(request, services)` (src/routing/command-context.ts),
 *     the CLI with `{ database, clock, actor: cliActor(), communityId }`; a worker names no actor
 *     (the write path records `system`).
 *   - TxContext: a command that runs inside a write another opened (the import's sections, the chat
 *     sync's writers): the write's transaction, community and instant. A command that also touches
 *     views, emits webhook events or records activities takes the whole write, `CommunityWrite`
 *     (which is a TxContext): its `record` carries the actor of the write that opened it.
 */

/** What a command that opens its own write is given: `D` (the services it needs beyond the database and clock), the write's deps, and the community. */
export type CommandContext<D extends object = object> = D & WriteDeps & { readonly communityId: string };

/**
 * What an operator's command on an object named by its own id alone is given (the CLI's `key
 * revoke <id>`): no community, the object's is the one it changes.
 */
export type OperatorContext<D extends object = object> = D & WriteDeps;

/**
 * What an operator's command on an object named by its own id is given (an API key, a webhook
 * endpoint): the object's community is the one it changes; `communityId` restricts it to one
 * community (an API route: the caller's), or null for any (the CLI).
 */
export type ScopedCommandContext<D extends object = object> = D & WriteDeps & { readonly communityId: string | null };

/** What a command inside an open write is given: the write's transaction, community and instant (µs). */
export type TxContext = Pick<CommunityWrite, 'tx' | 'communityId' | 'now'>;
