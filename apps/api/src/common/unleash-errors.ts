import { randomUUID } from 'node:crypto';

/**
 * Errors in the reference system's envelope (semantics §0.2): `id` (fresh UUID), `name` (class name),
 * `message`, `details: [{ message }]`, plus extra keys for some kinds.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    override readonly name: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  toBody(): Record<string, unknown> {
    return {
      id: randomUUID(),
      name: this.name,
      message: this.message,
      details: [{ message: this.message }],
      ...this.extra,
    };
  }
}

export const notFound = (message: string) => new ApiError(404, 'NotFoundError', message);
export const pathNotAvailable = (path: string) =>
  notFound(`The path you were looking for (${path}) is not available.`);
export const contentTooLarge = () => new ApiError(413, 'ContentTooLargeError', 'Request entity too large');
export const badData = (message: string) => new ApiError(400, 'BadDataError', message);
/** The reference's 400 for a parameter its OpenAPI schema refuses (or one its database fails on). */
export const requestRefused = (message: string, path?: string) =>
  new ApiError(
    400,
    'BadDataError',
    'Request validation failed: your request body or params contain invalid data. Refer to the `details` list for more information.',
    { details: [path === undefined ? { message } : { message, path }] },
  );
export const serviceUnavailable = () =>
  new ApiError(503, 'ServiceUnavailableError', 'The database did not answer in time. Please try again.');
export const unknownError = () =>
  new ApiError(500, 'UnknownError', 'Unexpected error. Please try again later.');
export const authenticationRequired = () =>
  new ApiError(
    401,
    'AuthenticationRequired',
    'You must log in to use Unleash. Your request had no authorization header, so we could not authorize you. Try logging in at /auth/simple/login',
    { path: '/auth/simple/login', type: 'password', defaultHidden: false },
  );
export const unauthorized = () => new ApiError(401, 'UnauthorizedError', 'You must log in to use Unleash.');
