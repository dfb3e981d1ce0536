/*
 * The floor of the reads (npm run bench): a bare Fastify route with the api's server settings that authenticates
 * as the api does (the Authorization header parsed and its secret hashed, then one map lookup) and answers a
 * fixed JSON body of a given size: GET /floor/<bytes>. What any read of that size could reach on this machine.
 * Started by bench/run.ts as its own process; prints `listening <port>` once ready.
 */
import Fastify from 'fastify';
import { hashTokenSecret, tokenFromHeader } from '@flaglens/projections';
import { API_SERVER_OPTIONS, tuneServer } from '../apps/api/src/common/server-options';

const port = Number(process.argv[2] ?? 0);
const token = process.env.FLOOR_TOKEN ?? '';
const known = new Map<string, number>([
  [hashTokenSecret(tokenFromHeader(token) ?? '').toString('base64'), 1],
]);
const bodies = new Map<number, Buffer>();

const app = Fastify({ ...API_SERVER_OPTIONS, routerOptions: { ...API_SERVER_OPTIONS.routerOptions } });
app.get<{ Params: { bytes: string } }>('/floor/:bytes', (req, reply) => {
  const header = req.headers.authorization;
  const secret = header ? tokenFromHeader(header) : null;
  if (secret === null || known.get(hashTokenSecret(secret).toString('base64')) === undefined) {
    void reply.code(401).send();
    return;
  }
  const size = Number(req.params.bytes);
  let body = bodies.get(size);
  if (!body) {
    body = Buffer.alloc(size, 0x20);
    body[0] = 0x7b; // {
    body[size - 1] = 0x7d; // }
    bodies.set(size, body);
  }
  void reply.type('application/json; charset=utf-8').send(body);
});

void app.listen({ port, host: '127.0.0.1' }).then(() => {
  tuneServer(app.server);
  console.log(`listening ${(app.server.address() as { port: number }).port}`);
});
