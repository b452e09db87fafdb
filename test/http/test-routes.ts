import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../src/errors.js';
import { principalOf } from '../../src/routing/request-context.js';
import { errorResponses } from '../../src/schemas/common.schemas.js';

/** A promise the test resolves by hand, to hold a request in flight. */
export class Gate {
  private release: () => void = () => {};
  private arrive: () => void = () => {};
  readonly opened: Promise<void> = new Promise((resolve) => {
    this.release = resolve;
  });
  /** Resolved when the first request reaches the gate (so it holds whatever it claimed before its handler). */
  readonly reached: Promise<void> = new Promise((resolve) => {
    this.arrive = resolve;
  });
  open(): void {
    this.release();
  }
  /** Called by a held request when it starts waiting. */
  wait(): Promise<void> {
    this.arrive();
    return this.opened;
  }
}

/** What the test-only routes did: side effects per community and name, and switches the tests flip. */
export interface TestRouteState {
  effects: Map<string, number>;
  /** When set, POST requests with `hold: true` wait for it before their side effect. */
  gate: Gate | null;
  /** How many of the next `fail: true` requests answer 500 (before any side effect). */
  failuresLeft: number;
}

/** Effects are counted per community, so suites and tests sharing the routes never see each other's. */
export const effectId = (communityId: string, name: string): string => `${communityId}/${name}`;

const EffectBody = Type.Object(
  {
    name: Type.String({ minLength: 1 }),
    hold: Type.Optional(Type.Boolean()),
    fail: Type.Optional(Type.Boolean()),
    missing: Type.Optional(Type.Boolean()),
    note: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

interface EffectRequest {
  communityId: string;
  name: string;
  hold?: boolean;
  fail?: boolean;
  missing?: boolean;
}

/**
 * Test-only mutating routes with a countable side effect, so idempotency and rate limits can be
 * tested whatever resource routes exist. Registered through the harness's `beforeReady` hook.
 */
export function createTestRoutes(): { state: TestRouteState; register: (app: FastifyInstance) => void } {
  const state: TestRouteState = { effects: new Map(), gate: null, failuresLeft: 0 };

  const perform = async (input: EffectRequest): Promise<number> => {
    if (input.fail && state.failuresLeft > 0) {
      state.failuresLeft--;
      throw new Error('simulated failure');
    }
    if (input.missing) throw notFound('Thing');
    if (input.hold && state.gate) await state.gate.wait();
    const id = effectId(input.communityId, input.name);
    const count = (state.effects.get(id) ?? 0) + 1;
    state.effects.set(id, count);
    return count;
  };

  const register = (app: FastifyInstance): void => {
    const responses = { ...errorResponses(400, 404, 409, 422) };
    app.post(
      '/admin/v0/test/effects',
      { config: { bodyTypes: ['json', 'form'] }, schema: { body: EffectBody, response: responses } },
      async (request, reply) => {
        const body = request.body as Omit<EffectRequest, 'communityId'>;
        const count = await perform({ ...body, communityId: principalOf(request).communityId });
        return reply
          .code(201)
          .header('location', `/admin/v0/test/effects/${body.name}`)
          .send({ success: true, data: { name: body.name, count } });
      },
    );
    app.patch(
      '/admin/v0/test/effects/:name',
      { config: { bodyTypes: ['json'] }, schema: { body: Type.Object({ note: Type.String() }) } },
      async (request) => {
        const { name } = request.params as { name: string };
        return { success: true, data: { name, count: await perform({ name, communityId: principalOf(request).communityId }) } };
      },
    );
    app.delete('/admin/v0/test/effects/:name', async (request) => {
      const { name } = request.params as { name: string };
      return { success: true, data: { name, count: await perform({ name, communityId: principalOf(request).communityId }) } };
    });
    app.get('/admin/v0/test/effects/:name', async (request) => {
      const { name } = request.params as { name: string };
      return { success: true, data: { name, count: state.effects.get(effectId(principalOf(request).communityId, name)) ?? 0 } };
    });
  };

  return { state, register };
}
