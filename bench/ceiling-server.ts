/**
 * The ceiling of `npm run bench`: a plain Fastify server (no hooks, no plugins, no logger) in a
 * process of its own, like the calendar server, answering `GET /page` with bytes handed over by the
 * parent — a real page of the calendar with its headers — and `GET /not-modified` with an empty
 * `304`. What the same machine, Node and Fastify do when a request costs nothing but HTTP: the
 * calendar's figures are printed as shares of it.
 */
import Fastify from 'fastify';
import { type CeilingParentMessage, type CeilingMessage } from './protocol.js';

const send = (message: CeilingMessage): void => {
  process.send!(message);
};

const page = await new Promise<Extract<CeilingParentMessage, { type: 'page' }>>((resolve) => {
  const onMessage = (message: CeilingParentMessage): void => {
    if (message.type !== 'page') return;
    process.off('message', onMessage);
    resolve(message);
  };
  process.on('message', onMessage);
});
const body = Buffer.from(page.body, 'base64');

const app = Fastify({ logger: false });
app.get('/page', (_request, reply) => {
  reply.headers(page.headers).send(body);
});
app.get('/not-modified', (_request, reply) => {
  reply.code(304).send();
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('The ceiling server has no TCP address.');

process.on('message', (message: CeilingParentMessage) => {
  if (message.type === 'stop') void app.close().then(() => process.exit(0));
});
send({ type: 'ready', port: address.port });
