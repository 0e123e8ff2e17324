// The ApiErrors of the account operations, built in one place so that every 401 carries
// WWW-Authenticate and every 429/503 carries Retry-After (design.md §3).
import { ApiError } from '../errors/api-error.js';

export const unauthorized = (message = 'Unauthorized'): ApiError =>
  ApiError.of('Unauthorized', message, { 'WWW-Authenticate': 'Bearer' });

/** One answer for an unknown user and a wrong password, so neither can be told apart. */
export const invalidCredentials = (): ApiError => unauthorized('Invalid UserName or Password');

export const invalidRefreshToken = (): ApiError => unauthorized('Invalid RefreshToken');

export const forbidden = (): ApiError => ApiError.of('Forbidden', 'Invalid Role');

export const tooManyRequests = (retryAfterSeconds: number): ApiError =>
  ApiError.of('TooManyRequests', 'Too many requests, try again later', { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });

export const hashingBusy = (): ApiError =>
  ApiError.of('ServiceUnavailable', 'The service is busy, try again shortly', { 'Retry-After': '1' });
