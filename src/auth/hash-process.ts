// The password-hashing process (design.md §5). The service starts it at the lowest CPU
// priority (process-hasher.ts), so every thread in it, the libuv threads scrypt runs on
// included, yields the CPU to the service's event loop and to the database: a flood of
// registrations slows registrations, not queries. It answers the requests of
// process-hasher.ts over the IPC channel, and exits when that channel closes (the service
// stopped or died).
import { createScryptHasher, type ScryptParams } from './password-hasher.js';
import type { HashReply, HashRequest } from './process-hasher.js';

const params = JSON.parse(process.argv[2] ?? '') as ScryptParams;
const hasher = createScryptHasher(params);
const send = process.send?.bind(process);
if (!send) throw new Error('hash-process.js runs as a child of the service, with an IPC channel');

process.on('message', (request: HashRequest) => {
  const work = request.op === 'hash' ? hasher.hash(request.password) : hasher.verify(request.hash, request.password);
  work.then(
    (value): void => void send({ id: request.id, value } satisfies HashReply),
    (err: unknown): void => void send({ id: request.id, error: String(err) } satisfies HashReply),
  );
});
process.on('disconnect', () => process.exit(0));
