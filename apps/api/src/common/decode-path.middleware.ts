import type { NextFunction, Request, Response } from 'express';
import { badData } from './unleash-errors';

/**
 * A malformed percent-escape in the path is a 400 in the envelope (the reference answers with a stack
 * trace). Checked before routing, for every path.
 */
export function rejectMalformedPath(req: Request, res: Response, next: NextFunction): void {
  try {
    decodeURIComponent(req.path);
    next();
  } catch {
    const err = badData(`Failed to decode param in path ${JSON.stringify(req.path.slice(0, 200))}`);
    res.status(400).type('application/json; charset=utf-8').send(JSON.stringify(err.toBody()));
  }
}
