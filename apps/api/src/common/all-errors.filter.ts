import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendJsonText, pathOf } from './json-body';
import {
  ApiError,
  badData,
  contentTooLarge,
  notFound,
  pathNotAvailable,
  serviceUnavailable,
  unknownError,
} from './unleash-errors';
import { classifyFailure } from '@flaglens/persistence';

/** An error answered in the reference's envelope (and `Retry-After` on a 503), wherever it was raised. */
export function sendApiError(reply: FastifyReply, error: ApiError): void {
  if (error.status === 503) void reply.header('retry-after', '1');
  sendJsonText(reply, JSON.stringify(error.toBody()), error.status);
}

/** Translates every error once, at the HTTP edge, into the reference's envelope. Never a stack trace. */
@Catch()
export class AllErrorsFilter implements ExceptionFilter {
  private readonly log = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    const req = http.getRequest<FastifyRequest>();
    const path = pathOf(req);
    const error = this.toApiError(exception, path);
    if (error.status >= 500)
      this.log.error(`${req.method} ${path}: ${(exception as Error)?.stack ?? exception}`);
    if (reply.sent) return;
    sendApiError(reply, error);
  }

  private toApiError(e: unknown, path: string): ApiError {
    if (e instanceof ApiError) return e;
    if (e instanceof URIError)
      return badData(`Failed to decode the request path: ${JSON.stringify(path.slice(0, 200))}`);
    if (e instanceof HttpException) {
      const status = e.getStatus();
      const body = e.getResponse() as { message?: unknown } | string;
      const message =
        typeof body === 'string'
          ? body
          : Array.isArray(body.message)
            ? body.message.join('; ')
            : String(body.message ?? e.message);
      if (status === 404) return /^Cannot [A-Z]+ /.test(message) ? pathNotAvailable(path) : notFound(message);
      if (status === 400) return badData(message);
      if (status === 413) return contentTooLarge();
      if (status < 500) return new ApiError(status, e.name, message);
      return unknownError();
    }
    const status =
      (e as { status?: unknown; statusCode?: unknown })?.status ??
      (e as { statusCode?: unknown })?.statusCode;
    // Fastify's own client errors (a body over the bound, a malformed request) keep their status
    if (status === 413) return contentTooLarge();
    if (status === 400) return badData('The request could not be understood');
    if (typeof status === 'number' && status > 400 && status < 500)
      return new ApiError(status, 'BadRequestError', (e as Error).message);
    // the database was briefly unable to answer (a statement timeout, a lost connection): try again
    if (classifyFailure(e) === 'transient') return serviceUnavailable();
    return unknownError();
  }
}
