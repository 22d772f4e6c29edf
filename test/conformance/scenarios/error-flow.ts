// The error flow (contract §18): a browser-flow error stored and read back by the error page
// (GET /self-service/errors?id=), an unknown id, a missing id, and Kratos's stub error.
import type { Scenario } from '../harness.ts';
import { createFlow, csrfOf } from './steps.ts';

export const errorFlowScenarios: Scenario[] = [
  {
    name: 'error flow: a browser error is stored and read back with /self-service/errors?id=',
    async run(ctx) {
      const owner = ctx.browser();
      const flow = await createFlow(ctx, owner, 'login');
      const stranger = ctx.browser();
      const posted = await stranger.postForm(flow.ui.action, { csrf_token: csrfOf(flow), identifier: 'x@example.com', password: 'x', method: 'password' });
      const id = posted.location ? new URL(posted.location).searchParams.get('id') : null;
      if (!id) throw new Error(`no error id: ${posted.status} ${posted.location ?? ''}`);
      await stranger.getJson(ctx.pub(`/self-service/errors?id=${id}`));
      await ctx.browser().getJson(ctx.pub(`/self-service/errors?id=${id}`));
    },
  },
  {
    name: 'error flow: a disallowed return_to on a browser navigation is stored as an error',
    async run(ctx) {
      const client = ctx.browser();
      const answer = await client.get(ctx.pub(`/self-service/registration/browser?return_to=${encodeURIComponent('https://evil.example/')}`), {
        variant: 'browser',
      });
      const id = answer.location ? new URL(answer.location).searchParams.get('id') : null;
      if (id) await client.getJson(ctx.pub(`/self-service/errors?id=${id}`));
    },
  },
  {
    name: 'error flow: unknown id, missing id, and the stub error',
    async run(ctx) {
      const client = ctx.browser();
      await client.getJson(ctx.pub('/self-service/errors?id=6a3f9a34-5a4e-4c9f-8d7e-1f2a3b4c5d6e'));
      await client.getJson(ctx.pub('/self-service/errors'));
      await client.getJson(ctx.pub('/self-service/errors?id=stub:500'));
    },
  },
];
