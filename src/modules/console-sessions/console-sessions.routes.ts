import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { ModuleOptions } from '../../dependencies.js';
import { requestContextOf } from '../../routing/command-context.js';
import { errorResponses } from '../../schemas/common.schemas.js';
import { withDeadline } from '../../shared/request-deadline.js';
import { exchangeConsoleToken } from './console-sessions.commands.js';
import { ConsoleSignInBodySchema, ConsoleSignInResponseSchema } from './console-sessions.schemas.js';

const description = [
  "Signs the operator's console in (docs/console.md): exchanges the one-time token of a console link",
  '(`community-admin console link --community ID`, the part of its URL after `#token=`) for a console session:',
  'a new API key of the community holding every permission, labelled `Console session`, expiring after',
  'CONSOLE_SESSION_HOURS (12 by default), listed by `community-admin key list`. A link works once: of two',
  'concurrent uses exactly one gets a session. A used, expired or unknown token answers 401',
  '`console_link_refused`, the same for all three. Sign out by revoking the session key. Absent (404) when',
  'CONSOLE=false.',
].join(' ');

/** `POST /admin/v0/console/sessions`: the console's sign-in; not registered at all when CONSOLE=false. */
export const consoleSessionsRoutes: FastifyPluginAsyncTypebox<ModuleOptions> = async (app, { services }) => {
  if (!services.config.console) return;
  app.post(
    '/admin/v0/console/sessions',
    {
      // Public (a browser signing in has no key yet), with its own per-address budget: each call may be a guess.
      config: { operation: 'console.signIn', bodyTypes: ['json'], public: true, signInBudget: true },
      schema: {
        tags: ['Console', 'extension'],
        operationId: 'signInToConsole',
        summary: 'Sign in to the console with a one-time link',
        description,
        security: [],
        body: ConsoleSignInBodySchema,
        response: {
          201: ConsoleSignInResponseSchema,
          ...errorResponses(400, 413, 415),
          401: Type.Ref('ErrorBody', {
            description: 'The link was already used, has expired or is unknown (console_link_refused): make a new one.',
          }),
        },
      },
    },
    async (request, reply) => {
      const session = await exchangeConsoleToken(
        { ...withDeadline(request, services), requestContext: requestContextOf(request) },
        { token: request.body.token, sessionMs: services.config.consoleSessionMs },
      );
      return reply.code(201).send({ success: true as const, data: session });
    },
  );
};
