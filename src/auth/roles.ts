// The two roles of the service and the one rule about them: Admin implies every role
// (ServiceStack's behaviour, design.md §4).
export type Role = 'Admin' | 'ApiUser';

/** The authenticated caller, read from a verified access token. */
export interface Principal {
  readonly userId: string;
  readonly sessionId: string;
  readonly userName: string | undefined;
  readonly roles: readonly string[];
}

export const roles: readonly Role[] = ['Admin', 'ApiUser'];

export const isRole = (value: unknown): value is Role => typeof value === 'string' && (roles as readonly string[]).includes(value);

export function hasRole(principal: Pick<Principal, 'roles'> | null | undefined, role: string): boolean {
  if (!principal) return false;
  return principal.roles.includes('Admin') || principal.roles.includes(role);
}
