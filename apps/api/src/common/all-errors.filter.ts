import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError, badData, notFound, pathNotAvailable, unknownError } from './unleash-errors';

/** Translates every error once, at the HTTP edge, into the reference's envelope. Never a stack trace. */
@Catch()
export class AllErrorsFilter implements ExceptionFilter {
  private readonly log = new Logger('HTTP');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const req = http.getRequest<Request>();
    const error = this.toApiError(exception, req);
    if (error.status >= 500)
      this.log.error(`${req.method} ${req.path}: ${(exception as Error)?.stack ?? exception}`);
    if (res.headersSent) return;
    res.status(error.status).type('application/json; charset=utf-8').send(JSON.stringify(error.toBody()));
  }

  private toApiError(e: unknown, req: Request): ApiError {
    if (e instanceof ApiError) return e;
    if (e instanceof URIError)
      return badData(`Failed to decode the request path: ${JSON.stringify(req.originalUrl.slice(0, 200))}`);
    if (e instanceof HttpException) {
      const status = e.getStatus();
      const body = e.getResponse() as { message?: unknown } | string;
      const message =
        typeof body === 'string'
          ? body
          : Array.isArray(body.message)
            ? body.message.join('; ')
            : String(body.message ?? e.message);
      if (status === 404)
        return /^Cannot [A-Z]+ /.test(message) ? pathNotAvailable(req.path) : notFound(message);
      if (status === 400) return badData(message);
      if (status === 413) return new ApiError(413, 'ContentTooLargeError', 'Request entity too large');
      if (status < 500) return new ApiError(status, e.name, message);
      return unknownError();
    }
    const status =
      (e as { status?: unknown; statusCode?: unknown })?.status ??
      (e as { statusCode?: unknown })?.statusCode;
    if (status === 400) return badData('The request could not be understood');
    return unknownError();
  }
}
