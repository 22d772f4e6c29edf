// The Redis adapter subscribes once, when it is built, without waiting for the answer. With Redis
// unreachable at that moment both subscriptions fail (an unhandled rejection each) and are never made
// again: node-redis resubscribes after a reconnection only what had succeeded. This wrapper of the
// subscriber connection catches those failures and subscribes again on the connection's next `ready`;
// unsubscribing (on close) never throws.
import type { Logger } from 'pino';
import type { RedisClient } from '../redis.ts';

type Call = (...args: unknown[]) => Promise<unknown>;

export function resilientSubscriber(client: RedisClient, logger: Logger): RedisClient {
  const method = (name: string) => (client as unknown as Record<string, Call>)[name]!.bind(client);
  const retrying =
    (name: 'subscribe' | 'pSubscribe'): Call =>
    (...args) => {
      const attempt = (): Promise<unknown> =>
        method(name)(...args).catch((error: unknown) => {
          logger.warn({ err: { message: (error as Error).message } }, 'socket fan-out: subscription failed, retried once redis is ready');
          client.once('ready', () => void attempt());
        });
      return attempt();
    };
  const quiet =
    (name: 'unsubscribe' | 'pUnsubscribe'): Call =>
    (...args) =>
      method(name)(...args).catch(() => undefined);
  const wrapped: Record<string, Call> = {
    subscribe: retrying('subscribe'),
    pSubscribe: retrying('pSubscribe'),
    unsubscribe: quiet('unsubscribe'),
    pUnsubscribe: quiet('pUnsubscribe'),
  };
  return new Proxy(client, {
    get(target, property, receiver) {
      if (typeof property === 'string' && property in wrapped) return wrapped[property];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as Call).bind(target) : value;
    },
  });
}
