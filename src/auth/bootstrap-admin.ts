// ADMIN_USERNAME + ADMIN_PASSWORD at start-up (design.md §4): create that user with role
// Admin when it does not exist; never touch an existing one. Bad values stop start-up
// with a message naming the variable, like every other configuration error.
import { ConfigError, type Config } from '../config.js';
import { ApiError } from '../errors/api-error.js';
import { emailError, looksLikeEmail, passwordError, userNameError } from './account-rules.js';
import { createUser, type CreateUserContext } from './create-user.js';
import { findUser } from './user-store.js';

export type BootstrapResult = 'created' | 'exists' | 'skipped';

export async function bootstrapAdmin(ctx: CreateUserContext, config: Pick<Config, 'adminUserName' | 'adminPassword'>): Promise<BootstrapResult> {
  const { adminUserName: login, adminPassword: password } = config;
  if (login === undefined && password === undefined) return 'skipped';
  if (login === undefined) throw new ConfigError('ADMIN_USERNAME', 'is required when ADMIN_PASSWORD is set');
  if (password === undefined) throw new ConfigError('ADMIN_PASSWORD', 'is required when ADMIN_USERNAME is set');
  const email = looksLikeEmail(login);
  const loginError = email ? emailError(login) : userNameError(login);
  if (loginError) throw new ConfigError('ADMIN_USERNAME', loginError.message);
  const pwError = passwordError(password);
  // The message names the rule, never the value.
  if (pwError) throw new ConfigError('ADMIN_PASSWORD', `must be ${pwError.errorCode === 'NotEmpty' ? 'set' : 'between 8 and 256 characters'}`);

  if (await findUser(ctx.db.knex, login)) return 'exists';
  try {
    await createUser(ctx, { userName: email ? undefined : login, email: email ? login : undefined, password }, ['Admin']);
    return 'created';
  } catch (err) {
    // Another node starting at the same moment created it first.
    if (err instanceof ApiError && err.code === 'AlreadyExists') return 'exists';
    throw err;
  }
}
