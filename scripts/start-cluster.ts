// `npm run start:cluster`: the product as several instances, on one machine. Debian's redis-server (or
// REDIS_URL's), two app instances sharing it (sessions, rate limits, the socket fan-out), and a small
// TCP balancer in front at the app's usual address, round robin per connection. The stand-ins run as
// under `npm start`. Stop one instance (kill its pid, printed below) and the product keeps working:
// open pages reconnect their live-session socket to the other one.
import { createSupervisor } from './supervisor.ts';
import { APP_NODE_FLAGS, appEnv, LOCAL_PRODUCT } from './local-product.ts';
import { startStandIns } from './local-stand-ins.ts';
import { redisServerMissing, startRedisServer } from './redis-server.ts';
import { startBalancer } from './tcp-balancer.ts';

const { appUrl, identityPublic, backendUrl } = LOCAL_PRODUCT;
const port = (url: string) => new URL(url).port || '80';
/** The instances listen on the two ports after the balancer's (3001 and 3002 by default). */
const instancePorts = [Number(port(appUrl)) + 1, Number(port(appUrl)) + 2];

const supervisor = createSupervisor();

let redisUrl = process.env.REDIS_URL;
if (!redisUrl) {
  const missing = redisServerMissing();
  if (missing) {
    process.stderr.write(`start:cluster needs Redis: ${missing}, or set REDIS_URL\n`);
    process.exit(1);
  }
  const redis = await startRedisServer({ port: Number(process.env.REDIS_PORT ?? 6390) });
  supervisor.onStop(() => redis.stop());
  redisUrl = redis.url;
}

const { appEnv: standInEnv } = await startStandIns(supervisor);
for (const [index, instancePort] of instancePorts.entries()) {
  supervisor.start(`app-${'ab'[index]}`, [...APP_NODE_FLAGS, 'dist/server.js'], {
    ...appEnv(),
    ...standInEnv,
    HOST: '127.0.0.1',
    PORT: String(instancePort),
    REDIS_URL: redisUrl,
  });
}
const balancer = await startBalancer({
  port: Number(port(appUrl)),
  // Where npm start's app listens (HOST, default all IPv4 addresses).
  host: process.env.HOST ?? '0.0.0.0',
  targets: instancePorts.map((instancePort) => ({ host: '127.0.0.1', port: instancePort })),
});
supervisor.onStop(() => balancer.close());
process.stdout.write(
  `accounts (2 instances on ${instancePorts.map((p) => `:${p}`).join(' and ')} behind ${appUrl}, Redis ${redisUrl}): identity ${identityPublic}, backend ${backendUrl}\n`,
);
