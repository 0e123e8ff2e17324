// The users CLI (design.md §4): create users and assign roles outside the HTTP API.
//   npm run users -- create <userName|email> [--email e] [--roles Admin,ApiUser]
//   npm run users -- assign-roles <userName> <roles>
//   npm run users -- list
// The password is read from stdin, never from argv, which other users can see in `ps`.
import { pathToFileURL } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { emailError, looksLikeEmail, passwordError, userNameError } from '../auth/account-rules.js';
import { createUser } from '../auth/create-user.js';
import { createScryptHasher } from '../auth/password-hasher.js';
import { isRole } from '../auth/roles.js';
import { addRoles, findUser, listUsers, rolesOf } from '../auth/user-store.js';
import { loadConfig } from '../config.js';
import { connect, disconnect } from '../db/connect.js';
import { migrate } from '../db/migrate.js';
import { ApiError } from '../errors/api-error.js';

export interface CliIo {
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const usage = 'usage: users create <userName|email> [--email e] [--roles Admin,ApiUser] | assign-roles <userName> <roles> | list';

class UsageError extends Error {}

/** The first line of stdin; on a terminal, typed without echo. */
async function readSecretLine(stdin: CliIo['stdin'], stderr: Writable, prompt: string): Promise<string> {
  const tty = stdin as CliIo['stdin'] & { setRawMode?: (on: boolean) => void };
  if (tty.isTTY && tty.setRawMode) {
    stderr.write(prompt);
    tty.setRawMode(true);
    try {
      let line = '';
      for await (const chunk of stdin) {
        for (const ch of String(chunk)) {
          if (ch === '\r' || ch === '\n') return line;
          if (ch === '\u0003') throw new Error('cancelled');
          line = ch === '\u007f' ? line.slice(0, -1) : line + ch;
        }
      }
      return line;
    } finally {
      tty.setRawMode(false);
      stderr.write('\n');
    }
  }
  let text = '';
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

function parseRoles(list: string): string[] {
  const roles = list.split(',').map((r) => r.trim()).filter(Boolean);
  const unknown = roles.filter((r) => !isRole(r));
  if (unknown.length > 0) throw new UsageError(`unknown role ${unknown.join(', ')} (known: Admin, ApiUser)`);
  return roles;
}

function options(args: string[]): { positional: string[]; flags: Record<string, string> } {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--email' || a === '--roles') {
      const v = args[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      flags[a.slice(2)] = v;
    } else if (a.startsWith('--')) throw new UsageError(`unknown option ${a}`);
    else positional.push(a);
  }
  return { positional, flags };
}

export async function runUsersCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    const { positional, flags } = options(rest);
    const config = loadConfig(io.env);
    if (command !== 'create' && command !== 'assign-roles' && command !== 'list') throw new UsageError(`unknown command ${command ?? '(none)'}`);
    const db = connect({ databaseUrl: config.databaseUrl, sqliteFile: config.sqliteFile, poolMax: 2 });
    try {
      await migrate(db);
      if (command === 'list') {
        for (const u of await listUsers(db.knex)) io.stdout.write(`${u.id}\t${u.userName ?? '-'}\t${u.email ?? '-'}\t${u.roles.join(',') || '-'}\n`);
        return 0;
      }
      const login = positional[0];
      if (login === undefined) throw new UsageError('missing <userName>');
      if (command === 'assign-roles') {
        if (positional[1] === undefined) throw new UsageError('missing <roles>');
        const roles = parseRoles(positional[1]);
        const user = await findUser(db.knex, login);
        if (!user) throw new Error(`no user ${login}`);
        await addRoles(db.knex, user.id, roles);
        io.stdout.write(`${(await rolesOf(db.knex, user.id)).join(',')}\n`);
        return 0;
      }
      const asEmail = looksLikeEmail(login);
      const userName = asEmail ? undefined : login;
      const email = asEmail ? login : flags['email'];
      const roles = flags['roles'] ? parseRoles(flags['roles']) : [...config.defaultRoles];
      const invalid = (userName !== undefined ? userNameError(userName) : undefined) ?? (email !== undefined ? emailError(email) : undefined);
      if (invalid) throw new UsageError(invalid.message);
      const password = await readSecretLine(io.stdin, io.stderr, 'Password: ');
      const pwError = passwordError(password);
      if (pwError) throw new UsageError(pwError.message);
      const created = await createUser(
        { db, hasher: createScryptHasher(config.scrypt), clock: () => new Date(), refreshTokenTtl: config.refreshTokenTtl },
        { userName, email, password },
        roles,
      );
      io.stdout.write(`created user ${created.userId}\n`);
      return 0;
    } finally {
      await disconnect(db);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`${err.message}\n${usage}\n`);
      return 2;
    }
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`${message}\n`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = process.env;
  runUsersCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env }).then((code) => {
    process.exitCode = code;
  });
}
